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
	opt     switchcfg.PushOptions
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
	err = p.rc.Do(ctx, func(s switchcfg.Session) error {
		out, err = s.Send(ctx, cmd)
		return err
	})
	return out, err
}

func (p *push) fail(step, line string, cause error) *switchcfg.PushError {
	return &switchcfg.PushError{Platform: Platform, Step: step, Line: line, Err: cause, Window: p.opt.Timeout()}
}

func (p *push) done(pe *switchcfg.PushError) (switchcfg.PushResult, error) {
	p.res.RolledBack = pe.RolledBack
	return p.res, pe
}

func (p *push) abortByName() string   { return "configure session " + p.session + " abort" }
func (p *push) confirmByName() string { return "configure session " + p.session + " commit" }

// state asks EOS for the configuration session's state, on the session in
// use or, when that is lost, on a new one (which starts at exec level).
func (p *push) state(ctx context.Context) (string, error) {
	var st string
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
	p := &push{ctx: ctx, rc: switchcfg.NewRecovery(s, o), opt: o, session: sessionName(o, time.Now())}
	defer p.rc.Close()
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
		return p.afterLost("committing", timer, err)
	}
	p.inSession = false
	return p.verifyAndConfirm()
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

// afterLost reads the session's state after a commit or confirm whose reply
// was lost and finishes the transaction from there.
func (p *push) afterLost(step, line string, cause error) (switchcfg.PushResult, error) {
	ctx, cancel := switchcfg.RecoveryContext(p.ctx)
	defer cancel()
	p.inSession = false
	st, err := p.state(ctx)
	if err != nil {
		pe := p.fail(step, line, fmt.Errorf("%w; asking the switch what it did: %w", cause, err))
		pe.Unknown = true
		return p.done(pe)
	}
	switch st {
	case statePending:
		return p.abort(step, line, cause) // the commit never ran
	case stateTimer:
		if step == "confirming" {
			if _, err := p.send(ctx, p.confirmByName()); err != nil { // send it again, once
				return p.rollBack(step, line, errors.Join(cause, fmt.Errorf("confirming again: %w", err)))
			}
			return p.save()
		}
		return p.verifyAndConfirm()
	case stateCompleted:
		if p.opt.Verify != nil {
			if err := p.opt.Verify(ctx, p.rc.Session()); err != nil {
				return p.done(p.fail(step, line, fmt.Errorf("%w; session %s is completed, but the read-back differs: %w", cause, p.session, err)))
			}
		}
		return p.save()
	}
	pe := p.fail(step, line, fmt.Errorf("%w; configuration session %s is gone from the switch", cause, p.session))
	pe.Unknown = true
	return p.done(pe)
}

// verifyAndConfirm runs PushOptions.Verify while the commit timer runs,
// then confirms and saves.
func (p *push) verifyAndConfirm() (switchcfg.PushResult, error) {
	if p.opt.Verify != nil {
		if err := p.opt.Verify(p.ctx, p.rc.Session()); err != nil {
			return p.rollBack("verifying", "", err)
		}
	}
	confirm := p.confirmByName()
	if _, err := p.send(p.ctx, confirm); err != nil {
		if switchcfg.Lost(err) {
			return p.afterLost("confirming", confirm, err)
		}
		return p.rollBack("confirming", confirm, err)
	}
	return p.save()
}

// rollBack aborts the session whose commit timer runs: EOS restores the
// configuration from before the commit now. Push never confirmed it, so a
// session that no longer waits for its timer was rolled back.
func (p *push) rollBack(step, line string, cause error) (switchcfg.PushResult, error) {
	ctx, cancel := switchcfg.RecoveryContext(p.ctx)
	defer cancel()
	pe := p.fail(step, line, cause)
	_, err := p.do(ctx, p.abortByName())
	if err == nil {
		pe.RolledBack = true
		return p.done(pe)
	}
	st, serr := p.state(ctx)
	switch {
	case serr != nil:
		// Whether or not the abort ran, nobody confirms the commit.
		pe.ConfirmPending = true
		pe.Err = errors.Join(cause, fmt.Errorf("rolling back with %q: %w", p.abortByName(), errors.Join(err, serr)))
	case st == stateTimer:
		pe.ConfirmPending = true
		pe.Err = errors.Join(cause, fmt.Errorf("rolling back with %q: %w", p.abortByName(), err))
	default:
		pe.RolledBack = true
	}
	return p.done(pe)
}

// save copies the committed change to startup-config; a lost reply is sent
// again (on a new session), a refusal leaves the change running unsaved.
func (p *push) save() (switchcfg.PushResult, error) {
	if _, err := p.send(p.ctx, saveCmd); err != nil {
		if switchcfg.Lost(err) {
			ctx, cancel := switchcfg.RecoveryContext(p.ctx)
			defer cancel()
			_, err = p.do(ctx, saveCmd)
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
