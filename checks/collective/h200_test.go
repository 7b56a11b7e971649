package collective

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/checks"
	"github.com/fabricctl/fabricctl/fabric"
)

// h200Replay runs the suite on what the real H200 printed (testdata/h200,
// README.md there): the probe the machine answered (one NVIDIA H200,
// PyTorch 2.11.0+cu130 with NCCL 2.28.9, its nvidia-smi topo -m) and the
// logs its job left, as host "h200" of a fabric whose hostname is "vm".
func h200Replay(t *testing.T, dir, tool string) *Outcome {
	t.Helper()
	topo, err := os.ReadFile("testdata/h200/topo-m.txt")
	if err != nil {
		t.Fatal(err)
	}
	p := Probe{Hostname: "vm", GPUs: []string{"0, NVIDIA H200, 00000000:00:06.0"}, Topo: string(topo), Python: "/opt/torch/.venv/bin/python3",
		Torch: "2.11.0+cu130", TorchNCCL: "2.28.9", TorchGPUs: 1}
	if tool == ToolNCCLTests {
		p.AllReducePerf = "/tmp/build/all_reduce_perf"
	}
	var logs []Log
	paths, _ := filepath.Glob(filepath.Join("testdata/h200", dir, "*"))
	for _, path := range paths {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		logs = append(logs, Log{Name: filepath.Base(path), Text: string(b)})
	}
	fx := &fakeExec{probes: map[string]Probe{"h200": p}, logs: map[string][]Log{"h200": logs}}
	host := Host{Name: "h200", Address: "127.0.0.1", Intent: fabric.HostIntent{Host: "h200", Address: "127.0.0.1"}}
	out, err := Run(t.Context(), []Host{host}, Options{Executor: &hostnameExec{fx, "vm"}, Config: fabric.NCCL{Tool: tool}})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// hostnameExec reports the machine's own hostname, as a real node does.
type hostnameExec struct {
	*fakeExec
	hostname string
}

func (h *hostnameExec) Run(ctx context.Context, specs []Spec) ([]NodeResult, []error) {
	res, errs := h.fakeExec.Run(ctx, specs)
	for i := range res {
		res[i].Hostname = h.hostname
	}
	return res, errs
}

// realVerdicts reads what `fabricctl check --local --suite nccl -o json`
// said on the machine, status per check and target.
func realVerdicts(t *testing.T, name string) map[string]checks.Status {
	t.Helper()
	b, err := os.ReadFile("testdata/h200/" + name)
	if err != nil {
		t.Fatal(err)
	}
	var rep struct{ Results []checks.Result }
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	m := map[string]checks.Status{}
	for _, r := range rep.Results {
		m[r.ID] = r.Status
	}
	return m
}

// TestH200 replays the real runs on one H200 without an RDMA NIC: the sum
// is right at all 28 sizes (PyTorch) and nccl-tests counts no wrong value;
// the host is Socket-only (NET/IB found no device) in a single-node job — a
// warning; one rank has no bus bandwidth; no RDMA device leaves NCCL's
// environment nothing to be judged against. The replay gives the verdicts
// the machine gave, and every verdict names the host as the fabric does.
func TestH200(t *testing.T) {
	for _, c := range []struct{ dir, tool, real string }{{"torch", ToolTorch, "check-local-nccl-auto.json"}, {"nccl-tests", ToolNCCLTests, "check-local-nccl-tests.json"}} {
		t.Run(c.tool, func(t *testing.T) {
			out := h200Replay(t, c.dir, c.tool)
			got := map[string]checks.Status{}
			for _, r := range out.Results {
				got[r.ID] = r.Status
				if r.Target != "h200" && r.Target != "job" {
					t.Errorf("%s names %q, not the fabric's host h200", r.ID, r.Target)
				}
			}
			want := map[string]checks.Status{IDRun: checks.StatusPass, IDCorrectness: checks.StatusPass, IDTransport: checks.StatusWarn,
				IDBusBW: checks.StatusSkip, IDEnv: checks.StatusSkip, IDLog: checks.StatusPass}
			for id, st := range want {
				if got[id] != st {
					t.Errorf("%s: %s, want %s", id, got[id], st)
				}
			}
			for id, st := range realVerdicts(t, c.real) {
				if got[id] != st {
					t.Errorf("%s: the replay says %s, the machine said %s", id, got[id], st)
				}
			}
			tr := find(t, out, IDTransport, "h200")
			if !strings.Contains(strings.Join(tr.Evidence, " "), "Socket-only host: NCCL found no usable IB/RoCE device and chose the socket transport (NET/IB : No device found)") {
				t.Errorf("%+v", tr)
			}
			for i := range out.Results {
				out.Results[i].Evidence = slicesWithout(out.Results[i].Evidence, "argv: ") // the fake's argv, not the machine's
			}
			golden(t, "h200_"+c.dir, out)
		})
	}
	out := h200Replay(t, "torch", ToolTorch)
	if r := find(t, out, IDCorrectness, "job"); r.Summary != "all-reduce of rank+1 over 1 rank(s) summed to 1 on every element at all 28 sizes (8 B to 1 GiB)" {
		t.Errorf("%+v", r)
	}
}

func slicesWithout(s []string, prefix string) []string {
	var out []string
	for _, x := range s {
		if !strings.HasPrefix(x, prefix) {
			out = append(out, x)
		}
	}
	return out
}
