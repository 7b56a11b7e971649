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

// abortTimeout bounds the rollback, which runs even when the push's context
// is cancelled.
const abortTimeout = 60 * time.Second

// Push applies cfg (Render's tables) as one generic-config-updater
// transaction:
//
//	show runningconfiguration all            observe; BuildPatch against it
//	                                         (empty patch → Changed=false, nothing else runs)
//	sudo config checkpoint <name>
//	cat > /tmp/<name>.json-patch <<'FABRICCTL_PATCH' … FABRICCTL_PATCH
//	sudo config apply-patch --dry-run /tmp/<name>.json-patch
//	sudo config apply-patch /tmp/<name>.json-patch
//	sudo config save -y
//
// A dry run stops after the device's own dry run and takes no checkpoint. A
// failure before apply-patch leaves the switch untouched; a failure of
// apply-patch or save runs `sudo config rollback <name>`. PushResult.Diff is
// the patch. SONiC has no confirmed commit: ConfirmTimeout does not apply.
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
	if err := send(ctx, s, apply); err != nil {
		return d.rollback(ctx, s, name, "committing", apply, err)
	}
	if err := send(ctx, s, "sudo config save -y"); err != nil {
		return d.rollback(ctx, s, name, "saving", "sudo config save -y", err)
	}
	return switchcfg.PushResult{Changed: true, Diff: diff, Committed: true}, nil
}

// rollback restores the checkpoint and reports the failure.
func (d *Driver) rollback(ctx context.Context, s switchcfg.Session, name, step, line string, cause error) (switchcfg.PushResult, error) {
	actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), abortTimeout)
	defer cancel()
	pe := &switchcfg.PushError{Platform: Platform, Step: step, Line: line, Err: cause}
	if err := send(actx, s, "sudo config rollback "+name); err != nil {
		pe.Err = errors.Join(cause, fmt.Errorf("rolling back to checkpoint %s: %w", name, err))
	} else {
		pe.RolledBack = true
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
			return errors.New(l)
		}
	}
	return nil
}
