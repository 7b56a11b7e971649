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

// abortTimeout bounds the discard sent after a failure, which runs even when
// the caller's context is already cancelled.
const abortTimeout = 30 * time.Second

// push is one Push in progress.
type push struct {
	ctx context.Context
	s   switchcfg.Session
}

// send runs one command. The Session reports a command Junos rejects as a
// *switchcfg.LineError (switchcfg.Session's contract).
func (p *push) send(ctx context.Context, cmd string) (string, error) { return p.s.Send(ctx, cmd) }

// commit runs a commit command and insists on "commit complete".
func (p *push) commit(cmd string) error {
	out, err := p.send(p.ctx, cmd)
	if err == nil && !strings.Contains(out, commitComplete) {
		err = &switchcfg.LineError{Line: cmd, Message: "no \"commit complete\" in the reply: " + strings.TrimSpace(out)}
	}
	return err
}

// discard throws the private candidate away and leaves configuration mode.
func (p *push) discard() error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(p.ctx), abortTimeout)
	defer cancel()
	if _, err := p.send(ctx, "rollback 0"); err != nil {
		return err
	}
	_, err := p.send(ctx, "exit")
	return err
}

// fail discards the candidate and builds the PushError.
func (p *push) fail(res *switchcfg.PushResult, step, line string, cause error) error {
	pe := &switchcfg.PushError{Platform: Platform, Step: step, Line: line, Err: cause}
	if err := p.discard(); err != nil {
		pe.Err = errors.Join(cause, fmt.Errorf("discarding the private candidate: %w", err))
	} else {
		pe.RolledBack = true
	}
	res.RolledBack = pe.RolledBack
	return pe
}

// Push applies cfg in a private candidate configuration:
//
//	configure private
//	<each delete and set statement>
//	show | compare
//	rollback 0 + exit                 no difference, dry run, or any failure before the commit
//	commit confirmed <minutes>        PushOptions.Timeout(), rounded up to whole minutes
//	commit                            confirms; without it Junos rolls back when the minutes end
//	exit
//
// Junos commits are persistent, so there is no separate save.
func (d *Driver) Push(ctx context.Context, s switchcfg.Session, cfg switchcfg.Config, o switchcfg.PushOptions) (switchcfg.PushResult, error) {
	var res switchcfg.PushResult
	if cfg.Platform != Platform {
		return res, fmt.Errorf("pushing to %s: config rendered for %q", Platform, cfg.Platform)
	}
	lines := cfg.Lines()
	for _, l := range lines {
		if t := strings.TrimSpace(l); !strings.HasPrefix(t, "set ") && !strings.HasPrefix(t, "delete ") {
			return res, fmt.Errorf("pushing to %s: %q is not a set or delete statement", Platform, l)
		}
	}
	p := &push{ctx: ctx, s: s}
	const open = "configure private"
	if _, err := p.send(ctx, open); err != nil {
		res.RolledBack = switchcfg.FailedLine(err) != ""
		return res, &switchcfg.PushError{Platform: Platform, Step: "loading", Line: open, Err: err, RolledBack: res.RolledBack}
	}
	for _, l := range lines {
		if _, err := p.send(ctx, l); err != nil {
			return res, p.fail(&res, "loading", l, err)
		}
	}
	const compare = "show | compare"
	out, err := p.send(ctx, compare)
	if err != nil {
		return res, p.fail(&res, "diffing", compare, err)
	}
	res.Diff = compareDiff(out)
	res.Changed = res.Diff != ""
	if !res.Changed || o.DryRun {
		if err := p.discard(); err != nil {
			return res, &switchcfg.PushError{Platform: Platform, Step: "diffing", Line: "rollback 0", Err: err}
		}
		return res, nil
	}
	minutes := int((o.Timeout() + time.Minute - 1) / time.Minute)
	confirmed := fmt.Sprintf("commit confirmed %d", minutes)
	if err := p.commit(confirmed); err != nil {
		return res, p.fail(&res, "committing", confirmed, err)
	}
	if err := p.commit("commit"); err != nil {
		return res, &switchcfg.PushError{Platform: Platform, Step: "confirming", Line: "commit",
			Err: fmt.Errorf("%w; Junos rolls back the confirmed commit after %d minutes", err, minutes)}
	}
	res.Committed = true
	// The change is committed and confirmed; a failure to leave configuration
	// mode changes nothing on the switch.
	_, _ = p.send(ctx, "exit")
	return res, nil
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
