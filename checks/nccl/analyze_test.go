package nccl

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/checks"
	"github.com/fabricctl/fabricctl/internal/testutil"
	"github.com/google/go-cmp/cmp"
)

func analyzeFile(t *testing.T, opt Options, names ...string) *Analysis {
	t.Helper()
	var srcs []Source
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join("testdata", n))
		if err != nil {
			t.Fatal(err)
		}
		srcs = append(srcs, Source{Name: n, R: bytes.NewReader(b)})
	}
	a, err := Analyze(opt, srcs...)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func kinds(a *Analysis) []string {
	var out []string
	for _, f := range a.Findings {
		out = append(out, f.Host+"/"+string(f.Kind))
	}
	return out
}

func TestGolden(t *testing.T) {
	paths, _ := filepath.Glob("testdata/*.log")
	if len(paths) == 0 {
		t.Fatal("no fixtures")
	}
	for _, p := range paths {
		name := strings.TrimSuffix(filepath.Base(p), ".log")
		t.Run(name, func(t *testing.T) {
			a := analyzeFile(t, Options{}, filepath.Base(p))
			testutil.Golden(t, name+".golden", testutil.JSON(t, a))
		})
	}
}

func TestCleanRun(t *testing.T) {
	a := analyzeFile(t, Options{Interfaces: []string{"ens1f0np0"}, HCAs: []string{"mlx5_0", "mlx5_1"}}, "two_hosts_roce_clean.log")
	if !a.Clean() {
		t.Fatalf("findings on a clean run: %v", kinds(a))
	}
	h := a.Hosts[0]
	if h.Name != "gpu-01" || h.Versions[0] != "2.21.5+cuda12.4" || !slices.Equal(h.Ranks, []int{0, 1}) || h.GDRDMA != GDRYes ||
		h.Transports["NET/IB"] != 2 || h.Transports["P2P/CUMEM"] != 1 || h.OOB[0].String() != "ens1f0np0:10.0.1.11" ||
		h.Env["NCCL_IB_GID_INDEX"] != "3" || len(h.IBDevices) != 2 || h.IBDevices[1].String() != "mlx5_1:1/RoCE" {
		t.Errorf("host %+v", h)
	}
	for _, r := range a.Results() {
		if r.Status != checks.StatusPass || r.ID != "nccl" {
			t.Errorf("result %+v", r)
		}
	}
}

func TestProblemRun(t *testing.T) {
	a := analyzeFile(t, Options{}, "mpirun_socket_fallback_skew.log")
	want := []string{
		"/version-skew",
		"node-a/no-ib-device",
		"node-a/socket-fallback",
		"node-a/unexpected-interface",
		"node-b/ib-completion-error",
		"node-b/mixed-link-layers",
		"node-b/no-gdrdma",
		"node-b/qp-error",
	}
	if d := cmp.Diff(want, kinds(a)); d != "" {
		t.Fatalf("findings (-want +got):\n%s", d)
	}
	byKind := map[Kind]Finding{}
	for _, f := range a.Findings {
		byKind[f.Kind] = f
	}
	if f := byKind[IBCompletionError]; f.Count != 2 || f.Class != checks.CompletionError ||
		f.Message != "NET/IB completion error 12 (RETRY_EXC_ERR) from peer 192.168.10.5<41872>, vendor err 129 (Send)" {
		t.Errorf("completion finding %+v", f)
	}
	if f := byKind[VersionSkew]; f.Message != "NCCL versions differ: 2.18.5+cuda12.2 on node-a; 2.19.3+cuda12.3 on node-b" || f.Where != "mpirun_socket_fallback_skew.log:4" {
		t.Errorf("skew %+v", f)
	}
	if f := byKind[UnexpectedInterface]; !strings.Contains(f.Message, "docker0:172.17.0.1 for its socket transport") {
		t.Errorf("interface %+v", f)
	}
	results := a.Results()
	if len(results) != 3 || results[0].Target != "fleet" || results[1].Status != checks.StatusFail || len(results[2].Evidence) != 4 {
		t.Errorf("results %+v", results)
	}

	relaxed := analyzeFile(t, Options{AllowSocket: true}, "mpirun_socket_fallback_skew.log")
	for _, k := range kinds(relaxed) {
		if strings.HasSuffix(k, "/socket-fallback") || strings.HasSuffix(k, "/no-ib-device") {
			t.Errorf("AllowSocket still reports %s", k)
		}
	}
}

func TestOptionsExpectations(t *testing.T) {
	a := analyzeFile(t, Options{Interfaces: []string{"ens2f0np0"}, HCAs: []string{"mlx5_0"}}, "two_hosts_roce_clean.log")
	got := kinds(a)
	want := []string{"gpu-01/unexpected-hca", "gpu-01/unexpected-interface", "gpu-02/unexpected-hca", "gpu-02/unexpected-interface"}
	if d := cmp.Diff(want, slices.Compact(got)); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

func TestNCCLTestsTable(t *testing.T) {
	a := analyzeFile(t, Options{}, "srun_all_reduce_perf_wrong.log")
	if len(a.Tests) != 1 {
		t.Fatalf("tests %+v", a.Tests)
	}
	p := a.Tests[0]
	if len(p.Rows) != 8 || p.OutOfBounds != 3 || p.AvgBusBW != 12.4419 || p.MaxBusBW() != 13.21 || p.Rows[3].OutOfPlace.Wrong != 3 {
		t.Errorf("perf %+v", p)
	}
	if d := cmp.Diff([]string{"/wrong-results", "gpu-01/no-gdrdma", "gpu-02/no-gdrdma"}, kinds(a)); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if a.Hosts[0].Name != "gpu-01" || !slices.Equal(a.Hosts[0].Ranks, []int{0}) || a.Hosts[0].Versions[0] != "2.21.5+cuda12.4" {
		t.Errorf("srun-prefixed host %+v", a.Hosts[0])
	}
}

// TestAnalyzeErrors: one log without NCCL output never aborts the analysis of
// the others; it is listed in Errors. Only when no log could be analysed is
// the error returned.
func TestAnalyzeErrors(t *testing.T) {
	a, err := Analyze(Options{},
		Source{Name: "empty.log", R: strings.NewReader("")},
		Source{Name: "ok.log", R: strings.NewReader("h:1:1 [0] NCCL INFO Using network IB\n")},
		Source{Name: "other.log", R: strings.NewReader("Epoch 1/10 loss=0.3\n")},
	)
	if err != nil || len(a.Hosts) != 1 || len(a.Errors) != 2 || a.Errors[0].Source != "empty.log" ||
		!errors.Is(a.Errors[1], ErrNoNCCL) || !strings.Contains(a.Errors[1].Message, "other.log: 1 lines") {
		t.Errorf("got %v %+v", err, a)
	}
	if _, err := Analyze(Options{}, Source{Name: "other.log", R: strings.NewReader("Epoch 1/10 loss=0.3\n")}); !errors.Is(err, ErrNoNCCL) {
		t.Errorf("nothing analysable: %v", err)
	}
	long := "h:1:1 [0] NCCL INFO x\n" + strings.Repeat("a", maxLine+1)
	if _, err := Analyze(Options{}, Source{Name: "long.log", R: strings.NewReader(long)}); err == nil || !strings.Contains(err.Error(), "long.log: line 2") {
		t.Errorf("over-long line: %v", err)
	}
}

func TestSplitLine(t *testing.T) {
	cases := []struct {
		in   string
		want record
	}{
		{"h1:12:13 [2] NCCL INFO Using network IB", record{rank: -1, host: "h1", pid: 12, dev: 2, level: "INFO", msg: "Using network IB"}},
		{"[1,3]<stdout>:h1:12:13 [2] NCCL INFO x", record{stream: "mpi:1,3", rank: 3, host: "h1", pid: 12, dev: 2, level: "INFO", msg: "x"}},
		{"[155] h1:12:13 [3] NCCL INFO x", record{stream: "[155]", rank: -1, host: "h1", pid: 12, dev: 3, level: "INFO", msg: "x"}},
		{"7: h1:12:13 [0] NCCL INFO x", record{stream: "srun:7", rank: 7, host: "h1", pid: 12, dev: 0, level: "INFO", msg: "x"}},
		{"\th1:12:13 [0] NCCL INFO x", record{rank: -1, host: "h1", pid: 12, dev: 0, level: "INFO", msg: "x"}},
		{"h1:12:13 [0] misc/socket.cc:50 NCCL WARN Net : Connect failed", record{rank: -1, host: "h1", pid: 12, dev: 0, level: "WARN", msg: "Net : Connect failed"}},
		{"NCCL INFO NET/Socket : Using [0]eth0:10.0.0.1<0>", record{rank: -1, dev: -1, level: "INFO", msg: "NET/Socket : Using [0]eth0:10.0.0.1<0>"}},
		{"NCCL version 2.19.3+cuda12.3", record{rank: -1, dev: -1, msg: "NCCL version 2.19.3+cuda12.3"}},
		// pdsh (DeepSpeed's runner) names the host, by name or address.
		{"10.1.2.3: h1:12:13 [0] NCCL INFO x", record{stream: "pdsh:10.1.2.3", machine: "10.1.2.3", rank: -1, host: "h1", pid: 12, dev: 0, level: "INFO", msg: "x"}},
		{"gpu-a: NCCL version 2.18.1+cuda12.1", record{stream: "pdsh:gpu-a", machine: "gpu-a", rank: -1, dev: -1, msg: "NCCL version 2.18.1+cuda12.1"}},
		// Ray, nested actors: the innermost names the worker and its node.
		{"(EngineCore_DP0 pid=1088) (RayWorkerWrapper pid=285, ip=192.168.177.12) spark2:285:285 [0] NCCL INFO x",
			record{stream: "ray:192.168.177.12:285", machine: "192.168.177.12", rank: -1, host: "spark2", pid: 285, dev: 0, level: "INFO", msg: "x"}},
		{"(pid=34272) NCCL DEBUG SET", record{stream: "ray:34272", rank: -1, dev: -1, msg: "NCCL DEBUG SET"}},
		// kubectl logs --prefix --timestamps.
		{"[pod/w-1/pytorch] 2024-05-01T12:00:00.1Z w-1:77:77 [0] NCCL INFO x", record{stream: "pod:w-1", machine: "w-1", rank: -1, host: "w-1", pid: 77, dev: 0, level: "INFO", msg: "x"}},
		// torchrun --tee and PyTorch's C++ log prefix.
		{"[default1]:h:5:5 [1] NCCL INFO x", record{stream: "torchrun:1", rank: -1, host: "h", pid: 5, dev: 1, level: "INFO", msg: "x"}},
		{"[rank4]:[E1206 18:44:12.755262105 ProcessGroupNCCL.cpp:607] [Rank 4] Watchdog caught", record{stream: "torchrun:4", rank: 4, dev: -1, msg: "[Rank 4] Watchdog caught", torchLevel: "E"}},
		// Python logging and syslog.
		{"2024-03-21 10:00:01,002 - worker[0] - INFO - node0:1:1 [0] NCCL INFO x", record{rank: -1, host: "node0", pid: 1, dev: 0, level: "INFO", msg: "x"}},
		{"Mar 21 10:00:01 node2 python3[22555]: node2:22555:22555 [0] NCCL INFO x", record{stream: "syslog:node2", machine: "node2", rank: -1, host: "node2", pid: 22555, dev: 0, level: "INFO", msg: "x"}},
		// A prefix no rule knows still leaves NCCL's own.
		{"<job 7> @@ node9:4:4 [0] NCCL INFO Using network IB", record{rank: -1, host: "node9", pid: 4, dev: 0, level: "INFO", msg: "Using network IB"}},
		// Terminal escapes.
		{"\x1b[32mh1:12:13 [2] NCCL INFO x\x1b[0m", record{rank: -1, host: "h1", pid: 12, dev: 2, level: "INFO", msg: "x"}},
	}
	for _, c := range cases {
		if d := cmp.Diff(c.want, splitLine(c.in), cmp.AllowUnexported(record{})); d != "" {
			t.Errorf("%q (-want +got):\n%s", c.in, d)
		}
	}
}

func FuzzAnalyze(f *testing.F) {
	paths, _ := filepath.Glob("testdata/*.log")
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := Analyze(Options{Interfaces: []string{"eth0"}, HCAs: []string{"mlx5_0"}}, Source{Name: "fuzz", R: bytes.NewReader(data)})
		if err != nil {
			return
		}
		for _, f := range a.Findings {
			bad := f.Kind == BadNumber && f.Status == checks.StatusError
			if f.Status != checks.StatusFail && f.Status != checks.StatusWarn && !bad || f.Where == "" {
				t.Fatalf("finding %+v", f)
			}
		}
		a.Results()
		if _, err := json.Marshal(a); err != nil {
			t.Fatalf("the analysis does not encode: %v", err)
		}
	})
}

func TestCompareVersions(t *testing.T) {
	in := []string{"2.19.3+cuda12.3", "2.4.2+cuda10.0", "2.18.5+cuda12.0", "2.19.3+cuda12.2", "2.19"}
	slices.SortFunc(in, compareNatural)
	want := []string{"2.4.2+cuda10.0", "2.18.5+cuda12.0", "2.19", "2.19.3+cuda12.2", "2.19.3+cuda12.3"}
	if d := cmp.Diff(want, in); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}
