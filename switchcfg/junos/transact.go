package junos

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/fabricctl/fabricctl/switchcfg"
)

// commitComplete is what Junos prints when a commit succeeded.
const commitComplete = "commit complete"

// pendingConfirm is how `show system commit` lists a confirmed commit
// that waits for its confirmation ("… via cli commit confirmed, rollback
// in 2mins").
const pendingConfirm = "commit confirmed, rollback in"

// push is one Push in progress.
type push struct {
	ctx context.Context
	rc  *switchcfg.Recovery
	c   *switchcfg.Confirmed
	res switchcfg.PushResult
	// inConfig is true while the session in use is in configuration mode
	// (a new session after a lost connection starts in operational mode).
	inConfig bool
	minutes  int
}

// send runs one command on the session in use. The Session reports a
// command Junos rejects as a *switchcfg.LineError (switchcfg.Session's
// contract).
func (p *push) send(ctx context.Context, cmd string) (string, error) {
	return p.rc.Session().Send(ctx, cmd)
}

// commit runs a commit command and insists on "commit complete".
func (p *push) commit(ctx context.Context, cmd string) error {
	out, err := p.send(ctx, cmd)
	if err == nil && !strings.Contains(out, commitComplete) {
		err = &switchcfg.LineError{Line: cmd, Message: "no \"commit complete\" in the reply: " + strings.TrimSpace(out)}
	}
	return err
}

func (p *push) fail(step, line string, cause error) *switchcfg.PushError {
	return p.c.Fail(step, line, cause)
}

func (p *push) done(pe *switchcfg.PushError) (switchcfg.PushResult, error) { return p.c.Done(pe) }

// discard throws the private candidate away and leaves configuration
// mode. A private candidate also dies with its session, so after a lost
// connection nothing uncommitted remains on the switch.
func (p *push) discard(step, line string, cause error) (switchcfg.PushResult, error) {
	pe := p.fail(step, line, cause)
	if switchcfg.Lost(cause) {
		pe.RolledBack = true // no commit was sent; the private candidate went with the session
		return p.done(pe)
	}
	ctx, cancel := switchcfg.RecoveryContext(p.ctx)
	defer cancel()
	_, err := p.send(ctx, "rollback 0")
	if err == nil {
		_, err = p.send(ctx, "exit")
	}
	switch {
	case err == nil || switchcfg.Lost(err):
		pe.RolledBack = true
	default:
		pe.Err = errors.Join(cause, fmt.Errorf("discarding the private candidate: %w", err))
	}
	return p.done(pe)
}

// Push applies cfg in a private candidate configuration:
//
//	configure private
//	<each delete and set statement>
//	show | compare
//	rollback 0 + exit                 no difference, dry run, or any failure before the commit
//	commit confirmed <minutes>        PushOptions.Timeout(), rounded up to whole minutes
//	(PushOptions.Verify)              through "run show …"; a difference: rollback 1 + commit
//	commit                            confirms; without it Junos rolls back when the minutes end
//	exit
//
// Junos commits are persistent, so there is no separate save. When the
// connection is lost after the commit was sent, Push reconnects
// (PushOptions.Reconnect) and reads `show system commit`: a confirmed
// commit still pending is verified and confirmed (or rolled back); none
// pending means the commit never ran (before the confirm) or the confirm
// took (after it).
func (d *Driver) Push(ctx context.Context, s switchcfg.Session, cfg switchcfg.Config, o switchcfg.PushOptions) (switchcfg.PushResult, error) {
	if cfg.Platform != Platform {
		return switchcfg.PushResult{}, fmt.Errorf("pushing to %s: config rendered for %q", Platform, cfg.Platform)
	}
	lines := cfg.Lines()
	for _, l := range lines {
		if t := strings.TrimSpace(l); !strings.HasPrefix(t, "set ") && !strings.HasPrefix(t, "delete ") {
			return switchcfg.PushResult{}, fmt.Errorf("pushing to %s: %q is not a set or delete statement", Platform, l)
		}
	}
	p := &push{ctx: ctx, rc: switchcfg.NewRecovery(s, o), minutes: int((o.Timeout() + time.Minute - 1) / time.Minute)}
	defer p.rc.Close()
	o.ConfirmTimeout = time.Duration(p.minutes) * time.Minute // what Junos was told: the window of the messages
	p.c = &switchcfg.Confirmed{Platform: Platform, Opt: o, Recovery: p.rc, Result: &p.res, ConfirmLine: "commit",
		Pending:  p.confirmPending,
		Confirm:  p.confirm,
		RollBack: p.restore,
		NotCommitted: func(step, line string, cause error) (switchcfg.PushResult, error) {
			pe := p.fail(step, line, cause)
			pe.RolledBack = true // no confirmed commit pending and none confirmed: it never ran
			return p.done(pe)
		},
		VerifySession: func() switchcfg.Session {
			if p.inConfig {
				return runSession{p.rc.Session()}
			}
			return p.rc.Session()
		},
		Finish: func(ctx context.Context) (switchcfg.PushResult, error) {
			p.res.Committed = true
			// The change is committed and confirmed; a failure to leave
			// configuration mode changes nothing on the switch.
			_, _ = p.send(ctx, "exit")
			return p.res, nil
		}}
	const open = "configure private"
	if _, err := p.send(ctx, open); err != nil {
		pe := p.fail("loading", open, err)
		pe.RolledBack = true // nothing can have changed: no candidate was opened, or it died with the session
		return p.done(pe)
	}
	p.inConfig = true
	for _, l := range lines {
		if _, err := p.send(ctx, l); err != nil {
			return p.discard("loading", l, err)
		}
	}
	const compare = "show | compare"
	out, err := p.send(ctx, compare)
	if err != nil {
		return p.discard("diffing", compare, err)
	}
	p.res.Diff = compareDiff(out)
	p.res.Changed = p.res.Diff != ""
	if !p.res.Changed || o.DryRun {
		_, err := p.send(ctx, "rollback 0")
		if err == nil {
			_, err = p.send(ctx, "exit")
		}
		if err != nil && !switchcfg.Lost(err) {
			return p.res, &switchcfg.PushError{Platform: Platform, Step: "diffing", Line: "rollback 0", Err: err}
		}
		return p.res, nil
	}
	confirmed := fmt.Sprintf("commit confirmed %d", p.minutes)
	if err := p.commit(ctx, confirmed); err != nil {
		if !switchcfg.Lost(err) {
			return p.discard("committing", confirmed, err)
		}
		return p.c.AfterLost(ctx, "committing", confirmed, err)
	}
	return p.c.VerifyAndConfirm(ctx)
}

// confirm sends the confirming commit, entering configuration mode first
// on a session that is not in it.
func (p *push) confirm(ctx context.Context) error {
	if !p.inConfig {
		if _, err := p.send(ctx, "configure private"); err != nil {
			return err
		}
		p.inConfig = true
	}
	return p.commit(ctx, "commit")
}

// restore loads rollback 1 into a private candidate and commits it.
func (p *push) restore(ctx context.Context) error {
	if !p.inConfig {
		if _, err := p.send(ctx, "configure private"); err != nil {
			return err
		}
		p.inConfig = true
	}
	if _, err := p.send(ctx, "rollback 1"); err != nil {
		return err
	}
	if err := p.commit(ctx, "commit"); err != nil {
		return err
	}
	_, _ = p.send(ctx, "exit")
	p.inConfig = false
	return nil
}

// confirmPending reads `show system commit` on the session in use, or on a
// new one (in operational mode) when that is lost: is the newest commit a
// confirmed commit still waiting?
func (p *push) confirmPending(ctx context.Context) (bool, error) {
	var out string
	first := p.rc.Session()
	err := p.rc.Do(ctx, func(s switchcfg.Session) error {
		cmd := "show system commit"
		if p.inConfig && s == first {
			cmd = "run " + cmd
		}
		var err error
		out, err = s.Send(ctx, cmd)
		return err
	})
	if p.rc.Session() != first {
		p.inConfig = false // a new session starts in operational mode
	}
	if err != nil {
		return false, err
	}
	for _, l := range strings.Split(out, "\n") {
		if f := strings.Fields(l); len(f) > 0 && f[0] == "0" {
			return strings.Contains(l, pendingConfirm), nil
		}
	}
	return false, fmt.Errorf("no newest commit in %q", strings.TrimSpace(out))
}

// compareDiff keeps `show | compare` output when it holds changes (lines
// starting with + or -), else returns "".
func compareDiff(out string) string {
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "+") || strings.HasPrefix(l, "-") {
			return strings.TrimSpace(out)
		}
	}
	return ""
}

// runSession runs operational commands from configuration mode ("run …"),
// so a read-back can happen inside the transaction.
type runSession struct{ switchcfg.Session }

func (r runSession) Send(ctx context.Context, cmd string) (string, error) {
	return r.Session.Send(ctx, "run "+cmd)
}
