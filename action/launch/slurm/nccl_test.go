package slurm_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/action/check"
	"github.com/fabricctl/fabricctl/action/launch/slurm"
	"github.com/fabricctl/fabricctl/action/launch/task"
	"github.com/fabricctl/fabricctl/checks"
	"github.com/fabricctl/fabricctl/checks/collective"
	"github.com/fabricctl/fabricctl/checks/report"
	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/internal/testutil"
	"github.com/fabricctl/fabricctl/testkit/slurmsim"
)

// ncclNode is what one simulated node's GPUs and PyTorch do in the NCCL steps.
type ncclNode struct {
	gpus int    // nvidia-smi's GPUs (0: no driver)
	log  string // the NCCL_DEBUG=INFO lines its ranks write to NCCL_DEBUG_FILE
	out  string // what its torchrun prints (the script's lines)
	exit int    // torchrun's exit code
}

// fakeTools writes nvidia-smi (listing $FAKE_GPUS H100s) and python3 (PyTorch's probe answer;
// as torchrun: its argv and NCCL environment, $FAKE_OUT, $FAKE_LOG into NCCL_DEBUG_FILE, exit
// $FAKE_EXIT) into a directory.
func fakeTools(t *testing.T) string {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"nvidia-smi": `[ "$FAKE_GPUS" -gt 0 ] || { echo "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver." >&2; exit 9; }
[ "$1" = topo ] && { echo "        GPU0    GPU1    NIC0"; exit 0; }
i=0; while [ $i -lt "$FAKE_GPUS" ]; do echo "$i, NVIDIA H100 80GB HBM3, 00000000:$((0x1b + i)):00.0"; i=$((i+1)); done
`,
		"python3": `if [ "$1" = -c ]; then echo '{"torch": "2.4.0", "cuda": "12.4", "gpus": '"$FAKE_GPUS"', "nccl": "2.21.5", "ncclAvailable": true}'; exit 0; fi
echo "argv: $*"
env | grep -E '^(NCCL_|CUDA_DEVICE_ORDER)' | grep -v NCCL_DEBUG_FILE | sort | sed 's/^/env: /'
cat "$FAKE_OUT"
f=$(echo "$NCCL_DEBUG_FILE" | sed "s/%h/$FAKE_NODE/; s/%p/$$/")
cat "$FAKE_LOG" > "$f"
exit "$FAKE_EXIT"
`,
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"+body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// ncclSim is a simulated cluster whose NCCL steps run fabricctl's real task side
// (task.Run → collective.Node) on the fake tools, each node with its ncclNode.
func ncclSim(t *testing.T, hostlist string, nodes map[string]ncclNode) *slurmsim.Cluster {
	c := newSim(t, hostlist)
	base := c.Task
	bin := fakeTools(t)
	c.Task = func(node string, s task.Spec) task.Result {
		if s.Kind != task.KindNCCLProbe && s.Kind != task.KindNCCLRun {
			return base(node, s)
		}
		nd := nodes[node]
		dir := t.TempDir()
		logf, outf := filepath.Join(dir, "nccl.log"), filepath.Join(dir, "out")
		_ = os.WriteFile(logf, []byte(nd.log), 0o644)
		_ = os.WriteFile(outf, []byte(nd.out), 0o644)
		env := []string{"FAKE_NODE=" + node, "FAKE_GPUS=" + fmt.Sprint(nd.gpus), "FAKE_LOG=" + logf, "FAKE_OUT=" + outf, "FAKE_EXIT=" + fmt.Sprint(nd.exit)}
		n := &collective.Node{TempDir: dir,
			LookPath: func(name string) (string, error) {
				p := filepath.Join(bin, name)
				if _, err := os.Stat(p); err != nil {
					return "", exec.ErrNotFound
				}
				return p, nil
			},
			Environ: func() []string { return append([]string{"PATH=" + os.Getenv("PATH")}, env...) }}
		return task.Run(t.Context(), s, task.Env{Node: node, NCCL: n})
	}
	return c
}

// scriptLines is what the all-reduce script prints for ranks first..first+n-1 of world; rank 0
// also prints the timed sizes up to maxBytes, peaking at peak GB/s, with the right sum.
func scriptLines(first, n, world int, maxBytes int64, peak float64) string {
	var b strings.Builder
	for r := first; r < first+n; r++ {
		fmt.Fprintf(&b, "FABRICCTL-NCCL {\"event\": \"init\", \"rank\": %d, \"world\": %d, \"local_rank\": %d, \"nccl\": \"2.21.5\", \"torch\": \"2.4.0\"}\n", r, world, r-first)
	}
	if first == 0 {
		want := float64(world*(world+1)) / 2
		for s := int64(8); s <= maxBytes; s *= 2 {
			bus := peak * float64(s) / float64(maxBytes)
			fmt.Fprintf(&b, "FABRICCTL-NCCL {\"event\": \"size\", \"rank\": 0, \"bytes\": %d, \"count\": %d, \"time_us\": 100.0, \"algbw\": %.3f, \"busbw\": %.3f, \"wrong\": 0, \"expected\": %g, \"got\": %g}\n",
				s, s/4, bus*float64(world)/float64(2*(world-1)), bus, want, want)
		}
	}
	for r := first; r < first+n; r++ {
		fmt.Fprintf(&b, "FABRICCTL-NCCL {\"event\": \"done\", \"rank\": %d}\n", r)
	}
	return b.String()
}

// linesOf returns the lines of a log that host printed (NCCL's "host:pid:tid" prefix, behind
// any launcher prefix) and the unprefixed "NCCL version" banners, with from renamed to to.
func linesOf(log, host string, rename map[string]string) string {
	var b strings.Builder
	for _, l := range strings.SplitAfter(log, "\n") {
		if strings.Contains(l, " "+host+":") || strings.HasPrefix(l, host+":") || strings.HasPrefix(strings.TrimSpace(l), "NCCL version") {
			for from, to := range rename {
				l = strings.ReplaceAll(l, from, to)
			}
			b.WriteString(l)
		}
	}
	return b.String()
}

func readTestdata(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

var ncclSuites = []report.Suite{report.SuitePreflight, report.SuiteNCCL}

// ncclChecks keeps the simulated sizes small and sets the NCCL env the rxe fixture host's
// RoCE v2 GID, device and lossless class ask for.
func ncclChecks() *fabric.Checks {
	return &fabric.Checks{NCCL: &fabric.NCCL{MaxBytes: 1 << 20, Env: map[string]string{"NCCL_IB_GID_INDEX": "1", "NCCL_IB_HCA": "rxe0", "NCCL_IB_TC": "106"}}}
}

// rxeRename rewrites the clean two-host RoCE log (two mlx5 ports per host, GID 3,
// ens1f0np0 on 10.0.1.0/24) to the hosts of the simulated cluster: the rxe fixture's one port
// rxe0 with RoCE v2 GID index 1, enp0s3 on the hosts' addresses 10.0.0.1 and .2.
var rxeRename = map[string]string{"gpu-01:": "gpu01:", "gpu-02:": "gpu02:", "to 3.": "to 1.", "mlx5_0,mlx5_1": "rxe0",
	"[0]mlx5_0:1/RoCE [1]mlx5_1:1/RoCE [RO]": "[0]rxe0:1/RoCE", "NET/IB/1/": "NET/IB/0/",
	"ens1f0np0:10.0.1.11<": "enp0s3:10.0.0.1<", "ens1f0np0:10.0.1.12<": "enp0s3:10.0.0.2<"}

func find(t *testing.T, rep *report.Report, id, target string) checks.Result {
	t.Helper()
	for _, r := range rep.Results {
		if r.ID == id && r.Target == target {
			return r
		}
	}
	t.Fatalf("no %s %s in %+v", id, target, rep.Results)
	return checks.Result{}
}

// TestNCCLThroughSrun: under the Slurm launcher the NCCL suite probes every node in one srun
// step and runs the all-reduce as one step of one task per node: torchrun with the c10d
// rendezvous at the first host's address, --nnodes from the hosts and --nproc-per-node from the
// GPUs, NCCL_DEBUG=INFO with INIT,NET,GRAPH,ENV and the fabric's NCCL env on every node. Every
// rank's log comes back (kept under --nccl-logs) and the SSH path's verdicts judge it: a clean
// two-node RoCE log (NET/IB with GDRDMA between the nodes, P2P within) passes. The steps'
// srun and torchrun command lines and environment are golden.
func TestNCCLThroughSrun(t *testing.T) {
	clean := readTestdata(t, "../../../checks/nccl/testdata/two_hosts_roce_clean.log")
	rename := rxeRename
	c := ncclSim(t, "gpu[01-02]", map[string]ncclNode{
		"gpu01": {gpus: 2, log: linesOf(clean, "gpu-01", rename), out: scriptLines(0, 2, 4, 1<<20, 1.1)},
		"gpu02": {gpus: 2, log: linesOf(clean, "gpu-02", rename), out: scriptLines(2, 2, 4, 1<<20, 1.1)},
	})
	c.Jobs["4242"] = []string{"gpu01", "gpu02"}
	logs := t.TempDir()
	l := &slurm.Launcher{Run: c, Bin: "/shared/bin/fabricctl", Allocation: "4242", AllocationNodes: []string{"gpu01", "gpu02"}}
	rep, err := check.Run(t.Context(), "sim", hosts(t, 2, nil), check.Options{Suites: ncclSuites, Checks: ncclChecks(), Launcher: l, NCCLLogDir: logs})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Results {
		if r.Status == checks.StatusFail || r.Status == checks.StatusError {
			t.Errorf("a healthy job: %s %s %s: %s", r.ID, r.Target, r.Status, r.Summary)
		}
	}
	for _, want := range []struct{ id, target string }{{collective.IDBusBW, "job"}, {collective.IDRun, "gpu01"}, {collective.IDRun, "gpu02"}, {collective.IDCorrectness, "job"},
		{collective.IDTransport, "gpu01"}, {collective.IDTransport, "gpu02"}} {
		if r := find(t, rep, want.id, want.target); r.Status != checks.StatusPass {
			t.Errorf("%s %s: %s %s %q", r.ID, r.Target, r.Status, r.Summary, r.Evidence)
		}
	}
	var kinds []string
	var b strings.Builder
	for _, st := range c.Steps() {
		kinds = append(kinds, string(st.Spec.Kind))
		if st.Spec.NCCL == nil {
			continue
		}
		fmt.Fprintf(&b, "srun %s SPEC\n", strings.Join(st.Args, " "))
		for _, n := range st.Spec.NCCL.Nodes {
			if n.Spec != nil {
				fmt.Fprintf(&b, "  %s (%s): %s\n", n.Node, n.Host, strings.Join(n.Spec.Argv("python3", "fabricctl_allreduce.py"), " "))
			}
		}
	}
	if !slices.Equal(kinds, []string{"preflight", "nccl-probe", "nccl-run"}) {
		t.Errorf("steps %q, want one preflight, one NCCL probe and one NCCL run", kinds)
	}
	// What the node side started, with the environment its ranks saw.
	out := readTestdata(t, filepath.Join(logs, "gpu02", "output"))
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "argv: ") || strings.HasPrefix(l, "env: ") {
			b.WriteString("gpu02 " + regexp.MustCompile(`/[^ ]*/fabricctl_allreduce.py`).ReplaceAllString(l, "SCRATCH/fabricctl_allreduce.py") + "\n")
		}
	}
	testutil.Golden(t, "nccl-steps.golden", []byte(stable(b.String())))
	for _, host := range []string{"gpu01", "gpu02"} {
		m, _ := filepath.Glob(filepath.Join(logs, host, "nccl-"+host+"-*.log"))
		if len(m) != 1 || !strings.Contains(readTestdata(t, m[0]), "via NET/IB/") {
			t.Errorf("%s: rank logs kept %q, want its NCCL_DEBUG_FILE", host, m)
		}
	}
	testutil.Golden(t, "nccl-results.golden", []byte(stable(string(testutil.JSON(t, ncclResults(rep))))))
}

// stable replaces what changes from run to run: the job id (a time), pids, walls, log sizes.
func stable(s string) string {
	for re, to := range map[string]string{`fabricctl-nccl-\d+`: "fabricctl-nccl-ID", `nccl-(gpu\d+)-\d+\.log`: "nccl-$1-PID.log",
		`exit 0 in [0-9.]+m?s`: "exit 0 in WALL", `: \d+ bytes`: ": N bytes"} {
		s = regexp.MustCompile(re).ReplaceAllString(s, to)
	}
	return s
}

func ncclResults(rep *report.Report) []checks.Result {
	var out []checks.Result
	for _, r := range rep.Results {
		if strings.HasPrefix(r.ID, "nccl/") {
			for i, e := range r.Evidence {
				r.Evidence[i] = regexp.MustCompile(`/[^ ]*/(python3|fabricctl_allreduce.py)`).ReplaceAllString(e, "SCRATCH/$1")
			}
			out = append(out, r)
		}
	}
	return out
}

// TestNCCLThroughSrunSocketFallback: two nodes whose NCCL found no IB device and fell back to
// NET/Socket fail the transport verdict on both hosts through the Slurm path too.
func TestNCCLThroughSrunSocketFallback(t *testing.T) {
	sock := readTestdata(t, "../../../checks/nccl/testdata/shaped/pdsh_two_hosts_socket_fallback.log")
	rename := map[string]string{"gpu-a:": "gpu01:", "gpu-b:": "gpu02:"}
	c := ncclSim(t, "gpu[01-02]", map[string]ncclNode{
		"gpu01": {gpus: 1, log: linesOf(sock, "gpu-a", rename), out: scriptLines(0, 1, 2, 1<<20, 1)},
		"gpu02": {gpus: 1, log: linesOf(sock, "gpu-b", rename), out: scriptLines(1, 1, 2, 1<<20, 1)},
	})
	rep, err := check.Run(t.Context(), "sim", hosts(t, 2, nil), check.Options{Suites: ncclSuites, Checks: ncclChecks(), Launcher: &slurm.Launcher{Run: c}})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range []string{"gpu01", "gpu02"} {
		if r := find(t, rep, collective.IDTransport, h); r.Status != checks.StatusFail || !strings.Contains(r.Summary+strings.Join(r.Evidence, " "), "Socket") {
			t.Errorf("%s: %s %s %q, want a Socket fallback failure", r.Target, r.Status, r.Summary, r.Evidence)
		}
	}
	if r := find(t, rep, collective.IDCorrectness, "job"); r.Status != checks.StatusPass {
		t.Errorf("the sums were right: %+v", r)
	}
}

// TestNCCLThroughSrunRankDies: a node whose rank exits non-zero fails its nccl/run with the
// exit; a node whose task died (no result: srun reports the task's exit) is an error naming
// the node and how the step ended.
func TestNCCLThroughSrunRankDies(t *testing.T) {
	clean := readTestdata(t, "../../../checks/nccl/testdata/two_hosts_roce_clean.log")
	rename := rxeRename
	c := ncclSim(t, "gpu[01-03]", map[string]ncclNode{
		"gpu01": {gpus: 2, log: linesOf(clean, "gpu-01", rename), out: scriptLines(0, 2, 6, 1<<20, 40)},
		"gpu02": {gpus: 2, log: linesOf(clean, "gpu-02", rename), out: "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: rank 2 (local_rank: 0) exitcode -6\n", exit: 1},
		"gpu03": {gpus: 2},
	})
	c.Dies = func(node string, s task.Spec) bool { return node == "gpu03" && s.Kind == task.KindNCCLRun }
	rep, err := check.Run(t.Context(), "sim", hosts(t, 3, nil), check.Options{Suites: ncclSuites, Checks: ncclChecks(), Launcher: &slurm.Launcher{Run: c}})
	if err != nil {
		t.Fatal(err)
	}
	if r := find(t, rep, collective.IDRun, "gpu02"); r.Status != checks.StatusFail || !strings.Contains(r.Summary, "exited 1") ||
		!strings.Contains(strings.Join(r.Evidence, "\n"), "ChildFailedError") {
		t.Errorf("gpu02: %s %s %q, want its exit and the error", r.Status, r.Summary, r.Evidence)
	}
	r := find(t, rep, collective.IDRun, "gpu03")
	if r.Status != checks.StatusError || !regexp.MustCompile(`^running the all-reduce on gpu03: node gpu03: no result from the node \(step nccl-run-\d+: srun: exit status 1\)`).MatchString(r.Summary) {
		t.Errorf("gpu03: %s %q, want an error naming the node and the step", r.Status, r.Summary)
	}
	if r := find(t, rep, collective.IDRun, "gpu01"); r.Status != checks.StatusPass {
		t.Errorf("gpu01: %+v", r)
	}
}

// TestNCCLThroughSrunNoGPU: nodes without a GPU driver answer the probe step with why, each
// host is a skip saying so, and no all-reduce step starts (the lab's Slurm nodes).
func TestNCCLThroughSrunNoGPU(t *testing.T) {
	c := ncclSim(t, "gpu[01-02]", map[string]ncclNode{})
	rep, err := check.Run(t.Context(), "sim", hosts(t, 2, nil), check.Options{Suites: ncclSuites, Launcher: &slurm.Launcher{Run: c}})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range []string{"gpu01", "gpu02"} {
		r := find(t, rep, collective.IDRun, h)
		if r.Status != checks.StatusSkip || !strings.HasPrefix(r.Summary, "no NVIDIA GPU: nvidia-smi failed: exit status 9: NVIDIA-SMI has failed") {
			t.Errorf("%s: %s %q", h, r.Status, r.Summary)
		}
	}
	for _, st := range c.Steps() {
		if st.Spec.Kind == task.KindNCCLRun {
			t.Errorf("an all-reduce step ran on GPU-less nodes: %q", st.Args)
		}
	}
}

// TestNCCLThroughSrunCancelled: cancelling the check while the all-reduce step runs ends the
// step on Slurm's side too: scancel of the step (JOB.STEP in an allocation, the step's own job
// without one), found by its name in squeue; nothing is left running.
func TestNCCLThroughSrunCancelled(t *testing.T) {
	for _, alloc := range []string{"4242", ""} {
		t.Run("allocation="+alloc, func(t *testing.T) {
			c := ncclSim(t, "gpu[01-02]", map[string]ncclNode{"gpu01": {gpus: 1}, "gpu02": {gpus: 1}})
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			c.Hangs = func(node string, s task.Spec) bool {
				if s.Kind == task.KindNCCLRun {
					cancel() // the user's ^C while the ranks run
					return true
				}
				return false
			}
			l := &slurm.Launcher{Run: c}
			if alloc != "" {
				l.Allocation, l.AllocationNodes = alloc, []string{"gpu01", "gpu02"}
			}
			rep, err := check.Run(ctx, "sim", hosts(t, 2, nil), check.Options{Suites: ncclSuites, Launcher: l})
			if err != nil {
				t.Fatal(err)
			}
			want := `^scancel 1003$` // the third job: preflight, probe, run
			if alloc != "" {
				want = `^scancel 4242\.2$`
			}
			if tr := c.Transcript(); len(tr) != 1 || !regexp.MustCompile(want).MatchString(tr[0]) {
				t.Errorf("transcript %q, want %s", tr, want)
			}
			if run := c.Running(); len(run) != 0 {
				t.Errorf("still running: %q", run)
			}
			for _, h := range []string{"gpu01", "gpu02"} {
				if r := find(t, rep, collective.IDRun, h); r.Status != checks.StatusError || !strings.Contains(r.Summary, "context canceled") {
					t.Errorf("%s: %s %q", h, r.Status, r.Summary)
				}
			}
		})
	}
}

// TestNCCLThroughSrunSlowReruns: NCCL's bus bandwidth far below the NICs' rate while perftest
// passed between the same hosts: perftest runs again through srun (a round step) with NCCL's
// GID index and traffic class, and the verdict says so.
func TestNCCLThroughSrunSlowReruns(t *testing.T) {
	// one rank per node: no local ranks over PCIe to blame instead of the fabric
	clean := regexp.MustCompile(`(?m)^.* via P2P/CUMEM\n`).ReplaceAllString(readTestdata(t, "../../../checks/nccl/testdata/two_hosts_roce_clean.log"), "")
	c := ncclSim(t, "gpu[01-02]", map[string]ncclNode{
		"gpu01": {gpus: 1, log: linesOf(clean, "gpu-01", rxeRename), out: scriptLines(0, 1, 2, 1<<20, 0.1)},
		"gpu02": {gpus: 1, log: linesOf(clean, "gpu-02", rxeRename), out: scriptLines(1, 1, 2, 1<<20, 0.1)},
	})
	rep, err := check.Run(t.Context(), "sim", hosts(t, 2, nil), check.Options{Suites: []report.Suite{report.SuitePreflight, report.SuitePairwise, report.SuiteNCCL},
		Checks: ncclChecks(), Launcher: &slurm.Launcher{Run: c}})
	if err != nil {
		t.Fatal(err)
	}
	if r := find(t, rep, collective.IDBusBW, "job"); r.Status != checks.StatusFail {
		t.Errorf("busbw: %s %s", r.Status, r.Summary)
	}
	var rerun []checks.Result
	for _, r := range rep.Results {
		if r.ID == collective.IDRerun {
			rerun = append(rerun, r)
		}
	}
	if len(rerun) != 1 || rerun[0].Status != checks.StatusPass || !strings.Contains(rerun[0].Target, "gpu01") || !strings.Contains(rerun[0].Target, "gpu02") {
		t.Fatalf("%s: %+v, want one passing rerun between gpu01 and gpu02", collective.IDRerun, rerun)
	}
	if bw := find(t, rep, collective.IDBusBW, "job"); !strings.Contains(bw.Summary, "perftest") {
		t.Errorf("busbw does not name perftest: %s", bw.Summary)
	}
	steps := c.Steps()
	last := steps[len(steps)-1]
	if last.Spec.Kind != task.KindRound || last.Spec.Test.TClass == nil || *last.Spec.Test.TClass != 106 || len(last.Spec.Jobs) != 1 ||
		last.Spec.Jobs[0].Server.GIDIndex == nil || *last.Spec.Jobs[0].Server.GIDIndex != 1 {
		t.Errorf("last step %s %+v, want perftest again with traffic class 106 and GID index 1", last.Spec.Kind, last.Spec.Test)
	}
}

// TestNCCLThroughSrunUnavailableNode: a host whose node Slurm would not run a step on (DOWN) is an
// nccl/run error with the node's state, and the probe step runs on the others only.
func TestNCCLThroughSrunUnavailableNode(t *testing.T) {
	c := ncclSim(t, "gpu[01-02]", map[string]ncclNode{})
	c.Set("gpu02", slurmsim.Node{State: "DOWN", Reason: "Not responding"})
	rep, err := check.Run(t.Context(), "sim", hosts(t, 2, nil), check.Options{Suites: ncclSuites, Launcher: &slurm.Launcher{Run: c}})
	if err != nil {
		t.Fatal(err)
	}
	if r := find(t, rep, collective.IDRun, "gpu02"); r.Status != checks.StatusError ||
		!strings.HasPrefix(r.Summary, "probing gpu02 for the NCCL check: slurm node unavailable: node gpu02 is DOWN (Not responding)") {
		t.Errorf("gpu02: %s %q", r.Status, r.Summary)
	}
	for _, st := range c.Steps() {
		if st.Spec.Kind == task.KindNCCLProbe && !slices.Equal(st.Nodes, []string{"gpu01"}) {
			t.Errorf("probe step on %q, want gpu01 alone", st.Nodes)
		}
	}
}
