package drivertest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/switchcfg"
	"github.com/fabricctl/fabricctl/switchcfg/sim"
)

// Simulated is what RunSimulated needs to know about a platform's device.
type Simulated struct {
	// DriftEdit changes one value on the simulator directly, as an operator
	// would out of band, and returns the Compare field that must then differ.
	DriftEdit func(t *testing.T, sw *Simulator, cfg switchcfg.Config) string
	// CommitWords are parts of the commands that change the running
	// configuration for good: an unchanged push must send none of them.
	CommitWords []string
	// ConfirmCommand returns the command that confirms a confirmed commit
	// of the push with that checkpoint name; nil when the platform has no
	// confirmed commit.
	ConfirmCommand func(checkpoint string) string
	// MiddleLine returns a command the push sends in the middle of loading
	// cfg (after some lines, before the rest); nil means the middle line of
	// cfg itself.
	MiddleLine func(cfg switchcfg.Config, checkpoint string) string
	// ListCheckpoints is the command that lists the device's checkpoints,
	// for drivers that recover from one (switchcfg.Recoverer).
	ListCheckpoints string
}

// Now is the simulators' clock in RunSimulated (stable timestamps).
func Now() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }

// RunSimulated drives d over real SSH against its simulator: render → push →
// observe → compare, drift, an unchanged push, and transaction safety.
func RunSimulated(t *testing.T, d switchcfg.Driver, s Simulated) {
	t.Run("PushObserveDrift", func(t *testing.T) { pushObserveDrift(t, newFixture(t, d, s)) })
	t.Run("ConnectionDrop", func(t *testing.T) { connectionDrop(t, newFixture(t, d, s)) })
	if _, ok := d.(switchcfg.Recoverer); ok {
		t.Run("RecoverAfterDrop", func(t *testing.T) { recoverAfterDrop(t, newFixture(t, d, s)) })
	}
	t.Run("RejectedLine", func(t *testing.T) {
		f := newFixture(t, d, s)
		line := f.middleLine()
		f.pushFailsCleanly(t, sim.Faults{Reject: line}, line, func(pe *switchcfg.PushError) {
			if strings.TrimSpace(pe.Line) != line || !pe.RolledBack {
				t.Fatalf("PushError line %q rolled back %v; want line %q, rolled back", pe.Line, pe.RolledBack, line)
			}
		})
	})
	t.Run("ConfirmTimeout", func(t *testing.T) {
		if s.ConfirmCommand == nil {
			t.Skip("no confirmed commit (PushOptions.ConfirmTimeout does not apply)")
		}
		confirmTimeout(t, newFixture(t, d, s))
	})
	t.Run("VerifyFailure", func(t *testing.T) { verifyFailure(t, newFixture(t, d, s)) })
	t.Run("LostConnection", func(t *testing.T) { lostConnections(t, d, s) })
	for name, vary := range intentVariants {
		t.Run("Variant/"+name, func(t *testing.T) { variant(t, newFixture(t, d, s), vary) })
	}
	t.Run("UnsetWatchdogLeftAlone", func(t *testing.T) { unsetWatchdog(t, newFixture(t, d, s)) })
}

// unsetWatchdog: an intent without a PFC watchdog leaves the one the switch
// has (issue 14: an unset watchdog switched the vendor's off).
func unsetWatchdog(t *testing.T, f *fixture) {
	if _, err := f.push(t, switchcfg.PushOptions{}); err != nil {
		t.Fatalf("pushing the lab intent: %v", err)
	}
	want := *f.intent.PFC.Watchdog
	f.intent.PFC.Watchdog = nil
	var err error
	if f.cfg, err = f.drv.Render(f.intent); err != nil {
		t.Fatal(err)
	}
	if _, err = f.push(t, switchcfg.PushOptions{}); err != nil {
		t.Fatalf("push without a watchdog: %v", err)
	}
	got, err := switchcfg.Observe(context.Background(), f.sw.Dial(t), f.drv, nil)
	if err != nil {
		t.Fatal(err)
	}
	f.intent.PFC.Watchdog = &want
	if diffs := switchcfg.CompareFor(f.drv, f.intent, got); len(diffs) != 0 {
		t.Fatalf("the switch's watchdog changed under an intent without one: %v", diffs)
	}
}

// Rewrite returns the rendered lines with one value replaced everywhere (a
// DriftEdit's way to change one value and keep the rest).
func Rewrite(t *testing.T, cfg switchcfg.Config, from, to string) []string {
	t.Helper()
	if !strings.Contains(cfg.Text, from) {
		t.Fatalf("rendered config has no %q", from)
	}
	return strings.Split(strings.ReplaceAll(cfg.Text, from, to), "\n")
}

// MustApply edits the simulator's running configuration directly.
func (s *Simulator) MustApply(t *testing.T, lines ...string) {
	t.Helper()
	if err := s.Apply(lines...); err != nil {
		t.Fatal(err)
	}
}

type fixture struct {
	spec   Simulated
	sw     *Simulator
	drv    switchcfg.Driver
	intent fabric.SwitchIntent
	cfg    switchcfg.Config
	pushes int
	// reconnect sets PushOptions.Reconnect to dial the simulator again.
	reconnect bool
}

func newFixture(t *testing.T, d switchcfg.Driver, s Simulated) *fixture {
	t.Helper()
	f := &fixture{spec: s, drv: d, intent: LabIntent(d.Info())}
	var err error
	if f.cfg, err = d.Render(f.intent); err != nil {
		t.Fatalf("rendering: %v", err)
	}
	f.sw = StartSimulator(t, d, sim.Options{Now: Now})
	return f
}

func (f *fixture) checkpoint(n int) string { return fmt.Sprintf("fabricctl-test-%d", n) }

// push runs one Push on a fresh session with a unique checkpoint name.
func (f *fixture) push(t *testing.T, opt switchcfg.PushOptions) (switchcfg.PushResult, error) {
	t.Helper()
	f.pushes++
	if opt.CheckpointName == "" {
		opt.CheckpointName = f.checkpoint(f.pushes)
	}
	if f.reconnect {
		opt.Reconnect = func(context.Context) (switchcfg.Session, error) { return f.sw.Dial(t), nil }
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	return f.drv.Push(ctx, f.sw.Dial(t), f.cfg, opt)
}

func (f *fixture) drift(t *testing.T) []switchcfg.Diff {
	t.Helper()
	got, err := switchcfg.Observe(context.Background(), f.sw.Dial(t), f.drv, nil)
	if err != nil {
		t.Fatalf("observing: %v", err)
	}
	return switchcfg.CompareFor(f.drv, f.intent, got)
}

// middleLine is a command the next push sends after some lines were
// loaded, before the rest.
func (f *fixture) middleLine() string {
	if f.spec.MiddleLine != nil {
		return f.spec.MiddleLine(f.cfg, f.checkpoint(f.pushes+1))
	}
	lines := f.cfg.Lines()
	return strings.TrimSpace(lines[len(lines)/2])
}

func fields(d []switchcfg.Diff) []string {
	var out []string
	for _, x := range d {
		out = append(out, x.Field)
	}
	return out
}

func pushObserveDrift(t *testing.T, f *fixture) {
	if len(f.drift(t)) == 0 {
		t.Fatal("a fresh switch already matches the intent; the test proves nothing")
	}
	res, err := f.push(t, switchcfg.PushOptions{})
	if err != nil {
		t.Fatalf("push: %v", err)
	}
	if !res.Changed || !res.Committed || res.Diff == "" {
		t.Fatalf("first push: %+v", res)
	}
	if d := f.drift(t); len(d) != 0 {
		t.Fatalf("drift right after the push: %v\nrunning:\n%s", d, f.sw.Running())
	}

	// The same intent again: the device reports no diff, nothing is committed.
	running, stats, sent := f.sw.Running(), f.sw.Stats(), len(f.sw.Commands())
	res, err = f.push(t, switchcfg.PushOptions{})
	if err != nil || res.Changed || res.Committed {
		t.Fatalf("second push: %+v, %v", res, err)
	}
	if f.sw.Running() != running {
		t.Fatal("the second push changed the running configuration")
	}
	after := f.sw.Stats()
	if after.Commits != stats.Commits || after.ConfirmedCommits != stats.ConfirmedCommits || after.Saves != stats.Saves {
		t.Fatalf("the second push committed: before %+v, after %+v", stats, after)
	}
	for _, c := range f.sw.Commands()[sent:] {
		for _, w := range f.spec.CommitWords {
			if strings.Contains(c, w) {
				t.Fatalf("the second push sent %q", c)
			}
		}
	}

	// Drift: one value edited on the device is exactly one diff.
	field := f.spec.DriftEdit(t, f.sw, f.cfg)
	if got := fields(f.drift(t)); len(got) != 1 || got[0] != field {
		t.Fatalf("after editing %s on the device, Compare says %q", field, got)
	}
}

// pushFailsCleanly pushes with a fault armed and checks that the running
// configuration is exactly as before and the error names the line.
func (f *fixture) pushFailsCleanly(t *testing.T, faults sim.Faults, line string, recover func(*switchcfg.PushError)) {
	t.Helper()
	before := f.sw.Running()
	f.sw.SetFaults(faults)
	_, err := f.push(t, switchcfg.PushOptions{})
	f.sw.SetFaults(sim.Faults{})
	var pe *switchcfg.PushError
	if !errors.As(err, &pe) {
		t.Fatalf("want a *switchcfg.PushError, got %v", err)
	}
	if !strings.Contains(err.Error(), line) {
		t.Fatalf("the error does not name the failing line %q: %v", line, err)
	}
	if recover != nil {
		recover(pe)
	}
	if got := f.sw.Running(); got != before {
		t.Fatalf("running configuration changed by a failed push (%v):\n%s", err, lineDiff(before, got))
	}
}

// connectionDrop: the connection drops in the middle of loading. A driver
// without a candidate configuration (a Recoverer: NX-OS) recovers over a
// new session from Reconnect; the others never committed, so there is
// nothing to roll back. The switch takes a clean push afterwards.
func connectionDrop(t *testing.T, f *fixture) {
	line := f.middleLine()
	_, recoverer := f.drv.(switchcfg.Recoverer)
	f.reconnect = true
	f.pushFailsCleanly(t, sim.Faults{DropOn: line}, line, func(pe *switchcfg.PushError) {
		if strings.TrimSpace(pe.Line) != line {
			t.Fatalf("PushError.Line %q, want %q", pe.Line, line)
		}
		if recoverer && !pe.RolledBack {
			t.Fatalf("the driver did not recover over a new session: %v", pe)
		}
	})
	f.reconnect = false
	if _, err := f.push(t, switchcfg.PushOptions{}); err != nil {
		t.Fatalf("push after the drop: %v", err)
	}
	if d := f.drift(t); len(d) != 0 {
		t.Fatalf("drift after recovering: %v", d)
	}
}

// recoverAfterDrop: without PushOptions.Reconnect, a Recoverer reports the
// drop unrecovered and names its checkpoint; Recover on a new session
// restores the running configuration and deletes the checkpoint.
func recoverAfterDrop(t *testing.T, f *fixture) {
	line := f.middleLine()
	f.pushFailsCleanly(t, sim.Faults{DropOn: line}, line, func(pe *switchcfg.PushError) {
		if pe.RolledBack {
			t.Fatal("the driver claims a rollback over a dropped connection")
		}
		if want := f.checkpoint(f.pushes); pe.Checkpoint != want {
			t.Fatalf("PushError.Checkpoint %q, want %q", pe.Checkpoint, want)
		}
		if err := f.drv.(switchcfg.Recoverer).Recover(context.Background(), f.sw.Dial(t), pe.Checkpoint); err != nil {
			t.Fatalf("recovering: %v", err)
		}
	})
	if f.spec.ListCheckpoints == "" {
		return
	}
	out, err := f.sw.Dial(t).Send(context.Background(), f.spec.ListCheckpoints)
	if err != nil || strings.Contains(out, f.checkpoint(f.pushes)) {
		t.Errorf("the recovered checkpoint is still on the switch (%v):\n%s", err, out)
	}
}

// confirmTimeout: the confirm of a confirmed commit is lost; the device
// rolls back by itself when the window passes.
func confirmTimeout(t *testing.T, f *fixture) {
	line := f.spec.ConfirmCommand(f.checkpoint(f.pushes + 1))
	f.pushFailsCleanly(t, sim.Faults{DropOn: line}, line, func(pe *switchcfg.PushError) {
		if pe.Step != "confirming" {
			t.Fatalf("failed step %q, want confirming", pe.Step)
		}
		if !f.sw.ConfirmPending() {
			t.Fatal("no confirmed commit is pending after the confirm was lost")
		}
		if !f.sw.ExpireConfirm() {
			t.Fatal("no confirm timer to expire")
		}
	})
	if f.sw.Stats().AutoRollbacks != 1 {
		t.Fatalf("stats %+v", f.sw.Stats())
	}
}

// intentVariants depart from the lab intent in the ways profiles do, so the
// simulators' grammars are checked against more of what the drivers render.
var intentVariants = map[string]func(in *fabric.SwitchIntent){
	"pcp-trust": func(in *fabric.SwitchIntent) {
		in.Trust = "pcp"
		for i := range in.Classes {
			in.Classes[i].DSCP = nil
		}
	},
	"lossy-ecn": func(in *fabric.SwitchIntent) {
		in.PFC.Priorities, in.PFC.Watchdog = []int{}, &fabric.SwitchPFCWatchdog{}
		in.Classes[1].Lossless = false
	},
	"queue-shift": func(in *fabric.SwitchIntent) {
		in.Classes[1].TrafficClass, in.Classes[1].Queue = 4, 4
	},
	"watchdog-off": func(in *fabric.SwitchIntent) {
		in.PFC.Watchdog = &fabric.SwitchPFCWatchdog{}
	},
}

// variant pushes the lab intent, then a variant of it on top: the driver
// must remove what the variant no longer wants, and the simulator must take
// its "no"/unset/delete lines.
func variant(t *testing.T, f *fixture, vary func(*fabric.SwitchIntent)) {
	if _, err := f.push(t, switchcfg.PushOptions{}); err != nil {
		t.Fatalf("pushing the lab intent: %v", err)
	}
	vary(&f.intent)
	var err error
	if f.cfg, err = f.drv.Render(f.intent); errors.Is(err, switchcfg.ErrNotSupported) {
		t.Skipf("%s cannot express it: %v", f.drv.Info().Name, err)
	} else if err != nil {
		t.Fatal(err)
	}
	if _, err = f.push(t, switchcfg.PushOptions{}); err != nil {
		t.Fatalf("push: %v", err)
	}
	if d := f.drift(t); len(d) != 0 {
		t.Fatalf("drift after the push: %v", d)
	}
}

// lineDiff lists the lines only one of a and b has.
func lineDiff(a, b string) string {
	seen := map[string]int{}
	for _, l := range strings.Split(a, "\n") {
		seen[l]++
	}
	var out []string
	for _, l := range strings.Split(b, "\n") {
		if seen[l] > 0 {
			seen[l]--
			continue
		}
		out = append(out, "+"+l)
	}
	for l, n := range seen {
		for ; n > 0; n-- {
			out = append(out, "-"+l)
		}
	}
	return strings.Join(out, "\n")
}

// PushObserve pushes the lab intent to a fresh simulator of d's platform
// and checks that observing it finds no drift: the least a registered
// platform's simulator must do.
func PushObserve(t *testing.T, d switchcfg.Driver) {
	t.Helper()
	f := newFixture(t, d, Simulated{})
	if _, err := f.push(t, switchcfg.PushOptions{}); err != nil {
		t.Fatalf("push: %v", err)
	}
	if diffs := f.drift(t); len(diffs) != 0 {
		t.Fatalf("drift right after the push: %v", diffs)
	}
}
