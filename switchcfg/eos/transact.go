package eos

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/fabricctl/fabricctl/switchcfg"
)

// Session states as `show configuration sessions` prints them.
const (
	statePending     = "pending"            // being edited, or left: not committed
	stateTimer       = "pendingCommitTimer" // committed, rolled back when the timer ends unless confirmed
	stateCompleted   = "completed"          // committed for good (or rolled back by its timer)
	stateNone        = ""                   // no such session: never opened, or aborted
	showSessionsCmd  = "show configuration sessions"
	saveCmd          = "copy running-config startup-config"
	sessionDiffsCmd  = "show session-config diffs"
	abortInSession   = "abort"
	notSavedAfterAll = "the change is committed and running but not saved to startup-config"
)

// push is one Push in progress.
type push struct {
	ctx     context.Context
	rc      *switchcfg.Recovery
	c       *switchcfg.Confirmed
	session string
	res     switchcfg.PushResult
	// inSession is true while the session in use is inside the
	// configuration session (before the commit timer).
	inSession bool
}

// send runs one command on the session in use. The Session reports a
// command EOS rejects as a *switchcfg.LineError (switchcfg.Session's
// contract).
func (p *push) send(ctx context.Context, cmd string) (string, error) {
	return p.rc.Session().Send(ctx, cmd)
}

// do runs cmd on the session in use, or on a new one when that is lost.
func (p *push) do(ctx context.Context, cmd string) (out string, err error) {
	first := p.rc.Session()
	err = p.rc.Do(ctx, func(s switchcfg.Session) error {
		out, err = s.Send(ctx, cmd)
		return err
	})
	p.reconnected(first)
	return out, err
}

// reconnected notes that a new session, which starts at exec level, may
// have replaced first.
func (p *push) reconnected(first switchcfg.Session) {
	if p.rc.Session() != first {
		p.inSession = false
	}
}

func (p *push) fail(step, line string, cause error) *switchcfg.PushError {
	return p.c.Fail(step, line, cause)
}

func (p *push) done(pe *switchcfg.PushError) (switchcfg.PushResult, error) { return p.c.Done(pe) }

func (p *push) abortByName() string   { return "configure session " + p.session + " abort" }
func (p *push) confirmByName() string { return "configure session " + p.session + " commit" }

// state asks EOS for the configuration session's state, on the session in
// use or, when that is lost, on a new one (which starts at exec level).
func (p *push) state(ctx context.Context) (string, error) {
	var st string
	defer p.reconnected(p.rc.Session())
	err := p.rc.Do(ctx, func(s switchcfg.Session) error {
		out, err := s.Send(ctx, showSessionsCmd)
		if err != nil {
			return err
		}
		st = sessionState(out, p.session)
		return nil
	})
	return st, err
}

// sessionState finds name's state in `show configuration sessions`.
func sessionState(out, name string) string {
	for _, l := range strings.Split(out, "\n") {
		f := strings.Fields(strings.TrimPrefix(strings.TrimSpace(l), "*"))
		if len(f) >= 2 && f[0] == name {
			return f[1]
		}
	}
	return stateNone
}

// Push applies cfg through an EOS configuration session:
//
//	configure session <name>
//	<each line of cfg>
//	show session-config diffs
//	commit timer <hh:mm:ss>          (nothing differs, or DryRun: abort)
//	(PushOptions.Verify)             a difference: configure session <name> abort (rolls back now)
//	configure session <name> commit  (confirms; otherwise EOS rolls back when the timer expires)
//	copy running-config startup-config
//
// A rejected line, or any failure before the commit, aborts the session, so
// the running configuration is untouched. When the connection is lost,
// Push reconnects (PushOptions.Reconnect) and reads the session's state
// (`show configuration sessions`): pending means nothing was committed
// (abort it), pendingCommitTimer means committed and not confirmed (verify,
// then confirm or abort), completed means confirmed; a lost save is sent
// again.
func (d *Driver) Push(ctx context.Context, s switchcfg.Session, cfg switchcfg.Config, o switchcfg.PushOptions) (switchcfg.PushResult, error) {
	if cfg.Platform != Platform {
		return switchcfg.PushResult{}, fmt.Errorf("pushing to %s: config rendered for %q", Platform, cfg.Platform)
	}
	p := &push{ctx: ctx, rc: switchcfg.NewRecovery(s, o), session: sessionName(o, time.Now())}
	defer p.rc.Close()
	p.c = &switchcfg.Confirmed{Platform: Platform, Opt: o, Recovery: p.rc, Result: &p.res, ConfirmLine: p.confirmByName(),
		Pending: func(ctx context.Context) (bool, error) {
			st, err := p.state(ctx)
			return st == stateTimer, err
		},
		Confirm: func(ctx context.Context) error {
			_, err := p.send(ctx, p.confirmByName())
			return err
		},
		RollBack: func(ctx context.Context) error {
			_, err := p.do(ctx, p.abortByName())
			return err
		},
		NotCommitted: p.abort,
		Finish:       p.save}
	open := "configure session " + p.session
	if _, err := p.send(ctx, open); err != nil {
		if !switchcfg.Lost(err) {
			// EOS refused: no session was opened, nothing changed.
			pe := p.fail("loading", open, err)
			pe.RolledBack = true
			return p.done(pe)
		}
		return p.abort("loading", open, err)
	}
	p.inSession = true
	for _, l := range cfg.Lines() {
		if _, err := p.send(ctx, l); err != nil {
			return p.abort("loading", l, err)
		}
	}
	out, err := p.send(ctx, sessionDiffsCmd)
	if err != nil {
		return p.abort("diffing", sessionDiffsCmd, err)
	}
	p.res.Diff = sessionDiff(out)
	p.res.Changed = p.res.Diff != ""
	if !p.res.Changed || o.DryRun {
		if _, err := p.send(ctx, abortInSession); err != nil {
			return p.res, &switchcfg.PushError{Platform: Platform, Step: "diffing", Line: abortInSession, Err: err}
		}
		return p.res, nil
	}
	timer := "commit timer " + hhmmss(o.Timeout())
	if _, err := p.send(ctx, timer); err != nil {
		if !switchcfg.Lost(err) {
			return p.abort("committing", timer, err)
		}
		return p.c.AfterLost(ctx, "committing", timer, err)
	}
	p.inSession = false
	return p.c.VerifyAndConfirm(ctx)
}

// abort discards the uncommitted configuration session: with "abort"
// inside it when the session in use is there, else by name from exec level
// (on a new session when the connection was lost).
func (p *push) abort(step, line string, cause error) (switchcfg.PushResult, error) {
	ctx, cancel := switchcfg.RecoveryContext(p.ctx)
	defer cancel()
	pe := p.fail(step, line, cause)
	if p.inSession {
		if _, err := p.send(ctx, abortInSession); err == nil {
			pe.RolledBack = true
			return p.done(pe)
		} else if !switchcfg.Lost(err) {
			pe.Err = errors.Join(cause, fmt.Errorf("aborting configuration session %s: %w", p.session, err))
			return p.done(pe)
		}
	}
	st, err := p.state(ctx)
	switch {
	case err != nil:
		pe.Err = errors.Join(cause, fmt.Errorf("aborting configuration session %s (it may stay pending on the switch; %q discards it): %w",
			p.session, p.abortByName(), err))
		return p.done(pe)
	case st == stateNone:
		pe.RolledBack = true // never opened: nothing to discard
		return p.done(pe)
	case st != statePending:
		pe.Err = errors.Join(cause, fmt.Errorf("configuration session %s is %s, not pending", p.session, st))
		return p.done(pe)
	}
	if _, err := p.send(ctx, p.abortByName()); err != nil {
		pe.Err = errors.Join(cause, fmt.Errorf("aborting configuration session %s: %w", p.session, err))
	} else {
		pe.RolledBack = true
	}
	return p.done(pe)
}

// save copies the committed change to startup-config; a lost reply is sent
// again (on a new session), a refusal leaves the change running unsaved.
func (p *push) save(ctx context.Context) (switchcfg.PushResult, error) {
	if _, err := p.send(ctx, saveCmd); err != nil {
		if switchcfg.Lost(err) {
			rctx, cancel := switchcfg.RecoveryContext(ctx)
			defer cancel()
			_, err = p.do(rctx, saveCmd)
		}
		if err != nil {
			return p.done(p.fail("saving", saveCmd, fmt.Errorf("%w; %s", err, notSavedAfterAll)))
		}
	}
	p.res.Committed = true
	return p.res, nil
}

// sessionDiff keeps the changed lines of `show session-config diffs` (a
// unified diff): empty when nothing differs.
func sessionDiff(out string) string {
	changed := false
	for _, l := range strings.Split(out, "\n") {
		if (strings.HasPrefix(l, "+") && !strings.HasPrefix(l, "+++")) ||
			(strings.HasPrefix(l, "-") && !strings.HasPrefix(l, "---")) {
			changed = true
			break
		}
	}
	if !changed {
		return ""
	}
	return strings.TrimSpace(out)
}

// sessionName is PushOptions.CheckpointName, or a name unique to the
// nanosecond: EOS refuses to reopen a completed session, so two pushes within
// one second must not share the default name.
func sessionName(o switchcfg.PushOptions, now time.Time) string {
	if o.CheckpointName != "" {
		return o.CheckpointName
	}
	return fmt.Sprintf("%s-%09d", o.Checkpoint(now), now.Nanosecond())
}

// hhmmss formats a duration for `commit timer` (at least one second).
func hhmmss(d time.Duration) string {
	s := int(d.Round(time.Second) / time.Second)
	if s < 1 {
		s = 1
	}
	return fmt.Sprintf("%02d:%02d:%02d", s/3600, s/60%60, s%60)
}
