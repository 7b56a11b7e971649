package nxos

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/fabricctl/fabricctl/switchcfg"
)

// rollbackTimeout bounds the rollback sent after a failure, which runs even
// when the caller's context is already cancelled.
const rollbackTimeout = 2 * time.Minute

// push is one Push in progress.
type push struct {
	ctx        context.Context
	s          switchcfg.Session
	checkpoint string
	reconnect  func(context.Context) (switchcfg.Session, error) // PushOptions.Reconnect
	spare      switchcfg.Session                                // a session Push opened itself, closed at its end
}

// send runs one command. The Session reports a command NX-OS rejects as a
// *switchcfg.LineError (switchcfg.Session's contract).
func (p *push) send(ctx context.Context, cmd string) (string, error) { return p.s.Send(ctx, cmd) }

// RollbackCommand returns the command that restores the running
// configuration from the checkpoint a Push took (PushOptions.Checkpoint).
// After a connection drop in the middle of a Push, run it on a new session.
func RollbackCommand(checkpoint string) string {
	return "rollback running-config checkpoint " + checkpoint
}

// rollback leaves configuration mode if needed and restores the checkpoint.
func (p *push) rollback(inConfig bool) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(p.ctx), rollbackTimeout)
	defer cancel()
	if inConfig {
		if _, err := p.send(ctx, "end"); err != nil {
			return err
		}
	}
	return rollbackTo(ctx, p.s, p.checkpoint)
}

// rollbackTo sends RollbackCommand; NX-OS reports a failed rollback in its
// output ("Rollback failed."), which becomes a *switchcfg.LineError.
func rollbackTo(ctx context.Context, s switchcfg.Session, checkpoint string) error {
	cmd := RollbackCommand(checkpoint)
	out, err := s.Send(ctx, cmd)
	if err == nil && strings.Contains(strings.ToLower(out), "fail") {
		err = &switchcfg.LineError{Line: cmd, Message: strings.TrimSpace(out)}
	}
	return err
}

// fail rolls back to the checkpoint and builds the PushError. When the
// rollback cannot go through the session (the connection dropped) and
// PushOptions.Reconnect is set, it recovers over a new session.
func (p *push) fail(res *switchcfg.PushResult, step, line string, cause error, inConfig bool) error {
	pe := &switchcfg.PushError{Platform: Platform, Step: step, Line: line, Err: cause, Checkpoint: p.checkpoint}
	err := p.rollback(inConfig)
	if err != nil && p.reconnect != nil && switchcfg.FailedLine(err) == "" {
		if err = p.recover(); err == nil {
			cause = fmt.Errorf("%w; restored checkpoint %s on a new session", cause, p.checkpoint)
			pe.Err = cause
		}
	}
	if err != nil {
		pe.Err = errors.Join(cause, fmt.Errorf("rolling back to checkpoint %s (run %q on a new session): %w",
			p.checkpoint, RollbackCommand(p.checkpoint), err))
	} else {
		pe.RolledBack = true
	}
	res.RolledBack = pe.RolledBack
	return pe
}

// recover dials a new session with PushOptions.Reconnect and runs Recover.
func (p *push) recover() error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(p.ctx), rollbackTimeout)
	defer cancel()
	s, err := p.reconnect(ctx)
	if err != nil {
		return fmt.Errorf("reconnecting: %w", err)
	}
	defer s.Close()
	return New().Recover(ctx, s, p.checkpoint)
}

// Recover restores the running configuration from checkpoint through s (a
// new session after a push lost its connection), verifies that the rollback
// patch against the checkpoint is now empty, and deletes the checkpoint. On
// any failure the checkpoint stays and the error says what failed.
//
//	rollback running-config checkpoint <name>
//	show diff rollback-patch checkpoint <name> running-config   (must be empty)
//	no checkpoint <name>
func (d *Driver) Recover(ctx context.Context, s switchcfg.Session, checkpoint string) error {
	if err := rollbackTo(ctx, s, checkpoint); err != nil {
		return fmt.Errorf("recovering %s: rolling back to checkpoint %s: %w", Platform, checkpoint, err)
	}
	out, err := s.Send(ctx, diffCommand(checkpoint))
	if err != nil {
		return fmt.Errorf("recovering %s: verifying the rollback to checkpoint %s: %w", Platform, checkpoint, err)
	}
	if patch := rollbackPatch(out); patch != "" {
		return fmt.Errorf("recovering %s: verifying the rollback to checkpoint %s (%q): the running configuration still differs:\n%s",
			Platform, checkpoint, RollbackCommand(checkpoint), patch)
	}
	_, _ = s.Send(ctx, "no checkpoint "+checkpoint) // as drop: failing to delete is harmless
	return nil
}

// diffCommand asks for the patch that would turn the running configuration
// back into checkpoint: empty when they match.
func diffCommand(checkpoint string) string {
	return "show diff rollback-patch checkpoint " + checkpoint + " running-config"
}

// Push applies cfg under a checkpoint. NX-OS has no candidate configuration:
// lines take effect as they are entered, so the checkpoint is the undo.
//
//	checkpoint <name>
//	configure terminal
//	<each rendered line>
//	end
//	show diff rollback-patch checkpoint <name> running-config
//	(PushOptions.Verify)                        a difference: rollback to the checkpoint
//	copy running-config startup-config      (when something changed; a lost reply is sent again on a new session)
//	rollback running-config checkpoint <name>   (dry run, or any failure after the checkpoint)
//	no checkpoint <name>                        (once done; kept after a failure)
//
// PushOptions.ConfirmTimeout does not apply: NX-OS has no confirmed commit.
// A dry run applies the lines and rolls them back, so the ports see the
// change for a moment.
func (d *Driver) Push(ctx context.Context, s switchcfg.Session, cfg switchcfg.Config, o switchcfg.PushOptions) (switchcfg.PushResult, error) {
	var res switchcfg.PushResult
	if cfg.Platform != Platform {
		return res, fmt.Errorf("pushing to %s: config rendered for %q", Platform, cfg.Platform)
	}
	p := &push{ctx: ctx, s: s, checkpoint: checkpointName(o, time.Now()), reconnect: o.Reconnect}
	defer func() {
		if p.spare != nil {
			_ = p.spare.Close()
		}
	}()
	take := "checkpoint " + p.checkpoint
	if _, err := p.send(ctx, take); err != nil {
		// Nothing is changed yet: the running configuration is as it was,
		// whether the checkpoint was refused or its reply was lost.
		if switchcfg.Lost(err) && o.Reconnect != nil {
			p.dropLost(take) // a checkpoint taken before the loss is deleted again
		}
		res.RolledBack = true
		return res, &switchcfg.PushError{Platform: Platform, Step: "checkpointing", Line: take, Err: err, RolledBack: true}
	}
	for _, l := range append([]string{"configure terminal"}, cfg.Lines()...) {
		if _, err := p.send(ctx, l); err != nil {
			return res, p.fail(&res, "loading", l, err, true)
		}
	}
	if _, err := p.send(ctx, "end"); err != nil {
		return res, p.fail(&res, "loading", "end", err, false)
	}
	diffCmd := diffCommand(p.checkpoint)
	out, err := p.send(ctx, diffCmd)
	if err != nil {
		return res, p.fail(&res, "diffing", diffCmd, err, false)
	}
	res.Diff = rollbackPatch(out)
	res.Changed = res.Diff != ""
	if !res.Changed {
		p.drop()
		return res, nil
	}
	if o.DryRun {
		if err := p.rollback(false); err != nil {
			return res, &switchcfg.PushError{Platform: Platform, Step: "diffing", Line: RollbackCommand(p.checkpoint), Err: err}
		}
		p.drop()
		return res, nil
	}
	if o.Verify != nil {
		if err := o.Verify(ctx, p.s); err != nil {
			return res, p.fail(&res, "verifying", "", err, false)
		}
	}
	const save = "copy running-config startup-config"
	if _, err := p.send(ctx, save); err != nil {
		if !switchcfg.Lost(err) || o.Reconnect == nil {
			return res, p.fail(&res, "saving", save, err, false)
		}
		// The save's reply was lost: save again on a new session (copying
		// the same running configuration twice is harmless).
		if serr := p.saveAgain(save); serr != nil {
			return res, p.fail(&res, "saving", save, errors.Join(err, serr), false)
		}
	}
	res.Committed = true
	p.drop()
	return res, nil
}

// saveAgain sends save on a new session, which then serves the rest of
// the push.
func (p *push) saveAgain(save string) error {
	ctx, cancel := switchcfg.RecoveryContext(p.ctx)
	defer cancel()
	s, err := p.reconnect(ctx)
	if err != nil {
		return fmt.Errorf("reconnecting: %w", err)
	}
	p.s, p.spare = s, s
	_, err = p.send(ctx, save)
	return err
}

// dropLost deletes, on a new session, a checkpoint whose command's reply
// was lost (it may or may not exist); failing to is harmless.
func (p *push) dropLost(take string) {
	ctx, cancel := switchcfg.RecoveryContext(p.ctx)
	defer cancel()
	if s, err := p.reconnect(ctx); err == nil {
		_, _ = s.Send(ctx, "no checkpoint "+p.checkpoint)
		_ = s.Close()
	}
}

// drop deletes the checkpoint once it is no longer needed, so checkpoints do
// not pile up on the switch; failing to is harmless and not reported.
func (p *push) drop() { _, _ = p.send(p.ctx, "no checkpoint "+p.checkpoint) }

// checkpointName is PushOptions.CheckpointName, or a name unique to the
// nanosecond (NX-OS refuses to take a checkpoint under an existing name).
func checkpointName(o switchcfg.PushOptions, now time.Time) string {
	if o.CheckpointName != "" {
		return o.CheckpointName
	}
	return fmt.Sprintf("%s-%09d", o.Checkpoint(now), now.Nanosecond())
}

// rollbackPatch keeps the configuration lines of `show diff rollback-patch`:
// empty when the patch is empty.
func rollbackPatch(out string) string {
	var keep []string
	for _, l := range strings.Split(out, "\n") {
		t := strings.TrimSpace(l)
		switch {
		case t == "", strings.HasPrefix(t, "#"), strings.HasPrefix(t, "!"),
			strings.HasPrefix(t, "Collecting "), strings.HasPrefix(t, "Generating "),
			strings.EqualFold(t, "Rollback Patch is Empty"):
			continue
		}
		keep = append(keep, strings.TrimRight(l, "\r"))
	}
	return strings.Join(keep, "\n")
}
