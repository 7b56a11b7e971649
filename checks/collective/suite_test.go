package collective

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/checks"
	"github.com/fabricctl/fabricctl/checks/preflight"
	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/hostcfg"
	"github.com/fabricctl/fabricctl/hostcfg/sysfs"
	"github.com/fabricctl/fabricctl/internal/testutil"
)

// fakeExec stands in for the hosts: it answers probes and runs with what
// real hosts printed (captured logs). The NCCL logs it hands back are real;
// the script lines are the script's format with our numbers.
type fakeExec struct {
	probes map[string]Probe
	errs   map[string]error
	logs   map[string][]Log
	exit   map[string]int
	ran    []Spec
}

func (f *fakeExec) Probe(_ context.Context, hosts []string, _ ProbeArgs) ([]Probe, []error) {
	out, errs := make([]Probe, len(hosts)), make([]error, len(hosts))
	for i, h := range hosts {
		out[i], errs[i] = f.probes[h], f.errs[h]
	}
	return out, errs
}

func (f *fakeExec) Run(_ context.Context, specs []Spec) ([]NodeResult, []error) {
	f.ran = append(f.ran, specs...)
	out := make([]NodeResult, len(specs))
	for i, s := range specs {
		out[i] = NodeResult{Host: s.Host, Hostname: s.Host, Tool: s.Tool, ExitCode: f.exit[s.Host], Logs: f.logs[s.Host], Wall: 42e9,
			Argv: []string{"python3", "-m", "torch.distributed.run"}}
	}
	return out, make([]error, len(specs))
}

// gpuProbe is a host with n GPUs and PyTorch.
// Hosts without logs of their own ran too: a corpus log holds every host's lines.
func gpuProbe(n int, name string) Probe {
	p := Probe{Python: "/usr/bin/python3", Torch: "2.4.0", TorchNCCL: "2.20.5", TorchGPUs: n}
	for i := range n {
		p.GPUs = append(p.GPUs, fmt.Sprintf("%d, %s, 00000000:%02X:00.0", i, name, 0x1b+i))
	}
	return p
}

// scriptOutput is what the script prints on rank 0 for world ranks, sizes
// 8 B..maxBytes, with the bus bandwidth peaking at peak GB/s.
func scriptOutput(world int, maxBytes int64, peak float64) string {
	var b strings.Builder
	for r := range world {
		fmt.Fprintf(&b, "FABRICCTL-NCCL {\"event\": \"init\", \"rank\": %d, \"world\": %d, \"local_rank\": 0, \"nccl\": \"2.18.5\", \"torch\": \"2.4.0\"}\n", r, world)
	}
	want := float64(world*(world+1)) / 2
	for s := int64(8); s <= maxBytes; s *= 2 {
		bus := peak * float64(s) / float64(maxBytes)
		fmt.Fprintf(&b, "FABRICCTL-NCCL {\"event\": \"size\", \"rank\": 0, \"bytes\": %d, \"count\": %d, \"time_us\": 100.0, \"algbw\": %.3f, \"busbw\": %.3f, \"wrong\": 0, \"expected\": %g, \"got\": %g}\n",
			s, s/4, bus*float64(world)/float64(2*(world-1)), bus, want, want)
	}
	for r := range world {
		fmt.Fprintf(&b, "FABRICCTL-NCCL {\"event\": \"done\", \"rank\": %d}\n", r)
	}
	return b.String()
}

// h800Hosts loads testdata/two_h800.yaml: node2 and node4 with two RoCE
// ports each (mlx5_4, mlx5_5 at 200 Gb/s, RoCE v2 IPv4 GID index 3).
func h800Hosts(t *testing.T) []Host {
	t.Helper()
	f, err := fabric.Load("testdata/two_h800.yaml", fabric.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var hosts []Host
	for _, in := range f.Resolve().Hosts {
		obs := &hostcfg.Observed{Host: in.Host}
		for i, dev := range []string{"mlx5_4", "mlx5_5"} {
			obs.Interfaces = append(obs.Interfaces, hostcfg.InterfaceState{Name: in.Interfaces[i].Name,
				RDMA: &hostcfg.RDMAState{Port: sysfs.Port{Device: dev, Port: 1, State: "ACTIVE", RateGbps: 200, LinkLayer: "Ethernet"}, RoCEv2IPv4GIDIndex: 3}})
		}
		hosts = append(hosts, Host{Name: in.Host, Address: in.Address, Intent: in, Facts: &preflight.Facts{Host: in.Host, Observed: obs}})
	}
	return hosts
}

// renamed returns the h800 hosts renamed to names (the hostnames a corpus
// log prints), with RDMA devices devs on each.
func renamed(t *testing.T, devs []string, gid int, names ...string) []Host {
	t.Helper()
	base := h800Hosts(t)
	var out []Host
	for i, n := range names {
		h := base[i%len(base)]
		h.Name, h.Intent.Host = n, n
		obs := &hostcfg.Observed{Host: n}
		for k, d := range devs {
			obs.Interfaces = append(obs.Interfaces, hostcfg.InterfaceState{Name: fmt.Sprintf("eth%d", k),
				RDMA: &hostcfg.RDMAState{Port: sysfs.Port{Device: d, Port: 1, State: "ACTIVE", RateGbps: 200, LinkLayer: "Ethernet"}, RoCEv2IPv4GIDIndex: gid}})
		}
		h.Facts = &preflight.Facts{Host: n, Observed: obs}
		out = append(out, h)
	}
	return out
}

// corpusLog returns a corpus NCCL log (its "# SOURCE:" line dropped).
func corpusLog(t *testing.T, name string) string {
	t.Helper()
	return string(testutil.CorpusFiles(t, "validation/nccl", name)[0].Body)
}

// n06Exec stands in for the two H800 hosts of corpus n06 (NCCL 2.18.5, one
// GPU each): node2's output holds the script's lines up to maxBytes,
// peaking at peak GB/s, and NCCL's real log of both hosts.
func n06Exec(t *testing.T, maxBytes int64, peak float64) *fakeExec {
	t.Helper()
	probe := gpuProbe(1, "NVIDIA H800")
	probe.TorchNCCL = "2.18.5"
	return &fakeExec{probes: map[string]Probe{"node2": probe, "node4": probe},
		logs: map[string][]Log{"node2": {{Name: "output", Text: scriptOutput(2, maxBytes, peak)}, {Name: "nccl.log", Text: corpusLog(t, "n06_*.txt")}}}}
}

func status(out *Outcome) map[string]checks.Status {
	m := map[string]checks.Status{}
	for _, r := range out.Results {
		m[r.ID+" "+r.Target] = r.Status
	}
	return m
}

func golden(t *testing.T, name string, out *Outcome) {
	t.Helper()
	testutil.Golden(t, filepath.Join("golden", name+".golden"), testutil.JSON(t, out.Results))
}

// TestNoGPUHostsSkip: hosts without GPUs (the soft-RoCE lab) skip the whole
// suite with the reason; nothing runs, nothing fails.
func TestNoGPUHostsSkip(t *testing.T) {
	fx := &fakeExec{probes: map[string]Probe{"node2": {GPUError: "nvidia-smi not found (no NVIDIA driver installed)"}, "node4": {GPUError: "nvidia-smi not found (no NVIDIA driver installed)"}}}
	out, err := Run(t.Context(), h800Hosts(t), Options{Executor: fx})
	if err != nil {
		t.Fatal(err)
	}
	if len(fx.ran) != 0 || checks.Worst(out.Results) != checks.StatusSkip {
		t.Errorf("ran %v, results %+v", fx.ran, out.Results)
	}
	golden(t, "no_gpu_hosts", out)
}

// TestH800RoCEEnvAgainstIntent runs the real log of two H800 hosts on RoCE
// (corpus n06: NCCL 2.18.5, NCCL_IB_HCA=mlx5_4, bootstrap on the hosts'
// addresses) against a fabric whose hosts have mlx5_4 and mlx5_5 with the
// RoCE v2 GID at index 3 and RoCE on DSCP 26: NCCL 2.18 would use GID 0
// (warn), its traffic class 0 is lossy (warn), NCCL_IB_HCA leaves mlx5_5
// out (fail), the bootstrap is right (pass).
func TestH800RoCEEnvAgainstIntent(t *testing.T) {
	fx := n06Exec(t, 1<<30, 20.5)
	out, err := Run(t.Context(), h800Hosts(t), Options{Executor: fx, Config: fabric.NCCL{}})
	if err != nil {
		t.Fatal(err)
	}
	st := status(out)
	for k, want := range map[string]checks.Status{"nccl/env node2": checks.StatusFail, "nccl/env node4": checks.StatusFail,
		"nccl/correctness job": checks.StatusPass, "nccl/run node2": checks.StatusPass} {
		if st[k] != want {
			t.Errorf("%s: %s, want %s", k, st[k], want)
		}
	}
	if len(fx.ran) != 2 || fx.ran[1].MasterAddr != "10.10.10.1" || fx.ran[1].NodeRank != 1 || fx.ran[0].Tool != ToolTorch || fx.ran[0].Ranks != 1 {
		t.Errorf("%+v", fx.ran)
	}
	golden(t, "h800_roce_env", out)
}

// TestGIDIndexAgainstPreflight: NCCL_IB_GID_INDEX=3 as NCCL reported it
// (corpus n18b) passes when preflight found the RoCE v2 IPv4 GID at 3 and
// fails at 5, naming both.
func TestGIDIndexAgainstPreflight(t *testing.T) {
	log := corpusLog(t, "n18b_*.txt")
	for _, c := range []struct {
		gid  int
		want checks.Status
		text string
	}{{3, checks.StatusPass, "NCCL_IB_GID_INDEX=3 is mlx5_0's RoCE v2 IPv4 GID"}, {5, checks.StatusFail, "NCCL_IB_GID_INDEX=3, but mlx5_0 port 1's RoCE v2 IPv4 GID is index 5"}} {
		fx := &fakeExec{probes: map[string]Probe{"hostname-test": gpuProbe(8, "NVIDIA H100 80GB HBM3")},
			logs: map[string][]Log{"hostname-test": {{Name: "output", Text: scriptOutput(8, 1<<20, 300)}, {Name: "nccl.log", Text: log}}}}
		out, err := Run(t.Context(), renamed(t, []string{"mlx5_0"}, c.gid, "hostname-test"), Options{Executor: fx, Config: fabric.NCCL{MaxBytes: 1 << 20, Env: map[string]string{"NCCL_IB_TC": "106"}}})
		if err != nil {
			t.Fatal(err)
		}
		r := find(t, out, IDEnv, "hostname-test")
		if r.Status != c.want || !strings.Contains(r.Summary, c.text) {
			t.Errorf("gid %d: %+v", c.gid, r)
		}
	}
}

// TestTrafficClassAgainstLosslessClass: NCCL_IB_TC must carry a DSCP the
// fabric maps to a lossless priority: 106 (DSCP 26) passes, 96 (DSCP 24,
// priority 0) fails.
func TestTrafficClassAgainstLosslessClass(t *testing.T) {
	for tc, want := range map[string]checks.Status{"106": checks.StatusPass, "96": checks.StatusFail} {
		fx := n06Exec(t, 1<<20, 20)
		hosts := renamed(t, []string{"mlx5_4"}, 3, "node2", "node4")
		out, err := Run(t.Context(), hosts, Options{Executor: fx, Config: fabric.NCCL{MaxBytes: 1 << 20, Env: map[string]string{"NCCL_IB_TC": tc, "NCCL_IB_GID_INDEX": "3"}}})
		if err != nil {
			t.Fatal(err)
		}
		if r := find(t, out, IDEnv, "node2"); r.Status != want || !strings.Contains(r.Summary, "NCCL_IB_TC="+tc) {
			t.Errorf("NCCL_IB_TC=%s: %+v", tc, r)
		}
		if fx.ran[0].Env["NCCL_IB_TC"] != tc {
			t.Errorf("the job did not get the fabric's env: %+v", fx.ran[0].Env)
		}
	}
}

// TestHCAPrefixMatch: NCCL_IB_HCA=mlx5_1 takes mlx5_1x too (NCCL matches by
// prefix): with the 34 RoCE ports of corpus n16 that is a warning naming them.
func TestHCAPrefixMatch(t *testing.T) {
	log := corpusLog(t, "n16_*.txt")
	fx := &fakeExec{probes: map[string]Probe{"gpu6": gpuProbe(4, "Tesla V100"), "gpu7": gpuProbe(4, "Tesla V100")},
		logs: map[string][]Log{"gpu6": {{Name: "output", Text: scriptOutput(8, 1<<20, 10)}, {Name: "mpirun.log", Text: log}}}}
	out, err := Run(t.Context(), renamed(t, []string{"mlx5_1"}, 3, "gpu6", "gpu7"), Options{Executor: fx, Config: fabric.NCCL{MaxBytes: 1 << 20, Env: map[string]string{"NCCL_IB_HCA": "mlx5_1"}}})
	if err != nil {
		t.Fatal(err)
	}
	r := find(t, out, IDEnv, "gpu6")
	if r.Status != checks.StatusWarn || !strings.Contains(r.Summary, "NCCL_IB_HCA entry mlx5_1 also took mlx5_10, mlx5_11, mlx5_12, mlx5_13, mlx5_14, mlx5_15, mlx5_16, mlx5_17 and 2 more (NCCL matches by prefix)") {
		t.Errorf("%+v", r)
	}
}

// TestTransportsAcrossHosts: real logs of two jobs across hosts. Corpus n09
// (two H20 nodes): local ranks over P2P/CUMEM and the other node over NET/IB
// with GPUDirect RDMA pass. Corpus n04: NET/Socket between the hosts fails,
// unless the fabric allows sockets.
func TestTransportsAcrossHosts(t *testing.T) {
	run := func(log string, cfg fabric.NCCL, names ...string) *Outcome {
		t.Helper()
		fx := &fakeExec{probes: map[string]Probe{}, logs: map[string][]Log{names[0]: {{Name: "output", Text: scriptOutput(16, 1<<20, 40)}, {Name: "nccl.log", Text: log}}}}
		for _, n := range names {
			fx.probes[n] = gpuProbe(8, "NVIDIA H20")
		}
		cfg.MaxBytes = 1 << 20
		out, err := Run(t.Context(), renamed(t, []string{"mlx5_0"}, 3, names...), Options{Executor: fx, Config: cfg})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	ib := run(corpusLog(t, "n09_*.txt"), fabric.NCCL{}, "H20-GPU-05", "H20-GPU-06")
	if r := find(t, ib, IDTransport, "H20-GPU-06"); r.Status != checks.StatusPass || r.Summary != "within the node P2P/CUMEM ×1; across nodes NET/IB/GDRDMA ×9" {
		t.Errorf("%+v", r)
	}
	golden(t, "h20_p2p_net_ib_gdrdma", ib)

	sock := run(corpusLog(t, "n04_*.txt"), fabric.NCCL{}, "ip-172-31-0-112", "ip-172-31-13-129")
	r := find(t, sock, IDTransport, "ip-172-31-13-129")
	if r.Status != checks.StatusFail || r.Class != checks.LowBandwidth || !strings.Contains(strings.Join(r.Evidence, "\n"), "ranks 15→0 run over NET/Socket (TCP), not RDMA") {
		t.Errorf("%+v", r)
	}
	if r := find(t, sock, IDBusBW, "job"); r.Status != checks.StatusSkip || !strings.Contains(r.Summary, "over TCP sockets") {
		t.Errorf("%+v", r)
	}
	allowed := run(corpusLog(t, "n04_*.txt"), fabric.NCCL{AllowSocket: true}, "ip-172-31-0-112", "ip-172-31-13-129")
	if r := find(t, allowed, IDTransport, "ip-172-31-13-129"); r.Status != checks.StatusPass {
		t.Errorf("allowSocket: %+v", r)
	}
}

// TestSlowButPerftestPassed: a job across hosts below the bus bandwidth
// floor whose hosts passed perftest says so, and perftest runs again with
// NCCL's GID index and traffic class (0: NCCL_IB_TC unset).
func TestSlowButPerftestPassed(t *testing.T) {
	fx := n06Exec(t, 1<<30, 4.2)
	var asked []string
	rerun := func(_ context.Context, a, b Host, gid *int, tc int) checks.Result {
		asked = append(asked, fmt.Sprintf("%s->%s gid %d tc %d", a.Name, b.Name, *gid, tc))
		return checks.Result{Target: a.Name + "->" + b.Name, Status: checks.StatusFail, Class: checks.LowBandwidth, Summary: "31.20 Gb/s average at 65536 bytes"}
	}
	out, err := Run(t.Context(), h800Hosts(t), Options{Executor: fx, Rerun: rerun,
		Perftest: []PerftestRun{{Target: "node2/mlx5_4->node4/mlx5_4", Hosts: [2]string{"node2", "node4"}, Gbps: 196.4, Passed: true}}})
	if err != nil {
		t.Fatal(err)
	}
	bw := find(t, out, IDBusBW, "job")
	if bw.Status != checks.StatusFail || !strings.Contains(bw.Summary, "perftest passed between the same hosts (node2/mlx5_4->node4/mlx5_4 196.40 Gb/s)") {
		t.Errorf("%+v", bw)
	}
	if len(asked) != 1 || asked[0] != "node2->node4 gid 3 tc 0" {
		t.Errorf("rerun %v", asked)
	}
	if r := find(t, out, IDRerun, "node2->node4"); r.Status != checks.StatusFail || !strings.HasPrefix(r.Summary, "perftest with GID index 3 (the RoCE v2 IPv4 GID NCCL picks itself) and traffic class 0 (NCCL_IB_TC unset: NCCL's default): 31.20") {
		t.Errorf("%+v", r)
	}
	golden(t, "slow_but_perftest_passed", out)
}

func find(t *testing.T, out *Outcome, id, target string) checks.Result {
	t.Helper()
	for _, r := range out.Results {
		if r.ID == id && r.Target == target {
			return r
		}
	}
	t.Fatalf("no %s for %s in %+v", id, target, out.Results)
	return checks.Result{}
}

// TestRealH200TwoRanksOverSockets reads the real torchrun log of issue 15's
// H200 capture (checks/testdata/h200): two ranks of one host that NCCL took
// for two nodes (NCCL_HOSTID) talk over NET/Socket — a warning that names
// why, not a socket-fallback failure across hosts.
func TestRealH200TwoRanksOverSockets(t *testing.T) {
	b, err := os.ReadFile("../testdata/h200/nccl-2host-socket-torchrun.log")
	if err != nil {
		t.Fatal(err)
	}
	fx := &fakeExec{probes: map[string]Probe{"vm": gpuProbe(2, "NVIDIA H200")}, logs: map[string][]Log{"vm": {{Name: "output", Text: string(b)}}}}
	hosts := renamed(t, nil, -1, "vm")
	hosts[0].Address = "192.0.2.2" // the VM's address, which NCCL bootstrapped over
	out, err := Run(t.Context(), hosts, Options{Executor: fx})
	if err != nil {
		t.Fatal(err)
	}
	r := find(t, out, IDTransport, "vm")
	if r.Status != checks.StatusWarn || !strings.Contains(strings.Join(r.Evidence, "\n"), "ranks 0 and 1 of this host connect via NET/Socket: NCCL took them for different nodes") {
		t.Errorf("%+v", r)
	}
	if r := find(t, out, IDEnv, "vm"); r.Status != checks.StatusPass || r.Summary != "NCCL bootstraps over eth0:192.0.2.2, the host's fabric address" {
		t.Errorf("%+v", r)
	}
}

// TestAgentsWithoutAgent: a host with no agent (a launcher's run, where the
// agents are not used) is an error result, not a crash.
func TestAgentsWithoutAgent(t *testing.T) {
	out, err := Run(t.Context(), renamed(t, nil, -1, "n1"), Options{Executor: Agents{"n1": nil}})
	if err != nil {
		t.Fatal(err)
	}
	if r := find(t, out, IDRun, "n1"); r.Status != checks.StatusError || !strings.Contains(r.Summary, "no agent for this host") {
		t.Errorf("%+v", r)
	}
}

// TestNCCLTestsCorrectness: with all_reduce_perf, correctness is nccl-tests'
// own check: a real table with "# Out of bounds values : 0 OK" (corpus t03)
// passes; our srun fixture with #wrong counts fails naming the sizes.
func TestNCCLTestsCorrectness(t *testing.T) {
	run := func(text string) *Outcome {
		t.Helper()
		p := gpuProbe(8, "NVIDIA H100 80GB HBM3")
		p.AllReducePerf = "/usr/local/bin/all_reduce_perf"
		fx := &fakeExec{probes: map[string]Probe{"n1": p}, logs: map[string][]Log{"n1": {{Name: "output", Text: text}}}}
		out, err := Run(t.Context(), renamed(t, nil, -1, "n1"), Options{Executor: fx})
		if err != nil {
			t.Fatal(err)
		}
		if out.Tool != ToolNCCLTests || fx.ran[0].Ranks != 8 {
			t.Errorf("tool %s, %+v", out.Tool, fx.ran)
		}
		return out
	}
	good := run(string(testutil.CorpusFiles(t, "validation/nccl-tests", "t03_*.txt")[0].Body))
	if r := find(t, good, IDCorrectness, "job"); r.Status != checks.StatusPass || r.Summary != "all_reduce_perf checked every result of 7 sizes: 0 wrong, 0 out of bounds" {
		t.Errorf("%+v", r)
	}
	b, err := os.ReadFile("../nccl/testdata/srun_all_reduce_perf_wrong.log")
	if err != nil {
		t.Fatal(err)
	}
	bad := run(string(b))
	if r := find(t, bad, IDCorrectness, "job"); r.Status != checks.StatusFail || len(r.Evidence) == 0 {
		t.Errorf("%+v", r)
	}
}

// TestTwoLocalRanksOverNVLink is issue 19's 2-GPU run in shape: two local
// ranks whose GPUs a real `nvidia-smi topo -m` (corpus h28b, H100 NV18)
// joins by NVLink. With NCCL's paths over NVL the transport passes and says
// so; with PCIe paths only (NCCL_P2P_DISABLE, the SHM log) it warns.
func TestTwoLocalRanksOverNVLink(t *testing.T) {
	topo := string(testutil.CorpusFiles(t, "validation/host", "h28b_*.txt")[0].Body)
	run := func(name, host string) checks.Result {
		t.Helper()
		b, err := os.ReadFile("../nccl/testdata/shaped/" + name)
		if err != nil {
			t.Fatal(err)
		}
		p := gpuProbe(2, "NVIDIA H200")
		p.Topo = topo
		fx := &fakeExec{probes: map[string]Probe{host: p}, logs: map[string][]Log{host: {{Name: "nccl.log", Text: string(b)}}}}
		out, err := Run(t.Context(), renamed(t, nil, -1, host), Options{Executor: fx, Config: fabric.NCCL{AllowSocket: true}})
		if err != nil {
			t.Fatal(err)
		}
		return find(t, out, IDTransport, host)
	}
	if r := run("graph_two_local_ranks_nvlink.log", "h200x2"); r.Status != checks.StatusPass || !strings.HasPrefix(r.Summary, "within the node P2P/CUMEM ×6 over NVLink (GPU0-GPU1 NV18 in nvidia-smi topo -m)") {
		t.Errorf("%+v", r)
	}
	r := run("graph_pcie_shm_fallback.log", "gpu24")
	if ev := strings.Join(r.Evidence, "\n"); r.Status != checks.StatusWarn || !strings.Contains(ev, "nvidia-smi topo -m shows NVLink between the job's GPUs (GPU0-GPU1 NV18) but NCCL's topology search found PCIe paths only (type SYS/SYS)") ||
		!strings.Contains(ev, "local ranks 0 and 1 connect via SHM") {
		t.Errorf("%+v", r)
	}
}
