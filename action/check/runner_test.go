package check

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fabricctl/fabricctl/agent"
	"github.com/fabricctl/fabricctl/agent/agentclient"
	"github.com/fabricctl/fabricctl/checks"
	"github.com/fabricctl/fabricctl/checks/collective"
	"github.com/fabricctl/fabricctl/checks/preflight"
	"github.com/fabricctl/fabricctl/checks/rdma"
	"github.com/fabricctl/fabricctl/checks/rdma/rdmatest"
	"github.com/fabricctl/fabricctl/checks/report"
	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/hostcfg"
	"github.com/fabricctl/fabricctl/hostcfg/hostcfgtest"
)

func TestMain(m *testing.M) {
	if rdmatest.IsFake() {
		os.Exit(rdmatest.Main(os.Args[1:]))
	}
	os.Exit(m.Run())
}

// fixtureHost is an in-process agent on a copy of the rxe fixture host,
// serving the preflight and perftest ops as `fabricctl agent` does.
func fixtureHost(t *testing.T, name string, edit func(sysRoot string)) (Host, *rdma.Agent) {
	t.Helper()
	fx := hostcfgtest.Load(t, "../../hostcfg/testdata/hosts/rxe")
	if edit != nil {
		edit(fx.Host.Sys.Root())
	}
	b, err := os.ReadFile("../../hostcfg/testdata/desired/rxe.json")
	if err != nil {
		t.Fatal(err)
	}
	var in fabric.HostIntent
	json.Unmarshal(b, &in)
	in.Host, in.Address = name, "127.0.0.1"
	h := &agent.Handler{}
	g := &preflight.Gatherer{Open: func(context.Context) (*hostcfg.Host, error) { return fx.Host, nil }, Sys: fx.Host.Sys, ProcRoot: t.TempDir(), LibDirs: []string{},
		Resolve:  func(context.Context, string) ([]string, error) { return []string{"127.0.0.1"}, nil },
		LookPath: func(string) (string, error) { return filepath.Abs("testdata/ib_write_bw_version") }}
	g.Register(h)
	a := &rdma.Agent{Sys: fx.Host.Sys, StateDir: t.TempDir()}
	a.Register(h)
	return Host{Intent: in, Agent: agentclient.Local{Handler: h}}, a
}

func TestRunAllSuitesWithOneHostDown(t *testing.T) {
	t.Setenv("PATH", rdmatest.Path(t, "")+string(os.PathListSeparator)+os.Getenv("PATH"))
	var hosts []Host
	var agents []*rdma.Agent
	for _, n := range []string{"h1", "h2", "h3", "h4"} {
		var edit func(string)
		if n == "h4" {
			edit = func(root string) {
				os.WriteFile(filepath.Join(root, "devices/virtual/infiniband/rxe0/ports/1/state"), []byte("1: DOWN\n"), 0o644)
			}
		}
		h, a := fixtureHost(t, n, edit)
		hosts, agents = append(hosts, h), append(agents, a)
	}
	var lines []string
	opts := Options{Checks: &fabric.Checks{Pairwise: &fabric.Pairwise{RetestOutliers: true}}, BasePort: rdmatest.FreePort(t),
		Timeout: 20 * time.Second, Progress: func(f string, a ...any) { lines = append(lines, f) }}
	rep, err := Run(t.Context(), "test", hosts, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := report.WriteTable(&strings.Builder{}, rep); err != nil {
		t.Fatalf("the report does not render: %v", err)
	}
	loop := map[string]checks.Result{}
	for _, r := range rep.Results {
		if r.ID == "loopback/write_bw" {
			loop[r.Target] = r
		}
	}
	if len(loop) != 4 || loop["h1/rxe0"].Status != checks.StatusPass || loop["h4/rxe0"].Class != checks.PortDown {
		t.Errorf("loopback: %+v", loop)
	}
	if len(rep.Pairs) != 6 {
		t.Fatalf("%d pairs, want 6", len(rep.Pairs))
	}
	for _, p := range rep.Pairs {
		down := p.A == "h4" || p.B == "h4"
		switch {
		case down && (p.Status != checks.StatusFail || p.Class != checks.PortDown || p.Value != nil):
			t.Errorf("%s: %s %s, want a port-down failure without a value", p.Target(), p.Status, p.Class)
		case !down && (p.Status != checks.StatusPass || p.Value == nil || *p.Value != 0.25):
			t.Errorf("%s: %s %v (%s)", p.Target(), p.Status, p.Value, p.Summary)
		}
	}
	var port checks.Result
	for _, r := range rep.Results {
		if r.ID == preflight.IDPort && r.Target == "h4/rxe0" {
			port = r
		}
	}
	if port.Status != checks.StatusFail {
		t.Errorf("preflight did not report h4's port: %+v", port)
	}
	if len(lines) < 4+4+6 {
		t.Errorf("progress: %d lines", len(lines))
	}
	for _, a := range agents {
		if ids := a.Running(); len(ids) > 0 {
			t.Errorf("left running: %v", ids)
		}
	}
}

func TestUnreachableAgent(t *testing.T) {
	h, _ := fixtureHost(t, "h1", nil)
	dead := Host{Intent: fabric.HostIntent{Host: "h2", Address: "192.0.2.1"}, Agent: deadAgent{}}
	rep, err := Run(t.Context(), "test", []Host{h, dead}, Options{Suites: []report.Suite{report.SuitePreflight, report.SuitePairwise}})
	if err != nil {
		t.Fatal(err)
	}
	var agentRes checks.Result
	for _, r := range rep.Results {
		if r.ID == preflight.IDAgent {
			agentRes = r
		}
	}
	if agentRes.Status != checks.StatusError || !strings.Contains(agentRes.Summary, "connection refused") {
		t.Errorf("agent result: %+v", agentRes)
	}
	if len(rep.Pairs) != 1 || rep.Pairs[0].Status != checks.StatusError || !strings.Contains(strings.Join(rep.Pairs[0].Evidence, ""), "not run") {
		t.Errorf("pairs: %+v", rep.Pairs)
	}
}

type deadAgent struct{}

func (deadAgent) Exec(context.Context, io.Reader, io.Writer) error {
	return errors.New("dial tcp 192.0.2.1:22: connection refused")
}

// TestNCCLSuiteWithoutGPUs: the NCCL suite on hosts whose agents find no GPU
// (the soft-RoCE lab's VMs) skips with the reason on every host; a host whose
// agent is unreachable is an error; nothing fails.
func TestNCCLSuiteWithoutGPUs(t *testing.T) {
	h, _ := fixtureHost(t, "h1", nil)
	node := &collective.Node{LookPath: func(name string) (string, error) {
		return "", errors.New(`exec: "` + name + `": executable file not found in $PATH`)
	}}
	node.Register(h.Agent.(agentclient.Local).Handler)
	dead := Host{Intent: fabric.HostIntent{Host: "h2", Address: "192.0.2.1"}, Agent: deadAgent{}}
	rep, err := Run(t.Context(), "test", []Host{h, dead}, Options{Suites: []report.Suite{report.SuiteNCCL}})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]checks.Result{}
	for _, r := range rep.Results {
		got[r.ID+" "+r.Target] = r
	}
	if r := got["nccl/run h1"]; r.Status != checks.StatusSkip || r.Summary != "no NVIDIA GPU: nvidia-smi not found (no NVIDIA driver installed)" {
		t.Errorf("%+v", r)
	}
	if r := got["nccl/run h2"]; r.Status != checks.StatusError || !strings.Contains(r.Summary, "probing h2 for the NCCL check") {
		t.Errorf("%+v", r)
	}
	if r := got["nccl/correctness job"]; r.Status != checks.StatusSkip {
		t.Errorf("%+v", r)
	}
	if w := checks.Worst(rep.Results); w == checks.StatusFail {
		t.Errorf("a host without GPU failed: %+v", rep.Results)
	}
}

// noLauncher is a workload manager's launcher that reaches no host.
type noLauncher struct{}

func (noLauncher) Preflight(_ context.Context, intents []fabric.HostIntent) ([]preflight.Facts, []error) {
	errs := make([]error, len(intents))
	for i := range errs {
		errs[i] = errors.New("no step ran")
	}
	return make([]preflight.Facts, len(intents)), errs
}

func (noLauncher) RunRound(context.Context, []rdma.Job) []rdma.PairRun { return nil }

// TestNCCLSuiteUnderLauncher: under a workload manager's launcher without
// an NCCL step (not an NCCLLauncher; its hosts have no agents) every host
// skips with what to run instead, rather than an error per missing agent.
func TestNCCLSuiteUnderLauncher(t *testing.T) {
	hosts := []Host{{Intent: fabric.HostIntent{Host: "n1", Address: "192.0.2.1"}}, {Intent: fabric.HostIntent{Host: "n2", Address: "192.0.2.2"}}}
	rep, err := Run(t.Context(), "test", hosts, Options{Suites: []report.Suite{report.SuiteNCCL}, Launcher: noLauncher{}})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Results {
		if r.Status != checks.StatusSkip || !strings.Contains(r.Summary, "check --local --suite nccl") {
			t.Errorf("%+v", r)
		}
	}
	if len(rep.Results) != 2 {
		t.Errorf("%d results: %+v", len(rep.Results), rep.Results)
	}
}
