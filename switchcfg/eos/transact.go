package eos

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/fabricctl/fabricctl/switchcfg"
)

// rollbackTimeout bounds the abort sent after a failure, which runs even when
// the caller's context is already cancelled.
const rollbackTimeout = 30 * time.Second

// push is one Push in progress.
type push struct {
	ctx     context.Context
	s       switchcfg.Session
	session string
}

// send runs one command. The Session reports a command EOS rejects as a
// *switchcfg.LineError (switchcfg.Session's contract).
func (p *push) send(cmd string) (string, error) { return p.s.Send(p.ctx, cmd) }

// rejected reports whether err is the device refusing a command (it answered,
// so the session is still in a known state) rather than a transport failure.
func rejected(err error) bool { return switchcfg.FailedLine(err) != "" }

// abort discards the configuration session; it reports whether EOS accepted.
func (p *push) abort(cmd string) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(p.ctx), rollbackTimeout)
	defer cancel()
	q := *p
	q.ctx = ctx
	_, err := q.send(cmd)
	return err
}

// fail builds the PushError for a failed step after aborting with abortCmd
// (empty: nothing to abort) and records in res whether the running
// configuration is known to be as before.
func (p *push) fail(res *switchcfg.PushResult, step, line string, cause error, abortCmd string) error {
	pe := &switchcfg.PushError{Platform: Platform, Step: step, Line: line, Err: cause}
	if abortCmd != "" {
		if err := p.abort(abortCmd); err != nil {
			pe.Err = errors.Join(cause, fmt.Errorf("aborting configuration session %s: %w", p.session, err))
		} else {
			pe.RolledBack = true
		}
	}
	res.RolledBack = pe.RolledBack
	return pe
}

// Push applies cfg through an EOS configuration session:
//
//	configure session <name>
//	<each line of cfg>
//	show session-config diffs
//	commit timer <hh:mm:ss>          (nothing differs, or DryRun: abort)
//	configure session <name> commit  (confirms; otherwise EOS rolls back when the timer expires)
//	copy running-config startup-config
//
// A rejected line, or any failure before the commit, aborts the session, so
// the running configuration is untouched. A failure after `commit timer`
// leaves the rollback to the timer.
func (d *Driver) Push(ctx context.Context, s switchcfg.Session, cfg switchcfg.Config, o switchcfg.PushOptions) (switchcfg.PushResult, error) {
	var res switchcfg.PushResult
	if cfg.Platform != Platform {
		return res, fmt.Errorf("pushing to %s: config rendered for %q", Platform, cfg.Platform)
	}
	p := &push{ctx: ctx, s: s, session: sessionName(o, time.Now())}
	open := "configure session " + p.session
	if _, err := p.send(open); err != nil {
		// No session was opened: when EOS refused the command, nothing changed.
		res.RolledBack = rejected(err)
		return res, &switchcfg.PushError{Platform: Platform, Step: "loading", Line: open, Err: err, RolledBack: res.RolledBack}
	}
	for _, l := range cfg.Lines() {
		if _, err := p.send(l); err != nil {
			return res, p.fail(&res, "loading", l, err, "abort")
		}
	}
	const diffCmd = "show session-config diffs"
	out, err := p.send(diffCmd)
	if err != nil {
		return res, p.fail(&res, "diffing", diffCmd, err, "abort")
	}
	res.Diff = sessionDiff(out)
	res.Changed = res.Diff != ""
	if !res.Changed || o.DryRun {
		if err := p.abort("abort"); err != nil {
			return res, &switchcfg.PushError{Platform: Platform, Step: "diffing", Line: "abort", Err: err}
		}
		return res, nil
	}
	timer := "commit timer " + hhmmss(o.Timeout())
	if _, err := p.send(timer); err != nil {
		return res, p.fail(&res, "committing", timer, err, "abort")
	}
	confirm := "configure session " + p.session + " commit"
	if _, err := p.send(confirm); err != nil {
		return res, p.fail(&res, "confirming", confirm, fmt.Errorf("%w; EOS rolls the session back when the commit timer (%s) expires", err, hhmmss(o.Timeout())), "")
	}
	const save = "copy running-config startup-config"
	if _, err := p.send(save); err != nil {
		return res, &switchcfg.PushError{Platform: Platform, Step: "saving", Line: save,
			Err: fmt.Errorf("%w; the change is committed and running but not saved to startup-config", err)}
	}
	res.Committed = true
	return res, nil
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
