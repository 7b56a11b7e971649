package sonic

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/fabricctl/fabricctl/switchcfg"
)

// heredocEnd ends the here-document that carries the patch; JSON never
// contains it on a line of its own.
const heredocEnd = "FABRICCTL_PATCH"

// Push applies cfg (Render's tables) as one generic-config-updater
// transaction:
//
//	show runningconfiguration all            observe (the pre-image); BuildPatch against it
//	                                         (empty patch → Changed=false, nothing else runs)
//	sudo config checkpoint <name>
//	cat > /tmp/<name>.json-patch <<'FABRICCTL_PATCH' … FABRICCTL_PATCH
//	sudo config apply-patch --dry-run /tmp/<name>.json-patch
//	sudo config apply-patch /tmp/<name>.json-patch
//	(PushOptions.Verify)
//	sudo config save -y
//
// A dry run stops after the device's own dry run and takes no checkpoint. A
// failure before apply-patch leaves the switch untouched. A failed or lost
// apply-patch, or a failed verify, runs `sudo config rollback <name>` — on
// a new session (PushOptions.Reconnect) when the connection was lost, never
// over the dead one — and reads the switch back: only a running
// configuration equal to the pre-image is reported rolled back. A save whose
// reply was lost is sent again; a refused save rolls back. PushResult.Diff
// is the patch. SONiC has no confirmed commit: ConfirmTimeout does not apply.
func (d *Driver) Push(ctx context.Context, s switchcfg.Session, cfg switchcfg.Config, opt switchcfg.PushOptions) (switchcfg.PushResult, error) {
	if cfg.Platform != Platform {
		return switchcfg.PushResult{}, fmt.Errorf("pushing to %s: config rendered for %q", Platform, cfg.Platform)
	}
	desired, err := DecodeConfigDB([]byte(cfg.Text))
	if err != nil {
		return switchcfg.PushResult{}, fmt.Errorf("pushing to %s: %w", Platform, err)
	}
	out, err := s.Send(ctx, CmdRunningConfig)
	if err != nil {
		return switchcfg.PushResult{}, fmt.Errorf("pushing to %s: reading the running configuration: %w", Platform, err)
	}
	observed, err := DecodeConfigDB([]byte(out))
	if err != nil {
		return switchcfg.PushResult{}, fmt.Errorf("pushing to %s: reading the running configuration: %w", Platform, err)
	}
	ops, err := BuildPatch(observed, desired)
	if err != nil {
		return switchcfg.PushResult{}, err
	}
	if len(ops) == 0 {
		return switchcfg.PushResult{}, nil
	}
	diff := strings.TrimSpace(string(PatchJSON(ops)))
	name := opt.Checkpoint(time.Now())
	file := "/tmp/" + name + ".json-patch"
	compact, _ := json.Marshal(ops) // strings and maps of strings always marshal
	write := "cat > " + file + " <<'" + heredocEnd + "'\n" + string(compact) + "\n" + heredocEnd
	dryRun := "sudo config apply-patch --dry-run " + file
	apply := "sudo config apply-patch " + file

	fail := func(step, line string, err error) (switchcfg.PushResult, error) {
		return switchcfg.PushResult{RolledBack: true}, &switchcfg.PushError{Platform: Platform, Step: step, Line: line, RolledBack: true, Err: err}
	}
	if opt.DryRun {
		if err := send(ctx, s, write); err != nil {
			return fail("loading", write, err)
		}
		if err := send(ctx, s, dryRun); err != nil {
			return fail("diffing", dryRun, err)
		}
		return switchcfg.PushResult{Changed: true, Diff: diff}, nil
	}
	if err := send(ctx, s, "sudo config checkpoint "+name); err != nil {
		return fail("checkpointing", "sudo config checkpoint "+name, err)
	}
	if err := send(ctx, s, write); err != nil {
		return fail("loading", write, err)
	}
	if err := send(ctx, s, dryRun); err != nil {
		return fail("diffing", dryRun, err)
	}
	p := &push{ctx: ctx, rc: switchcfg.NewRecovery(s, opt), name: name, pre: observed}
	defer p.rc.Close()
	if err := send(ctx, s, apply); err != nil {
		return p.rollback("committing", apply, err, false)
	}
	if opt.Verify != nil {
		if err := opt.Verify(ctx, s); err != nil {
			return p.rollback("verifying", "", err, false)
		}
	}
	const save = "sudo config save -y"
	if err := send(ctx, s, save); err != nil {
		if !switchcfg.Lost(err) {
			return p.rollback("saving", save, err, false)
		}
		// The save's reply was lost: save again (on a new session when the
		// old one is dead); saving the same running configuration twice is
		// harmless.
		sctx, cancel := switchcfg.RecoveryContext(ctx)
		defer cancel()
		if serr := p.rc.Do(sctx, func(s switchcfg.Session) error { return send(sctx, s, save) }); serr != nil {
			return p.rollback("saving", save, errors.Join(err, serr), true)
		}
	}
	return switchcfg.PushResult{Changed: true, Diff: diff, Committed: true}, nil
}

// push is what a Push's recovery needs: the session, the checkpoint and the
// running configuration from before the push.
type push struct {
	ctx  context.Context
	rc   *switchcfg.Recovery
	name string
	pre  ConfigDB
}

// rollback restores the checkpoint (on the session in use, or on a new one
// when that is lost), reads the running configuration back and reports the
// failure: rolled back only when the switch runs the pre-image again. After
// a save that may have run (saved), the restored configuration is saved too.
func (p *push) rollback(step, line string, cause error, saved bool) (switchcfg.PushResult, error) {
	ctx, cancel := switchcfg.RecoveryContext(p.ctx)
	defer cancel()
	pe := &switchcfg.PushError{Platform: Platform, Step: step, Line: line, Err: cause}
	rollback := "sudo config rollback " + p.name
	var now ConfigDB
	err := p.rc.Do(ctx, func(s switchcfg.Session) error {
		if err := send(ctx, s, rollback); err != nil {
			return err
		}
		out, err := s.Send(ctx, CmdRunningConfig)
		if err != nil {
			return err
		}
		now, err = DecodeConfigDB([]byte(out))
		return err
	})
	switch {
	case err != nil:
		pe.Err = errors.Join(cause, fmt.Errorf("rolling back to checkpoint %s (run %q on the switch): %w", p.name, rollback, err))
	case string(now.JSON()) != string(p.pre.JSON()):
		pe.Err = errors.Join(cause, fmt.Errorf("rolled back to checkpoint %s, but the running configuration still differs from before the push", p.name))
	default:
		pe.RolledBack = true
		if saved {
			if err := p.rc.Do(ctx, func(s switchcfg.Session) error { return send(ctx, s, "sudo config save -y") }); err != nil {
				pe.Err = errors.Join(cause, fmt.Errorf("saving the restored configuration (the startup configuration may hold the change): %w", err))
			}
		}
	}
	return switchcfg.PushResult{RolledBack: pe.RolledBack}, pe
}

// send runs one command and turns SONiC's error output into an error for
// sessions that return it without one.
func send(ctx context.Context, s switchcfg.Session, cmd string) error {
	out, err := s.Send(ctx, cmd)
	if err != nil {
		return err
	}
	for _, l := range strings.Split(out, "\n") {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "Error:") || strings.HasPrefix(l, "Failed to") || strings.HasPrefix(l, "Root privileges are required") {
			return &switchcfg.LineError{Line: cmd, Message: l}
		}
	}
	return nil
}
