package checklocal

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fabricctl/fabricctl/checks"
	"github.com/fabricctl/fabricctl/checks/perftest"
	"github.com/fabricctl/fabricctl/checks/preflight"
	"github.com/fabricctl/fabricctl/checks/rdma"
	"github.com/fabricctl/fabricctl/checks/rdma/rdmatest"
	"github.com/fabricctl/fabricctl/checks/report"
	"github.com/fabricctl/fabricctl/hostcfg"
	"github.com/fabricctl/fabricctl/hostcfg/hostcfgtest"
)

// The test binary doubles as a perftest (rdmatest.Main).
func TestMain(m *testing.M) {
	if rdmatest.IsFake() {
		os.Exit(rdmatest.Main(os.Args[1:]))
	}
	os.Exit(m.Run())
}

// rxeHost gathers on the rxe fixture host (rxe0, port 1 ACTIVE, a RoCE v2 GID), with the fake
// perftest on PATH.
func rxeHost(t *testing.T) (*preflight.Gatherer, *rdma.Agent) {
	t.Helper()
	fx := hostcfgtest.Load(t, filepath.Join("..", "..", "hostcfg", "testdata", "hosts", "rxe"))
	t.Setenv("PATH", rdmatest.Path(t, "")+string(os.PathListSeparator)+os.Getenv("PATH"))
	g := &preflight.Gatherer{
		Open:     func(context.Context) (*hostcfg.Host, error) { return fx.Host, nil },
		Sys:      fx.Host.Sys,
		ProcRoot: t.TempDir(),
		FileRoot: t.TempDir(),
		Resolve:  func(context.Context, string) ([]string, error) { return []string{"127.0.0.1"}, nil },
	}
	return g, &rdma.Agent{Sys: fx.Host.Sys, StateDir: t.TempDir()}
}

// TestLoopbackSuite: --suite preflight,loopback runs perftest on the host's port, both sides
// here, and judges it; a host without an RDMA device fails the loopback with preflight's reason
// (not run), and without the loopback suite a missing perftest is only a warning.
func TestLoopbackSuite(t *testing.T) {
	g, a := rxeHost(t)
	loop := rdma.Test{Test: perftest.WriteBW, Iterations: 1000, Timeout: 20 * time.Second}
	rep, err := Run(t.Context(), Options{Gatherer: g, Agent: a, Loopback: loop,
		Suites: []report.Suite{report.SuitePreflight, report.SuiteLoopback}})
	if err != nil {
		t.Fatal(err)
	}
	var lb *checks.Result
	for i, r := range rep.Results {
		if strings.HasPrefix(r.ID, "loopback/") {
			lb = &rep.Results[i]
		}
	}
	if lb == nil || lb.Status != checks.StatusPass || lb.ID != "loopback/write_bw" || !strings.HasSuffix(lb.Target, "/rxe0") {
		t.Fatalf("loopback: %+v", lb)
	}
	if m, ok := lb.Measurement("bw_average"); !ok || m.Value <= 0 {
		t.Errorf("loopback without a bandwidth: %+v", lb)
	}
	if len(a.Running()) != 0 {
		t.Errorf("perftest left running: %v", a.Running())
	}

	rep, err = Run(t.Context(), Options{Gatherer: bareHost(t), Agent: a, Suites: []report.Suite{report.SuitePreflight, report.SuiteLoopback}})
	if err != nil {
		t.Fatal(err)
	}
	var perftestStatus checks.Status
	for _, r := range rep.Results {
		if strings.HasPrefix(r.ID, "loopback/") && (r.Status != checks.StatusFail || r.Class != checks.NoDevice || !strings.HasPrefix(r.Summary, "not run: preflight/rdma-device")) {
			t.Errorf("loopback on a host without RDMA: %+v", r)
		}
		if r.ID == preflight.IDPerftest {
			perftestStatus = r.Status
		}
	}
	if perftestStatus != checks.StatusError {
		t.Errorf("with the loopback suite a missing perftest is undecided, got %s", perftestStatus)
	}
	rep, _ = Run(t.Context(), Options{Gatherer: bareHost(t)})
	for _, r := range rep.Results {
		if r.ID == preflight.IDPerftest && r.Status != checks.StatusWarn {
			t.Errorf("preflight alone: a missing perftest is %s, want warn", r.Status)
		}
	}
}
