package agent_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/hostcfg"
	"github.com/fabricctl/fabricctl/hostcfg/agent"
	"github.com/fabricctl/fabricctl/hostcfg/dcbnl"
	"github.com/fabricctl/fabricctl/hostcfg/hostcfgtest"
	"github.com/fabricctl/fabricctl/hostcfg/journal"
)

func TestRegisteredOp(t *testing.T) {
	h := &agent.Handler{Open: func(context.Context) (*hostcfg.Host, error) {
		t.Error("a registered op must not open the host")
		return nil, errors.New("no host")
	}}
	h.Register("exec-check", func(_ context.Context, args json.RawMessage) (any, error) {
		var a struct{ Name string }
		if err := json.Unmarshal(args, &a); err != nil {
			return nil, err
		}
		if a.Name == "" {
			return nil, errors.New("no check named")
		}
		return map[string]string{"ran": a.Name}, nil
	})
	in := `{"apiVersion":"fabricctl.io/v1alpha1","protocol":1,"op":"exec-check","args":{"Name":"preflight"}}
{"apiVersion":"fabricctl.io/v1alpha1","protocol":1,"op":"exec-check","args":{}}
{"apiVersion":"fabricctl.io/v1alpha1","protocol":1,"op":"hello"}`
	var out bytes.Buffer
	failed, err := h.Serve(context.Background(), strings.NewReader(in), &out)
	if err != nil || failed != 1 {
		t.Fatalf("Serve = %d failed, %v", failed, err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d reply lines, want one per request:\n%s", len(lines), out.String())
	}
	var r1, r2, r3 agent.Reply
	for i, r := range []*agent.Reply{&r1, &r2, &r3} {
		if err := json.Unmarshal([]byte(lines[i]), r); err != nil {
			t.Fatal(err)
		}
	}
	if !r1.OK || string(r1.Data) != `{"ran":"preflight"}` {
		t.Errorf("exec-check reply = %+v (data %s)", r1, r1.Data)
	}
	if r2.OK || r2.Error.Kind != agent.ErrorOp || r2.Error.Message != "no check named" {
		t.Errorf("failing op reply = %+v", r2)
	}
	if want := []string{"apply", "exec-check", "hello", "observe", "plan", "recover", "rollback", "settle", "show"}; strings.Join(r3.Hello.Ops, " ") != strings.Join(want, " ") {
		t.Errorf("ops = %v, want %v", r3.Hello.Ops, want)
	}
}

func TestRegisterTwicePanics(t *testing.T) {
	h := &agent.Handler{}
	defer func() {
		if recover() == nil {
			t.Error("registering a built-in op did not panic")
		}
	}()
	h.Register(agent.OpApply, nil)
}

func TestHostOpenFailure(t *testing.T) {
	h := &agent.Handler{Open: func(context.Context) (*hostcfg.Host, error) { return nil, errors.New("no netlink") }}
	r := h.Handle(context.Background(), agent.Request{APIVersion: "fabricctl.io/v1alpha1", Protocol: 1, Op: agent.OpShow})
	if r.OK || r.Error.Kind != agent.ErrorHost || !strings.Contains(r.Error.Message, "no netlink") {
		t.Errorf("reply = %+v", r)
	}
}

// FuzzServe feeds arbitrary bytes to the agent: it must answer (or stop)
// without panicking, with one JSON reply per request it read.
func FuzzServe(f *testing.F) {
	for _, s := range []string{
		`{"apiVersion":"fabricctl.io/v1alpha1","protocol":1,"op":"hello"}`,
		`{"apiVersion":"fabricctl.io/v1alpha1","protocol":1,"op":"plan","desired":{"apiVersion":"fabricctl.io/v1alpha1","interfaces":[{"name":"*","mtu":9000}]}}`,
		`{"apiVersion":"fabricctl.io/v1alpha1","protocol":1,"op":"rollback","plan":{"changes":[{"interface":"eth0","setting":"mtu","old":"9000","new":"1500"}]}}`,
		`{"op":"apply","dryRun":true}` + "\n" + `{"op":`,
		`[1,2,3]`, `"x"`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		h := &agent.Handler{Open: func(context.Context) (*hostcfg.Host, error) { return nil, errors.New("no host in the fuzzer") }}
		var out bytes.Buffer
		failed, err := h.Serve(context.Background(), bytes.NewReader(in), &out)
		if err != nil {
			t.Fatalf("Serve: %v", err)
		}
		dec := json.NewDecoder(&out)
		n := 0
		for dec.More() {
			var r agent.Reply
			if err := dec.Decode(&r); err != nil {
				t.Fatalf("reply %d is not JSON: %v", n, err)
			}
			if r.OK == (r.Error != nil) {
				t.Fatalf("reply %d: ok=%v with error %v", n, r.OK, r.Error)
			}
			n++
		}
		if failed > n {
			t.Fatalf("%d failures but %d replies", failed, n)
		}
	})
}

func fixture(t *testing.T) (*hostcfgtest.Fixture, fabric.HostIntent) {
	t.Helper()
	return hostcfgtest.Load(t, filepath.Join("..", "testdata", "hosts", "mlx5-ofed")),
		hostcfgtest.Desired(t, filepath.Join("..", "testdata", "desired", "mlx5-ofed.json"))
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
	h := &agent.Handler{Open: func(context.Context) (*hostcfg.Host, error) { return f.Host, nil }, Journal: dir}
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
	h := &agent.Handler{Open: func(context.Context) (*hostcfg.Host, error) { return f.Host, nil }, Journal: dir}
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
