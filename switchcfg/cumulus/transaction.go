package cumulus

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/fabricctl/fabricctl/switchcfg"
)

// NVUE transaction commands (DESIGN.md §5, SWITCH.md).
const (
	cmdDiff    = "nv config diff"
	cmdDetach  = "nv config detach"
	cmdConfirm = "nv config apply -y"
)

// abortTimeout bounds the clean-up commands, which run even when the push's
// context is cancelled.
const abortTimeout = 30 * time.Second

// Push applies cfg as one NVUE revision: the `nv set`/`nv unset` lines, then
// `nv config diff`; no diff → `nv config detach`, Changed=false. Otherwise
// `nv config apply -y --confirm <t>s` and the confirming `nv config apply -y`.
// Any failure before the apply detaches the pending revision, so the applied
// configuration is untouched; a failure of the confirm leaves NVUE to roll
// back by itself when the confirm window ends. NVUE saves applied revisions
// to startup (auto-save, the default since Cumulus Linux 5.9); fabricctl does
// not run `nv config save`.
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
	// One line per SendConfig: when the connection drops, the session's
	// error names the line only in its text, and PushError.Line must carry
	// it. NVUE has no configuration mode, so this sends the same bytes.
	for _, l := range lines {
		if out, err := s.SendConfig(ctx, []string{l}); err != nil || deviceError(out) != "" {
			return d.abort(ctx, s, "loading", l, errOr(err, out))
		}
	}
	diff, err := s.Send(ctx, cmdDiff)
	if err != nil || deviceError(diff) != "" {
		return d.abort(ctx, s, "diffing", cmdDiff, errOr(err, diff))
	}
	diff = strings.TrimSpace(diff)
	if emptyDiff(diff) || opt.DryRun {
		if _, err := s.Send(ctx, cmdDetach); err != nil {
			return switchcfg.PushResult{}, &switchcfg.PushError{Platform: Platform, Step: "detaching", Line: cmdDetach, Err: err}
		}
		if emptyDiff(diff) {
			return switchcfg.PushResult{}, nil
		}
		return switchcfg.PushResult{Changed: true, Diff: diff}, nil
	}
	apply := fmt.Sprintf("nv config apply -y --confirm %ds", int(opt.Timeout().Seconds()))
	if out, err := s.Send(ctx, apply); err != nil || deviceError(out) != "" {
		return d.abort(ctx, s, "committing", apply, errOr(err, out))
	}
	if out, err := s.Send(ctx, cmdConfirm); err != nil || deviceError(out) != "" {
		return switchcfg.PushResult{Changed: true, Diff: diff}, &switchcfg.PushError{Platform: Platform, Step: "confirming", Line: cmdConfirm,
			Err: fmt.Errorf("%w; NVUE rolls the revision back when the %s confirm window ends", errOr(err, out), opt.Timeout())}
	}
	return switchcfg.PushResult{Changed: true, Diff: diff, Committed: true}, nil
}

// abort detaches the pending revision and reports the failure.
func (d *Driver) abort(ctx context.Context, s switchcfg.Session, step, line string, cause error) (switchcfg.PushResult, error) {
	actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), abortTimeout)
	defer cancel()
	pe := &switchcfg.PushError{Platform: Platform, Step: step, Line: line, Err: cause}
	if out, err := s.Send(actx, cmdDetach); err != nil || deviceError(out) != "" {
		pe.Err = errors.Join(cause, fmt.Errorf("detaching the pending revision: %w", errOr(err, out)))
	} else {
		pe.RolledBack = true
	}
	return switchcfg.PushResult{RolledBack: pe.RolledBack}, pe
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
