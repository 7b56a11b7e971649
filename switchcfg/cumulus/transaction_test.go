package cumulus

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/fabricctl/fabricctl/switchcfg"
	"github.com/fabricctl/fabricctl/switchcfg/drivertest"
)

// fakeNVUE is a scripted stand-in for a Cumulus switch: it keeps an applied
// and a pending tree and answers the transaction commands as NVUE does. The
// real simulator lives in switchcfg/sim.
type fakeNVUE struct {
	applied, pending Tree
	log              []string
	reject           string           // SendConfig rejects the first line containing this
	fail             map[string]error // Send fails for these commands
	drop             string           // the connection drops on the first line containing this
	dead             bool
	unconfirmed      Tree             // the applied tree before a confirmed apply that waits for its confirm
	hook             func(cmd string) // called before Send answers cmd
}

func newFake() *fakeNVUE { return &fakeNVUE{applied: Tree{}, fail: map[string]error{}} }

func clone(t Tree) Tree {
	b, _ := json.Marshal(t)
	out, err := DecodeConfig(b)
	if err != nil {
		return Tree{}
	}
	return out
}

func same(a, b Tree) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb)
}

func (f *fakeNVUE) SendConfig(ctx context.Context, lines []string) (string, error) {
	if f.pending == nil {
		f.pending = clone(f.applied)
	}
	for _, l := range lines {
		if err := ctx.Err(); err != nil {
			return "", err
		}
		if f.dead {
			return "", io.ErrUnexpectedEOF
		}
		f.log = append(f.log, l)
		if f.drop != "" && strings.Contains(l, f.drop) {
			// As the session reports it: the line is in the text only.
			f.dead = true
			return "", fmt.Errorf("sending %q: connection lost: %w", l, io.ErrUnexpectedEOF)
		}
		if f.reject != "" && strings.Contains(l, f.reject) {
			return "Error: Invalid config", &switchcfg.LineError{Line: l, Message: "Error: Invalid config"}
		}
		if err := f.pending.Apply(l); err != nil {
			return "", err
		}
	}
	return "", nil
}

func (f *fakeNVUE) Send(ctx context.Context, cmd string) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	f.log = append(f.log, cmd)
	if f.hook != nil {
		f.hook(cmd)
	}
	if f.dead {
		return "", io.ErrUnexpectedEOF
	}
	if err := f.fail[cmd]; err != nil {
		return "", err
	}
	switch {
	case cmd == "nv config diff":
		if f.pending == nil || same(f.pending, f.applied) {
			return "", nil
		}
		return "- set:\n    qos: {}\n", nil
	case cmd == "nv config detach":
		f.pending = nil
	case strings.HasPrefix(cmd, "nv config apply -y --confirm ") && cmd != cmdConfirm:
		f.unconfirmed, f.applied, f.pending = f.applied, f.pending, nil
	case cmd == cmdConfirm || cmd == cmdConfirmNo:
		if f.unconfirmed == nil {
			return "Error: no apply is waiting for confirmation", &switchcfg.LineError{Line: cmd, Message: "Error: no apply is waiting for confirmation"}
		}
		if cmd == cmdConfirmNo {
			f.applied = f.unconfirmed
		}
		f.unconfirmed = nil
	case cmd == cmdConfirmStatus:
		if f.unconfirmed == nil {
			return "No apply is waiting for confirmation", nil
		}
		return "Confirm pending: 118 seconds left", nil
	case cmd == CmdConfigShow:
		b, err := f.applied.ShowJSON()
		return string(b), err
	default:
		return "", errors.New("fake: unknown command " + cmd)
	}
	return "", nil
}

func (f *fakeNVUE) Close() error { return nil }

func (f *fakeNVUE) sent(cmd string) bool {
	for _, l := range f.log {
		if l == cmd {
			return true
		}
	}
	return false
}

func renderLab(t *testing.T) switchcfg.Config {
	t.Helper()
	cfg, err := New().Render(labSwitch(t))
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

func TestPushThenObserveThenPushAgain(t *testing.T) {
	ctx := context.Background()
	d, f, cfg := New(), newFake(), renderLab(t)
	res, err := d.Push(ctx, f, cfg, switchcfg.PushOptions{ConfirmTimeout: 90 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Changed || !res.Committed || res.Diff == "" {
		t.Fatalf("first push %+v", res)
	}
	if !f.sent("nv config apply -y --confirm 90s") || !f.sent(cmdConfirm) {
		t.Fatalf("confirmed apply missing: %q", f.log)
	}
	got, err := switchcfg.Observe(ctx, f, d, nil)
	if err != nil {
		t.Fatal(err)
	}
	if diffs := (switchcfg.CompareOptions{Ports: true}).Compare(labSwitch(t), got); len(diffs) != 0 {
		t.Fatalf("drift after push: %v", diffs)
	}

	f.log = nil
	res, err = d.Push(ctx, f, cfg, switchcfg.PushOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Changed || res.Committed {
		t.Fatalf("second push %+v", res)
	}
	tail := f.log[len(f.log)-2:]
	if tail[0] != "nv config diff" || tail[1] != "nv config detach" {
		t.Fatalf("no diff must detach and apply nothing: %q", tail)
	}
	for _, l := range f.log {
		if strings.HasPrefix(l, "nv config apply") {
			t.Fatalf("applied without a diff: %q", l)
		}
	}
}

func TestPushDryRun(t *testing.T) {
	d, f := New(), newFake()
	res, err := d.Push(context.Background(), f, renderLab(t), switchcfg.PushOptions{DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Changed || res.Committed || res.Diff == "" || len(f.applied) != 0 || !f.sent("nv config detach") {
		t.Fatalf("dry run %+v applied %v", res, f.applied)
	}
}

func TestPushFailuresLeaveTheAppliedConfig(t *testing.T) {
	cases := map[string]struct {
		setup      func(f *fakeNVUE)
		step, line string
		rolledBack bool
	}{
		"rejected line": {func(f *fakeNVUE) { f.reject = "robustness" }, "loading", "nv set qos pfc-watchdog robustness 2", true},
		"diff fails":    {func(f *fakeNVUE) { f.fail["nv config diff"] = errors.New("connection reset") }, "diffing", "nv config diff", true},
		"apply fails": {func(f *fakeNVUE) { f.fail["nv config apply -y --confirm 120s"] = errors.New("Error: apply failed") },
			"committing", "nv config apply -y --confirm 120s", true},
		"detach fails too": {func(f *fakeNVUE) {
			f.reject = "link mtu"
			f.fail["nv config detach"] = errors.New("EOF")
		}, "loading", "nv set interface swp1-4 link mtu 9216", false},
		// The connection is gone, so nothing can be detached; the pending
		// revision was never applied and NVUE drops it with the session.
		"connection drops while loading": {func(f *fakeNVUE) { f.drop = "link mtu" },
			"loading", "nv set interface swp1-4 link mtu 9216", false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			d, f := New(), newFake()
			before := clone(f.applied)
			tc.setup(f)
			res, err := d.Push(context.Background(), f, renderLab(t), switchcfg.PushOptions{})
			var pe *switchcfg.PushError
			if !errors.As(err, &pe) || !errors.Is(err, switchcfg.ErrPushFailed) {
				t.Fatalf("want a PushError, got %v", err)
			}
			if pe.Step != tc.step || pe.Line != tc.line || pe.RolledBack != tc.rolledBack || res.RolledBack != tc.rolledBack {
				t.Fatalf("error %+v (%v)", pe, err)
			}
			if !strings.Contains(err.Error(), tc.line) || !strings.Contains(err.Error(), Platform) {
				t.Errorf("message %q must name the line and platform", err)
			}
			if !f.sent("nv config detach") || res.Committed {
				t.Errorf("no detach: %q", f.log)
			}
			if !same(f.applied, before) {
				t.Errorf("applied config changed: %v", f.applied)
			}
		})
	}
}

// TestPushConfirmLost: the confirm's reply is lost. When the switch can be
// asked again, Push finds the apply still waiting and confirms it; when it
// cannot, the error says the outcome is unknown and promises nothing.
func TestPushConfirmLost(t *testing.T) {
	d, f := New(), newFake()
	f.fail[cmdConfirm] = errors.New("connection lost")
	calls := 0
	f.hook = func(cmd string) {
		if cmd == cmdConfirm {
			if calls++; calls > 1 {
				delete(f.fail, cmdConfirm) // the second confirm arrives
			}
		}
	}
	res, err := d.Push(context.Background(), f, renderLab(t), switchcfg.PushOptions{ConfirmTimeout: time.Minute})
	if err != nil || !res.Committed || f.unconfirmed != nil || !f.sent(cmdConfirmStatus) {
		t.Fatalf("confirm lost, switch reachable: %+v %v (log %q)", res, err, f.log)
	}

	d, f = New(), newFake()
	f.drop = "" // the connection dies on the confirm
	f.fail[cmdConfirm] = errors.New("connection lost")
	f.hook = func(cmd string) {
		if cmd == cmdConfirm {
			f.dead = true
		}
	}
	_, err = d.Push(context.Background(), f, renderLab(t), switchcfg.PushOptions{ConfirmTimeout: time.Minute})
	var pe *switchcfg.PushError
	if !errors.As(err, &pe) || pe.Step != "confirming" || pe.RolledBack || pe.ConfirmPending || !pe.Unknown ||
		!strings.Contains(err.Error(), "outcome unknown") || !strings.Contains(err.Error(), "1m0s confirm window") {
		t.Fatalf("got %v", err)
	}
}

func TestPushCancelledStillDetaches(t *testing.T) {
	d, f := New(), newFake()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := d.Push(ctx, f, renderLab(t), switchcfg.PushOptions{})
	if !errors.Is(err, context.Canceled) || !f.sent("nv config detach") {
		t.Fatalf("err %v log %q", err, f.log)
	}
}

func TestPushRefusesForeignConfig(t *testing.T) {
	d, f := New(), newFake()
	// Another platform's configuration: drivertest's conformance checks.
	for _, cfg := range []switchcfg.Config{
		{Platform: Platform, Format: "commands", Text: "nv set qos roce\nsudo reboot\n"},
	} {
		if _, err := d.Push(context.Background(), f, cfg, switchcfg.PushOptions{}); err == nil {
			t.Errorf("%q accepted", cfg.Text)
		}
	}
	if len(f.log) != 0 {
		t.Fatalf("the device was touched: %q", f.log)
	}
}

func TestObserveErrors(t *testing.T) {
	f := newFake()
	f.fail[CmdConfigShow] = errors.New("timeout")
	if _, err := switchcfg.Observe(context.Background(), f, New(), nil); err == nil || !strings.Contains(err.Error(), "nv config show -o json") {
		t.Fatalf("got %v", err)
	}
}

// TestSimulated runs the driver against the NVUE simulator over SSH.
func TestSimulated(t *testing.T) {
	drivertest.RunSimulated(t, New(), drivertest.Simulated{
		DriftEdit: func(t *testing.T, sw *drivertest.Simulator, _ switchcfg.Config) string {
			sw.MustApply(t, "nv set qos congestion-control default-global traffic-class 3 probability 50")
			return "classes[roce].ecn.maxMarkProbability"
		},
		CommitWords:    []string{"nv config apply"},
		ConfirmCommand: func(string) string { return "nv config apply -y --confirm-yes" },
	})
}
