package switchcfg

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/fabricctl/fabricctl/fabric"
)

// Target reconciles one switch for the fabric engine (fabric.Target): Plan
// observes the device and compares it with the intent; Apply renders, pushes
// as one transaction (the driver rolls back on failure) and verifies by
// observing again.
type Target struct {
	Intent fabric.SwitchIntent
	Driver Driver
	// Connect opens a session to the switch (one per phase; closed after).
	Connect func(ctx context.Context) (Session, error)
	Push    PushOptions
	// Deps are the targets this one waits for (none for switches today).
	Deps []string
}

var _ fabric.Target = (*Target)(nil)

func (t *Target) Name() string        { return t.Intent.Name }
func (t *Target) Tier() fabric.Tier   { return fabric.TierSwitch }
func (t *Target) DependsOn() []string { return t.Deps }

// Plan observes the switch and returns the differences as changes.
func (t *Target) Plan(ctx context.Context) ([]fabric.Change, error) {
	s, err := t.Connect(ctx)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	return t.changes(ctx, s)
}

// changes observes the intent's ports through s and compares them with the
// intent within the platform's threshold quantum.
func (t *Target) changes(ctx context.Context, s Session) ([]fabric.Change, error) {
	got, err := Observe(ctx, s, t.Driver, t.Intent.Ports)
	if err != nil {
		return nil, err
	}
	return Changes(t.Intent, got, CompareOptions{QuantumBytes: t.Driver.Info().ThresholdQuantum}), nil
}

// Changes converts Compare's diffs into engine changes. PFC changes are
// marked disruptive: they reprogram buffers and pause a port briefly on most ASICs.
func Changes(want, got fabric.SwitchIntent, o CompareOptions) []fabric.Change {
	diffs := o.Compare(want, got)
	out := make([]fabric.Change, 0, len(diffs))
	for _, d := range diffs {
		c := fabric.Change{Setting: d.Field, Old: d.Got, New: d.Want}
		if i := strings.Index(d.Field, "]."); i > 0 && strings.HasPrefix(d.Field, "classes[") {
			c.Component, c.Setting = d.Field[:i+1], d.Field[i+2:]
		}
		if strings.HasPrefix(d.Field, "pfc.") || strings.HasSuffix(d.Field, ".lossless") {
			c.Disruptive, c.Note = true, "PFC reprograms port buffers"
		}
		out = append(out, c)
	}
	return out
}

// Apply pushes the rendered intent and verifies it.
func (t *Target) Apply(ctx context.Context, _ []fabric.Change) ([]fabric.Change, error) {
	cfg, err := t.Driver.Render(t.Intent)
	if err != nil {
		return nil, err
	}
	s, err := t.Connect(ctx)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	// Platforms without a candidate config (NX-OS) recover from a dropped
	// connection by reconnecting and rolling back to their checkpoint.
	opt := t.Push
	opt.Reconnect = t.Connect
	if _, err := t.Driver.Push(ctx, s, cfg, opt); err != nil {
		var pe *PushError
		if errors.As(err, &pe) && pe.RolledBack {
			return nil, fmt.Errorf("%w (%w)", err, fabric.ErrRolledBack)
		}
		return nil, err
	}
	remaining, err := t.changes(ctx, s)
	if err != nil {
		return nil, fmt.Errorf("verifying: %w", err)
	}
	return remaining, nil
}
