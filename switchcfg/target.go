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

func (t *Target) transactor() (Transactor, error) {
	tr, ok := t.Driver.(Transactor)
	if !ok {
		return nil, fmt.Errorf("platform %s: %w: no transactions", t.Driver.Platform(), ErrNotSupported)
	}
	return tr, nil
}

// Plan observes the switch and returns the differences as changes.
func (t *Target) Plan(ctx context.Context) ([]fabric.Change, error) {
	tr, err := t.transactor()
	if err != nil {
		return nil, err
	}
	s, err := t.Connect(ctx)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	got, err := t.observe(ctx, tr, s)
	if err != nil {
		return nil, err
	}
	return Changes(t.Intent, got), nil
}

// PortParser is implemented by drivers that can restrict a read-back to the
// intent's ports, so uplinks with other QoS do not blur the reading.
type PortParser interface {
	ParsePorts(rb Readback, ports []string) (fabric.SwitchIntent, error)
}

func (t *Target) observe(ctx context.Context, tr Transactor, s Session) (fabric.SwitchIntent, error) {
	pp, ok := t.Driver.(PortParser)
	if !ok {
		return tr.Observe(ctx, s)
	}
	rb := Readback{}
	for _, cmd := range t.Driver.ReadbackCommands() {
		out, err := s.Send(ctx, cmd)
		if err != nil {
			return fabric.SwitchIntent{}, fmt.Errorf("reading back %s with %q: %w", t.Driver.Platform(), cmd, err)
		}
		rb[cmd] = []byte(out)
	}
	return pp.ParsePorts(rb, t.Intent.Ports)
}

// Changes converts Compare's diffs into engine changes. PFC changes are
// marked disruptive: they reprogram buffers and pause a port briefly on most ASICs.
func Changes(want, got fabric.SwitchIntent) []fabric.Change {
	diffs := Compare(want, got)
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
	tr, err := t.transactor()
	if err != nil {
		return nil, err
	}
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
	if _, err := tr.Push(ctx, s, cfg, opt); err != nil {
		var pe *PushError
		if errors.As(err, &pe) && pe.RolledBack {
			return nil, fmt.Errorf("%w (%w)", err, fabric.ErrRolledBack)
		}
		return nil, err
	}
	got, err := t.observe(ctx, tr, s)
	if err != nil {
		return nil, fmt.Errorf("verifying: %w", err)
	}
	return Changes(t.Intent, got), nil
}
