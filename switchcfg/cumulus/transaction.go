package cumulus

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/fabricctl/fabricctl/switchcfg"
)

// NVUE transaction commands (DESIGN.md §5, SWITCH.md). --confirm-yes,
// --confirm-no and --confirm-status are NVUE's options of nv config apply
// for a confirmed apply (the NVUE command reference documents
// --confirm-status; NVIDIA's own NVOS tests use all three).
const (
	cmdDiff   = "nv config diff"
	cmdDetach = "nv config detach"
	// cmdConfirm keeps a confirmed apply. NVIDIA's NVUE reference names
	// the --confirm and --confirm-status options of `nv config apply` but
	// no confirming command; the --confirm-yes option of the same family
	// is what NVIDIA's NVUE answers to (napalm-cumulus confirms with `nv
	// config apply <rev> --confirm-yes`, NVIDIA's training material with
	// `nv config apply --confirm-yes`); a plain `nv config apply -y` applies
	// a new revision instead. -y (assume yes) keeps it non-interactive.
	cmdConfirm       = "nv config apply -y --confirm-yes"
	cmdConfirmNo     = "nv config apply --confirm-no"
	cmdConfirmStatus = "nv config apply --confirm-status"
)

// Push applies cfg as one NVUE revision:
//
//	nv set … / nv unset …              each line of cfg, into the user's pending revision
//	nv config diff                     nothing differs, or DryRun: nv config detach
//	nv config apply -y --confirm <t>s  applied, rolled back by NVUE unless confirmed within t
//	(PushOptions.Verify)               the read-back; a difference: nv config apply --confirm-no
//	nv config apply -y --confirm-yes   confirms (cmdConfirm)
//
// A failure before the apply detaches the pending revision, so the applied
// configuration is untouched. When the connection is lost, Push reconnects
// (PushOptions.Reconnect) and finds out what NVUE did: a pending revision
// still there means the apply never ran (detach it); a confirm still
// pending (--confirm-status) means the apply ran and was not confirmed
// (verify, then confirm or roll back); neither means the confirm took.
// NVUE saves applied revisions to startup (auto-save, the default since
// Cumulus Linux 5.9); fabricctl does not run `nv config save`.
func (d *Driver) Push(ctx context.Context, s switchcfg.Session, cfg switchcfg.Config, opt switchcfg.PushOptions) (switchcfg.PushResult, error) {
	if cfg.Platform != Platform {
		return switchcfg.PushResult{}, fmt.Errorf("pushing to %s: config rendered for %q", Platform, cfg.Platform)
	}
	lines := cfg.Lines()
	for _, l := range lines {
		if !strings.HasPrefix(l, "nv set ") && !strings.HasPrefix(l, "nv unset ") {
			return switchcfg.PushResult{}, fmt.Errorf("pushing to %s: %q is not an nv set/unset line", Platform, l)
		}
	}
	p := &push{ctx: ctx, rc: switchcfg.NewRecovery(s, opt)}
	defer p.rc.Close()
	p.c = &switchcfg.Confirmed{Platform: Platform, Opt: opt, Recovery: p.rc, Result: &p.res, ConfirmLine: cmdConfirm,
		Pending: p.confirmPending,
		Confirm: func(ctx context.Context) error {
			_, err := p.send(ctx, cmdConfirm)
			return err
		},
		RollBack: func(ctx context.Context) error {
			_, err := p.do(ctx, cmdConfirmNo)
			return err
		},
		NotCommitted: p.discard}
	// One line per SendConfig: when the connection drops, the session's
	// error names the line only in its text, and PushError.Line must carry
	// it. NVUE has no configuration mode, so this sends the same bytes.
	for _, l := range lines {
		if out, err := p.rc.Session().SendConfig(ctx, []string{l}); err != nil || deviceError(out) != "" {
			return p.discard("loading", l, errOr(err, out))
		}
	}
	diff, err := p.send(ctx, cmdDiff)
	if err != nil {
		return p.discard("diffing", cmdDiff, err)
	}
	diff = strings.TrimSpace(diff)
	p.res.Diff = diff
	if emptyDiff(diff) || opt.DryRun {
		if _, err := p.send(ctx, cmdDetach); err != nil {
			return switchcfg.PushResult{}, &switchcfg.PushError{Platform: Platform, Step: "detaching", Line: cmdDetach, Err: err}
		}
		if emptyDiff(diff) {
			return switchcfg.PushResult{}, nil
		}
		return switchcfg.PushResult{Changed: true, Diff: diff}, nil
	}
	p.res.Changed = true
	apply := fmt.Sprintf("nv config apply -y --confirm %ds", int(opt.Timeout().Seconds()))
	if _, err := p.send(ctx, apply); err != nil {
		if !switchcfg.Lost(err) {
			return p.discard("committing", apply, err) // refused: nothing applied
		}
		return p.c.AfterLost(ctx, "committing", apply, err)
	}
	return p.c.VerifyAndConfirm(ctx)
}

// push is one Push in progress.
type push struct {
	ctx context.Context
	rc  *switchcfg.Recovery
	c   *switchcfg.Confirmed
	res switchcfg.PushResult
}

// send runs one command through the session in use; NVUE's error output
// becomes an error for sessions that return it without one.
func (p *push) send(ctx context.Context, cmd string) (string, error) {
	out, err := p.rc.Session().Send(ctx, cmd)
	if err == nil && deviceError(out) != "" {
		err = &switchcfg.LineError{Line: cmd, Message: deviceError(out)}
	}
	return out, err
}

// discard detaches the pending revision (over a new session when the
// connection was lost) and reports the failure: nothing was applied.
func (p *push) discard(step, line string, cause error) (switchcfg.PushResult, error) {
	ctx, cancel := switchcfg.RecoveryContext(p.ctx)
	defer cancel()
	pe := p.c.Fail(step, line, cause)
	if _, err := p.do(ctx, cmdDetach); err != nil {
		pe.Err = errors.Join(cause, fmt.Errorf("detaching the pending revision (it may stay on the switch; %q discards it): %w", cmdDetach, err))
	} else {
		pe.RolledBack = true
	}
	return p.c.Done(pe)
}

// do sends cmd on the session in use, or on a new one when that is lost.
func (p *push) do(ctx context.Context, cmd string) (out string, err error) {
	err = p.rc.Do(ctx, func(s switchcfg.Session) error {
		out, err = p.send(ctx, cmd)
		return err
	})
	return out, err
}

// secondsLeft is how --confirm-status says a confirmed apply waits.
var secondsLeft = regexp.MustCompile(`(?i)\b\d+\s*(s|sec|secs|seconds?|m|min|mins|minutes?)\b`)

// confirmPending asks whether a confirmed apply waits for its confirm.
// What --confirm-status prints is not in fabricctl's corpus of captures:
// a time left means pending, "No apply" (or no time) means none.
func (p *push) confirmPending(ctx context.Context) (bool, error) {
	out, err := p.do(ctx, cmdConfirmStatus)
	if err != nil {
		return false, err
	}
	return !strings.Contains(strings.ToLower(out), "no apply") && secondsLeft.MatchString(out), nil
}

// deviceError returns NVUE's error line in out, if any (for sessions that
// return the output of a failed command without an error).
func deviceError(out string) string {
	for _, l := range strings.Split(out, "\n") {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "Error:") || strings.HasPrefix(l, "ERROR:") || strings.HasPrefix(l, "Invalid Command:") {
			return l
		}
	}
	return ""
}

func errOr(err error, out string) error {
	if err != nil {
		return err
	}
	return errors.New(deviceError(out))
}

// emptyDiff reports whether `nv config diff` printed no change.
func emptyDiff(diff string) bool {
	switch strings.Join(strings.Fields(diff), "") {
	case "", "[]", "{}", "-set:{}", "null":
		return true
	}
	return false
}
