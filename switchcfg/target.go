package switchcfg

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

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
	// AllowUnparsed judges a reading with QoS input its reader did not
	// understand instead of failing the plan with ErrUnparsed.
	AllowUnparsed bool

	mu   sync.Mutex
	read *fabric.SwitchIntent // the reading of the last Plan (NativeDiff)
}

var (
	_ fabric.Target       = (*Target)(nil)
	_ fabric.NativeDiffer = (*Target)(nil)
)

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
	got, err := ObserveIntent(ctx, s, t.Driver, t.Intent)
	if err != nil {
		return nil, err
	}
	if err := CheckUnparsed(got, t.AllowUnparsed); err != nil {
		return nil, fmt.Errorf("reading %s: %w", t.Intent.Name, err)
	}
	t.mu.Lock()
	t.read = &got
	t.mu.Unlock()
	return Changes(t.Intent, got, t.compare()), nil
}

// NativeDiff returns what a push would change in the switch's native
// configuration, from the reading the last Plan made (no second login):
// see the package function NativeDiff. Nil before a successful Plan.
func (t *Target) NativeDiff() *fabric.NativeDiff {
	t.mu.Lock()
	read := t.read
	t.mu.Unlock()
	if read == nil {
		return nil
	}
	return NativeDiff(t.Driver, t.Intent, *read)
}

// Changes converts Compare's diffs into engine changes. A change is marked
// disruptive, with why in its Note, where the ASIC reprograms something
// that interrupts traffic (disruption.go): the MTU, trust, the set of
// PFC-enabled priorities, the lossless headroom, the class of a lossless
// DSCP or the queue of a lossless priority. Watchdog timers, ECN
// thresholds, ETS weights and lossy classes staying lossy are not.
func Changes(want, got fabric.SwitchIntent, o CompareOptions) []fabric.Change {
	diffs := o.Compare(want, got)
	l := newLosslessness(want, got)
	out := make([]fabric.Change, 0, len(diffs))
	for _, d := range diffs {
		c := fabric.Change{Setting: d.Field, Old: d.Got, New: d.Want}
		var ports string
		if i := strings.Index(c.Setting, "]."); i > 0 && strings.HasPrefix(c.Setting, "ports[") {
			ports, c.Setting = c.Setting[:i+1], c.Setting[i+2:] // a port group's difference
		}
		field := c.Setting
		if i := strings.Index(c.Setting, "]."); i > 0 && strings.HasPrefix(c.Setting, "classes[") {
			c.Component, c.Setting = c.Setting[:i+1], c.Setting[i+2:]
		}
		if ports != "" {
			c.Component = strings.TrimSpace(ports + " " + c.Component)
		}
		if why := l.disruption(field, d.Got, d.Want); why != "" {
			c.Disruptive, c.Note = true, why
		}
		out = append(out, c)
	}
	return out
}

// Apply reads the switch (the pre-image), pushes the rendered intent as
// one transaction whose Verify compares the read-back with the intent while
// the change can still be undone, and returns what still differs.
//
// When the push fails, Apply reads the switch again (over a new session
// when the old one is dead) and reports what was reached: the changes still
// outstanding, and whether the switch is as before the push. The error
// wraps fabric.ErrRolledBack only when that read-back shows the pre-image,
// so an outcome "rolled-back" is seen, not assumed.
func (t *Target) Apply(ctx context.Context, _ []fabric.Change) ([]fabric.Change, error) {
	cfg, err := t.Driver.Render(t.Intent)
	if err != nil {
		return nil, err
	}
	s, err := t.Connect(ctx)
	if err != nil {
		return nil, err
	}
	defer func() { s.Close() }()
	pre, err := ObserveIntent(ctx, s, t.Driver, t.Intent)
	if err != nil {
		return nil, fmt.Errorf("reading the switch before the push: %w", err)
	}
	opt := t.Push
	opt.Reconnect = t.Connect
	opt.Verify = VerifyIntent(t.Driver, t.Intent)
	_, perr := t.Driver.Push(ctx, s, cfg, opt)
	got, s2, oerr := t.observeAgain(ctx, s, perr != nil)
	if s2 != s {
		defer s2.Close()
	}
	if perr == nil {
		if oerr != nil {
			return nil, fmt.Errorf("verifying: %w", oerr)
		}
		return Changes(t.Intent, got, t.compare()), nil
	}
	var pe *PushError
	pushed := errors.As(perr, &pe)
	if oerr != nil {
		if pushed && pe.RolledBack {
			return nil, fmt.Errorf("%w; reading the switch back afterwards failed: %w (%w)", perr, oerr, fabric.ErrRolledBack)
		}
		return nil, fmt.Errorf("%w; reading the switch back afterwards failed too, so what it runs now is unknown: %w", perr, oerr)
	}
	remaining := Changes(t.Intent, got, t.compare())
	moved := CompareOptions{Ports: true, RelativeTolerance: exact}.Compare(pre, got)
	switch {
	case len(moved) == 0:
		return remaining, fmt.Errorf("%w; read back: the switch is as before the push (%w)", perr, fabric.ErrRolledBack)
	case pushed && pe.RolledBack:
		return remaining, fmt.Errorf("%w; but read back, the switch differs from before the push in %s", perr, diffList(moved))
	}
	return remaining, fmt.Errorf("%w; read back, the switch now differs from before the push in %s", perr, diffList(moved))
}

// exact is the relative tolerance of a pre-image comparison: values the
// same device printed twice must be equal.
const exact = 1e-9

// compare compares within the threshold quantum of the switch the intent
// describes (QuantumFor: Junos's depends on the model).
func (t *Target) compare() CompareOptions {
	return CompareOptions{QuantumBytes: QuantumFor(t.Driver, t.Intent)}
}

// observeAgain reads the switch after a push through s, or through a new
// session when s is dead (the push lost its connection); it runs even when
// ctx is cancelled after a failure. It returns the session it used.
func (t *Target) observeAgain(ctx context.Context, s Session, failed bool) (fabric.SwitchIntent, Session, error) {
	if failed {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(context.WithoutCancel(ctx), RecoverTimeout)
		defer cancel()
	}
	got, err := ObserveIntent(ctx, s, t.Driver, t.Intent)
	if !Lost(err) {
		return got, s, err
	}
	s2, cerr := t.Connect(ctx)
	if cerr != nil {
		return got, s, errors.Join(err, fmt.Errorf("reconnecting: %w", cerr))
	}
	got, err = ObserveIntent(ctx, s2, t.Driver, t.Intent)
	return got, s2, err
}

// VerifyError is a read-back that differs from the intent after a change:
// what PushOptions.Verify returns from VerifyIntent.
type VerifyError struct {
	Diffs []Diff
}

func (e *VerifyError) Error() string {
	return fmt.Sprintf("the read-back differs from the intent in %s", diffList(e.Diffs))
}

// diffList names at most five differences, then how many more.
func diffList(d []Diff) string {
	const most = 5
	parts := make([]string, 0, most+1)
	for i, x := range d {
		if i == most {
			parts = append(parts, fmt.Sprintf("and %d more", len(d)-most))
			break
		}
		parts = append(parts, x.String())
	}
	return fmt.Sprintf("%d setting(s): %s", len(d), strings.Join(parts, "; "))
}

// VerifyIntent returns a PushOptions.Verify that reads the intent's ports
// back through the session, parsed for the switch in describes
// (ObserveIntent), and fails with a *VerifyError when they differ from in
// within its threshold quantum (CompareFor): what Target verifies with.
func VerifyIntent(d Driver, in fabric.SwitchIntent) func(ctx context.Context, s Session) error {
	return func(ctx context.Context, s Session) error {
		got, err := ObserveIntent(ctx, s, d, in)
		if err != nil {
			return err
		}
		if diffs := CompareFor(d, in, got); len(diffs) > 0 {
			return &VerifyError{Diffs: diffs}
		}
		return nil
	}
}
