package hostops_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/fabricctl/fabricctl/agent"
	"github.com/fabricctl/fabricctl/agent/hostops"
	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/hostcfg"
	"github.com/fabricctl/fabricctl/hostcfg/dcbnl"
	"github.com/fabricctl/fabricctl/hostcfg/hostcfgtest"
	"github.com/fabricctl/fabricctl/hostcfg/journal"
)

func TestHostOpenFailure(t *testing.T) {
	h := &agent.Handler{}
	(&hostops.Ops{Open: func(context.Context) (*hostcfg.Host, error) { return nil, errors.New("no netlink") }}).Register(h)
	r := h.Handle(context.Background(), agent.Request{APIVersion: "fabricctl.io/v1alpha1", Protocol: 1, Op: agent.OpShow})
	if r.OK || r.Error.Kind != agent.ErrorHost || !strings.Contains(r.Error.Message, "no netlink") {
		t.Errorf("reply = %+v", r)
	}
}

func fixture(t *testing.T) (*hostcfgtest.Fixture, fabric.HostIntent) {
	t.Helper()
	return hostcfgtest.Load(t, filepath.Join("..", "..", "hostcfg", "testdata", "hosts", "mlx5-ofed")),
		hostcfgtest.Desired(t, filepath.Join("..", "..", "hostcfg", "testdata", "desired", "mlx5-ofed.json"))
}

// TestJournaledApply: an apply journals its writes and the journal stays
// until settled; plan reports one left pending; a new apply refuses to go
// on top of it; recover restores the pre-image of every interface (also
// those an apply that failed on another interface had finished) and
// removes it.
func TestJournaledApply(t *testing.T) {
	ctx := context.Background()
	f, d := fixture(t)
	dir, err := journal.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	h := &agent.Handler{}
	(&hostops.Ops{Open: func(context.Context) (*hostcfg.Host, error) { return f.Host, nil }, Journal: dir}).Register(h)
	call := func(op, id string) agent.Reply {
		return h.Handle(ctx, agent.Request{APIVersion: fabric.APIVersion, Protocol: agent.Protocol, Op: op, Desired: &d, Journal: id})
	}
	before := call(agent.OpPlan, "")
	if before.Journal != nil || len(before.Plan.Changes) == 0 {
		t.Fatalf("fresh host: journal %+v, %d changes", before.Journal, len(before.Plan.Changes))
	}

	r := call(agent.OpApply, "j1")
	if !r.OK || r.Journal == nil || r.Journal.Record.ID != "j1" || r.Journal.Record.State != journal.StateApplied ||
		len(r.Journal.Record.Written) != len(r.Result.Applied) {
		t.Fatalf("apply: ok %v, journal %+v", r.OK, r.Journal)
	}
	if p := call(agent.OpPlan, ""); p.Journal == nil || p.Journal.Record.ID != "j1" || p.Journal.InProgress {
		t.Fatalf("plan after an unsettled apply must report its journal: %+v", p.Journal)
	}
	if r := call(agent.OpApply, "j2"); r.OK || r.Error.Kind != agent.ErrorInterrupted || r.Journal == nil || r.Journal.Record.ID != "j1" {
		t.Fatalf("apply over a pending journal: %+v", r)
	}
	rec := call(agent.OpRecover, "j1")
	if !rec.OK || rec.Journal == nil || rec.Journal.Pending || len(rec.Result.Applied) == 0 {
		t.Fatalf("recover: %+v", rec)
	}
	if p := call(agent.OpPlan, ""); p.Journal != nil || p.Fingerprint != before.Fingerprint {
		t.Fatalf("after recover the host must plan as before (journal %+v)", p.Journal)
	}

	// A settled apply leaves nothing to recover.
	if r := call(agent.OpApply, "j3"); !r.OK {
		t.Fatal(r.Error)
	}
	if r := call(agent.OpSettle, "j3"); !r.OK {
		t.Fatal(r.Error)
	}
	if r := call(agent.OpRecover, ""); !r.OK || r.Journal != nil {
		t.Fatalf("recover after settle: %+v", r)
	}
	if p := call(agent.OpPlan, ""); len(p.Plan.Changes) != 0 || p.Journal != nil {
		t.Fatalf("the settled apply must stay: %d changes", len(p.Plan.Changes))
	}
}

// TestJournaledApplyFailureRecoversEveryInterface: the agent rolls back
// only the interface that failed; recover restores the others too.
func TestJournaledApplyFailureRecoversEveryInterface(t *testing.T) {
	ctx := context.Background()
	f, d := fixture(t)
	dir, _ := journal.Open(t.TempDir())
	h := &agent.Handler{}
	(&hostops.Ops{Open: func(context.Context) (*hostcfg.Host, error) { return f.Host, nil }, Journal: dir}).Register(h)
	call := func(op string) agent.Reply {
		return h.Handle(ctx, agent.Request{APIVersion: fabric.APIVersion, Protocol: agent.Protocol, Op: op, Desired: &d, Journal: "j1"})
	}
	before := call(agent.OpPlan)
	f.Kernel.FailNext("ens1f1np1", dcbnl.AttrIEEEPFC, syscall.EIO)
	r := call(agent.OpApply)
	if r.OK || r.Journal == nil || len(r.Result.Applied) == 0 || len(r.Result.RolledBack) == 0 {
		t.Fatalf("apply failing on the second interface: ok %v, applied %d, rolled back %d, journal %v",
			r.OK, len(r.Result.Applied), len(r.Result.RolledBack), r.Journal)
	}
	if rec := call(agent.OpRecover); !rec.OK {
		t.Fatal(rec.Error)
	}
	if p := call(agent.OpPlan); p.Fingerprint != before.Fingerprint {
		t.Fatalf("recover left the host changed:\n%+v", p.Plan.Changes)
	}
}
