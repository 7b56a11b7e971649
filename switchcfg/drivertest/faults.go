package drivertest

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/switchcfg"
	"github.com/fabricctl/fabricctl/switchcfg/sim"
)

// verifyFailure: the commit succeeds, then the read-back differs from the
// intent (an out-of-band edit lands right after the commit, as another
// session or the NOS itself would make it). The driver must restore the
// configuration from before the push, say so, and leave no confirm timer
// running; a clean push works afterwards.
func verifyFailure(t *testing.T, f *fixture) {
	before := f.sw.Running()
	verify := switchcfg.VerifyIntent(f.drv, f.intent)
	field, calls := "", 0
	res, err := f.push(t, switchcfg.PushOptions{Verify: func(ctx context.Context, s switchcfg.Session) error {
		calls++
		if calls == 1 {
			field = f.spec.DriftEdit(t, f.sw, f.cfg)
		}
		return verify(ctx, s)
	}})
	if calls == 0 {
		t.Fatalf("the driver never called PushOptions.Verify (push: %+v, %v)", res, err)
	}
	var pe *switchcfg.PushError
	if !errors.As(err, &pe) || pe.Step != "verifying" {
		t.Fatalf("want a *PushError at step verifying, got %v", err)
	}
	var ve *switchcfg.VerifyError
	if !errors.As(err, &ve) || !strings.Contains(err.Error(), field) {
		t.Errorf("the error does not carry the read-back's difference (%s): %v", field, err)
	}
	if !pe.RolledBack || !res.RolledBack || res.Committed {
		t.Errorf("not reported rolled back: result %+v, error %v", res, err)
	}
	if got := f.sw.Running(); got != before {
		t.Fatalf("a failed verify left the change (%v):\n%s", err, lineDiff(before, got))
	}
	if f.sw.ConfirmPending() {
		t.Fatal("a confirm timer still runs after the rollback")
	}
	if _, err := f.push(t, switchcfg.PushOptions{Verify: verify}); err != nil {
		t.Fatalf("clean push afterwards: %v", err)
	}
	if d := f.drift(t); len(d) != 0 {
		t.Fatalf("drift after the clean push: %v", d)
	}
}

// faultStep is one command of a push and the fault armed on it.
type faultStep struct {
	command   string
	fault     string // "drop" (before it runs) or "lose-reply" (after it ran)
	reconnect bool
}

// lostConnections is the fault matrix of a driver: for every step of a
// push (every command it sends but the configuration lines, of which the
// first, middle and last stand for the rest), the connection drops before
// the command runs, or after it ran and before its reply (the reply is
// lost), with and without PushOptions.Reconnect. Each case runs on a fresh
// simulator and must end truthfully:
//
//   - no error: the push committed and the switch runs the intent, no
//     confirm timer pending;
//   - with Reconnect, any error is a *PushError that reports a rollback
//     the switch shows (running configuration as before, nothing pending):
//     the driver reconnected, read back and finished the transaction one
//     way or the other;
//   - without Reconnect, a *PushError that claims a rollback is true, one
//     that says the switch will roll back by itself has a confirm timer
//     pending (and expiring it restores the configuration), and any other
//     does not claim a rollback;
//   - a *PushError's cause never promises a rollback: only the wording of
//     PushError itself does, from ConfirmPending or Unknown;
//   - an error that is not a *PushError left the switch untouched;
//   - a clean push works afterwards.
func lostConnections(t *testing.T, d switchcfg.Driver, s Simulated) {
	steps, committed := pushSteps(t, d, s)
	for _, st := range steps {
		name := fmt.Sprintf("%s/reconnect=%v/%s", st.fault, st.reconnect, shorten(st.command))
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, d, s)
			f.reconnect = st.reconnect
			before := f.sw.Running()
			faults := sim.Faults{DropOn: st.command}
			if st.fault == "lose-reply" {
				faults = sim.Faults{LoseReplyOn: st.command}
			}
			f.sw.SetFaults(faults)
			res, err := f.push(t, switchcfg.PushOptions{Verify: switchcfg.VerifyIntent(d, f.intent)})
			f.sw.SetFaults(sim.Faults{})
			f.reconnect = true
			checkOutcome(t, f, st, res, err, before, committed)
			if _, err := f.push(t, switchcfg.PushOptions{Verify: switchcfg.VerifyIntent(d, f.intent)}); err != nil {
				t.Fatalf("clean push after the fault: %v", err)
			}
			if diffs := f.drift(t); len(diffs) != 0 {
				t.Fatalf("drift after the clean push: %v", diffs)
			}
		})
	}
}

func checkOutcome(t *testing.T, f *fixture, st faultStep, res switchcfg.PushResult, err error, before, committed string) {
	t.Helper()
	running := f.sw.Running()
	if err == nil {
		if !res.Committed || running != committed || f.sw.ConfirmPending() {
			t.Fatalf("the push reports success (%+v) but the switch does not run the intent, or a confirm is pending (%v):\n%s",
				res, f.sw.ConfirmPending(), lineDiff(committed, running))
		}
		return
	}
	var pe *switchcfg.PushError
	if !errors.As(err, &pe) {
		if running != before || f.sw.ConfirmPending() {
			t.Fatalf("an error that is no *PushError (%v) left the switch changed:\n%s", err, lineDiff(before, running))
		}
		return
	}
	t.Logf("%v", err)
	if promise.MatchString(pe.Err.Error()) {
		t.Errorf("the cause promises a rollback (only PushError's own ConfirmPending/Unknown wording may): %v", pe.Err)
	}
	switch {
	case pe.RolledBack:
		if running != before || f.sw.ConfirmPending() {
			t.Fatalf("the error claims a rollback (%v), but the switch changed (confirm pending %v):\n%s",
				err, f.sw.ConfirmPending(), lineDiff(before, running))
		}
	case st.reconnect:
		t.Fatalf("with Reconnect the driver must finish the transaction (commit or roll back), got %v", err)
	case pe.ConfirmPending:
		if !f.sw.ConfirmPending() || !f.sw.ExpireConfirm() {
			t.Fatalf("the error says the switch rolls back by itself, but no confirm is pending: %v", err)
		}
		if got := f.sw.Running(); got != before {
			t.Fatalf("the confirm timer did not restore the configuration:\n%s", lineDiff(before, got))
		}
	case strings.Contains(err.Error(), "(rolled back)") || strings.Contains(err.Error(), "rolls the change back by itself"):
		t.Fatalf("the message claims a rollback the error does not: %v", err)
	}
	if f.sw.ConfirmPending() {
		f.sw.ExpireConfirm() // leave the switch as the next push expects it
	}
}

// promise matches a sentence that says a rollback will happen.
var promise = regexp.MustCompile(`(?i)\brolls? (\w+ ){0,2}back\b|\bwill (be )?roll`)

// pushSteps runs a clean push on a scratch simulator and returns the fault
// matrix over its commands, and the running configuration it committed.
func pushSteps(t *testing.T, d switchcfg.Driver, s Simulated) ([]faultStep, string) {
	t.Helper()
	f := newFixture(t, d, s)
	f.sw.Dial(t) // a session's opening commands are not the push's
	opening := len(f.sw.Commands())
	if _, err := f.push(t, switchcfg.PushOptions{Verify: switchcfg.VerifyIntent(d, f.intent)}); err != nil {
		t.Fatalf("clean push: %v", err)
	}
	sent := f.sw.Commands()[opening:]
	onOpen := f.sw.Commands()[:opening]
	sent = sent[len(onOpen):] // the push's own session opened the same way first
	config := map[string]bool{}
	for _, l := range f.cfg.Lines() {
		config[strings.TrimSpace(l)] = true
	}
	var loads []string
	var cmds []string
	for _, c := range sent {
		c = strings.TrimSpace(c)
		switch {
		case c == "" || slices.Contains(cmds, c) || slices.Contains(loads, c):
		case config[c]:
			loads = append(loads, c)
		default:
			cmds = append(cmds, c)
		}
	}
	if len(loads) > 0 {
		for _, c := range []string{loads[0], loads[len(loads)/2], loads[len(loads)-1]} {
			if !slices.Contains(cmds, c) {
				cmds = append(cmds, c)
			}
		}
	}
	var steps []faultStep
	for _, c := range cmds {
		steps = append(steps,
			faultStep{command: c, fault: "drop", reconnect: true},
			faultStep{command: c, fault: "lose-reply", reconnect: true},
			faultStep{command: c, fault: "lose-reply", reconnect: false})
	}
	return steps, f.sw.Running()
}

// shorten makes a command fit a subtest name.
func shorten(c string) string {
	c = strings.ReplaceAll(strings.Join(strings.Fields(c), "_"), "/", "")
	if len(c) > 48 {
		c = c[:48]
	}
	return c
}
