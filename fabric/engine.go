package fabric

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"
)

// Target is one device the engine reconciles: a host (through the agent), a
// switch (through its driver) or a subnet manager. Implementations do the I/O;
// the engine only orders and fans out.
type Target interface {
	// Name is the fabric name of the target.
	Name() string
	// Tier places the target in the apply order.
	Tier() Tier
	// Plan observes the live state and returns what differs from the desired state.
	Plan(ctx context.Context) ([]Change, error)
	// Apply makes the changes, verifies by observing again and returns the
	// changes still outstanding afterwards (empty on success). On failure it
	// must restore the state from before Apply (rollback) and say in the error
	// whether that worked (wrap ErrRolledBack when it did). It must finish its
	// rollback even when ctx is cancelled.
	Apply(ctx context.Context, changes []Change) (remaining []Change, err error)
}

// Dependent is implemented by targets that must not be applied when another
// target failed (a host behind a leaf switch whose push failed).
type Dependent interface {
	DependsOn() []string
}

// Sentinel errors.
var (
	// ErrRolledBack: apply failed and the target was restored to its pre-image.
	ErrRolledBack = errors.New("rolled back")
	// ErrSkip: the target was not applied because something it depends on failed.
	ErrSkip = errors.New("skipped")
	// ErrNotSupported: the target cannot do what was asked.
	ErrNotSupported = errors.New("not supported")
	// ErrUnknownKind: no driver for that kind or platform.
	ErrUnknownKind = errors.New("unknown kind")
)

// Outcome of one target.
type Outcome string

const (
	OutcomeUnchanged  Outcome = "unchanged"   // nothing to do
	OutcomeChanged    Outcome = "changed"     // applied and verified
	OutcomeWouldApply Outcome = "would-apply" // dry run or plan only
	OutcomeRolledBack Outcome = "rolled-back" // apply failed, pre-image restored
	OutcomeFailed     Outcome = "failed"      // observe or apply failed (and rollback failed or was impossible)
	OutcomeSkipped    Outcome = "skipped"     // a dependency failed, or cancelled before start
)

// TargetPlan is the plan of one target.
type TargetPlan struct {
	Target  string        `json:"target"`
	Tier    Tier          `json:"tier"`
	Changes []Change      `json:"changes"`
	Error   string        `json:"error,omitempty"`
	Took    time.Duration `json:"-"`
	err     error
	// Native, on a switch's plan when asked for (plan --native), is what a
	// push would change in the switch's own configuration language.
	Native *NativeDiff `json:"native,omitempty"`
}

// Plan is what apply would do across the fabric, sorted by tier then name.
type Plan struct {
	APIVersion string       `json:"apiVersion"`
	Targets    []TargetPlan `json:"targets"`
}

// HasChanges reports whether any target has an actionable change.
func (p *Plan) HasChanges() bool {
	for _, t := range p.Targets {
		if len(Actionable(t.Changes)) > 0 {
			return true
		}
	}
	return false
}

// Err joins the observation errors of every target (nil when all observed).
func (p *Plan) Err() error {
	var errs []error
	for _, t := range p.Targets {
		if t.err != nil {
			errs = append(errs, t.err)
		}
	}
	return errors.Join(errs...)
}

// TargetResult is the outcome of applying one target.
type TargetResult struct {
	Target    string   `json:"target"`
	Tier      Tier     `json:"tier"`
	Outcome   Outcome  `json:"outcome"`
	Applied   []Change `json:"applied,omitempty"`
	Remaining []Change `json:"remaining,omitempty"`
	Error     string   `json:"error,omitempty"`
	err       error
}

// Result summarises an apply.
type Result struct {
	APIVersion string         `json:"apiVersion"`
	DryRun     bool           `json:"dryRun"`
	Targets    []TargetResult `json:"targets"`
}

// Err joins every target's error.
func (r *Result) Err() error {
	var errs []error
	for _, t := range r.Targets {
		if t.err != nil {
			errs = append(errs, t.err)
		}
	}
	return errors.Join(errs...)
}

// Failed reports whether any target failed, rolled back or was skipped.
func (r *Result) Failed() bool {
	for _, t := range r.Targets {
		switch t.Outcome {
		case OutcomeFailed, OutcomeRolledBack, OutcomeSkipped:
			return true
		}
	}
	return false
}

// Event reports progress (for a terminal progress line on stderr).
type Event struct {
	Phase  string // "plan" | "apply"
	Target string
	Done   int
	Total  int
	Err    error
}

// Engine drives observe → plan → apply → verify over many targets. The zero
// value works (parallelism 32). An Engine is safe for concurrent use.
type Engine struct {
	// Parallel bounds how many targets are worked on at once (default 32).
	Parallel int
	// Progress, when set, is called after each target finishes a phase.
	Progress func(Event)
	// Log, when set, receives each target's start and outcome of plan and
	// apply (debug level; failures at warn): what fabricctl -v shows.
	Log *slog.Logger
}

func (e *Engine) log() *slog.Logger {
	if e.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return e.Log
}

func (e *Engine) limit() int {
	if e.Parallel <= 0 {
		return 32
	}
	return e.Parallel
}

// Plan observes every target concurrently and returns their changes. A target
// that cannot be observed carries its error; the others are still planned.
func (e *Engine) Plan(ctx context.Context, targets []Target) *Plan {
	plan := &Plan{APIVersion: APIVersion, Targets: make([]TargetPlan, len(targets))}
	log := e.log()
	log.Debug("planning", "targets", len(targets), "parallel", e.limit())
	var mu sync.Mutex
	done := 0
	g := errgroup.Group{}
	g.SetLimit(e.limit())
	for i, t := range targets {
		g.Go(func() error {
			start := time.Now()
			tp := TargetPlan{Target: t.Name(), Tier: t.Tier()}
			if err := ctx.Err(); err != nil {
				tp.err = fmt.Errorf("planning %s: %w", t.Name(), err)
			} else if cs, err := t.Plan(ctx); err != nil {
				tp.err = fmt.Errorf("planning %s: %w", t.Name(), err)
			} else {
				SortChanges(cs)
				tp.Changes = cs
			}
			if tp.err != nil {
				tp.Error = tp.err.Error()
			}
			if tp.Changes == nil {
				tp.Changes = []Change{}
			}
			tp.Took = time.Since(start)
			if tp.err != nil {
				log.Warn("planning failed", "target", tp.Target, "tier", tp.Tier, "error", tp.Error, "took", tp.Took)
			} else {
				log.Debug("planned", "target", tp.Target, "tier", tp.Tier, "changes", len(Actionable(tp.Changes)), "took", tp.Took)
			}
			plan.Targets[i] = tp
			mu.Lock()
			done++
			if e.Progress != nil {
				e.Progress(Event{Phase: "plan", Target: t.Name(), Done: done, Total: len(targets), Err: tp.err})
			}
			mu.Unlock()
			return nil
		})
	}
	_ = g.Wait()
	sortTargets(plan.Targets, func(tp TargetPlan) (Tier, string) { return tp.Tier, tp.Target })
	return plan
}

func sortTargets[T any](s []T, key func(T) (Tier, string)) {
	sort.SliceStable(s, func(i, j int) bool {
		ti, ni := key(s[i])
		tj, nj := key(s[j])
		if ti != tj {
			return ti < tj
		}
		return ni < nj
	})
}

// ApplyOptions tune Apply.
type ApplyOptions struct {
	// DryRun plans and reports but never calls Target.Apply.
	DryRun bool
}

// Apply applies plan to targets tier by tier (subnet managers, switches,
// hosts), in parallel within a tier. A target whose apply fails is rolled back
// by the target itself; the others continue, except dependents of a failed
// target, which are skipped. After cancellation no new target starts.
func (e *Engine) Apply(ctx context.Context, targets []Target, plan *Plan, opt ApplyOptions) *Result {
	byName := map[string]Target{}
	for _, t := range targets {
		byName[t.Name()] = t
	}
	res := &Result{APIVersion: APIVersion, DryRun: opt.DryRun}
	failed := map[string]bool{}
	var mu sync.Mutex
	total, done := len(plan.Targets), 0
	for _, tier := range []Tier{TierSubnetManager, TierSwitch, TierHost} {
		var batch []TargetPlan
		for _, tp := range plan.Targets {
			if tp.Tier == tier {
				batch = append(batch, tp)
			}
		}
		if len(batch) > 0 {
			e.log().Debug("applying", "tier", tier, "targets", len(batch), "dryRun", opt.DryRun)
		}
		results := make([]TargetResult, len(batch))
		g := errgroup.Group{}
		g.SetLimit(e.limit())
		for i, tp := range batch {
			g.Go(func() error {
				start := time.Now()
				r := e.applyOne(ctx, byName[tp.Target], tp, opt, failed, &mu)
				results[i] = r
				level := slog.LevelDebug
				if r.err != nil {
					level = slog.LevelWarn
				}
				e.log().Log(ctx, level, "applied", "target", r.Target, "tier", r.Tier, "outcome", r.Outcome,
					"changes", len(r.Applied), "remaining", len(Actionable(r.Remaining)), "error", r.Error, "took", time.Since(start))
				mu.Lock()
				if r.Outcome == OutcomeFailed || r.Outcome == OutcomeRolledBack || r.Outcome == OutcomeSkipped {
					failed[tp.Target] = true
				}
				done++
				if e.Progress != nil {
					e.Progress(Event{Phase: "apply", Target: tp.Target, Done: done, Total: total, Err: r.err})
				}
				mu.Unlock()
				return nil
			})
		}
		_ = g.Wait()
		res.Targets = append(res.Targets, results...)
	}
	sortTargets(res.Targets, func(tr TargetResult) (Tier, string) { return tr.Tier, tr.Target })
	return res
}

func (e *Engine) applyOne(ctx context.Context, t Target, tp TargetPlan, opt ApplyOptions, failed map[string]bool, mu *sync.Mutex) TargetResult {
	r := TargetResult{Target: tp.Target, Tier: tp.Tier}
	fail := func(o Outcome, err error) TargetResult {
		r.Outcome, r.err, r.Error = o, err, err.Error()
		return r
	}
	if t == nil {
		return fail(OutcomeFailed, fmt.Errorf("applying %s: %w: no such target", tp.Target, ErrUnknownKind))
	}
	if tp.err != nil {
		return fail(OutcomeFailed, tp.err)
	}
	if d, ok := t.(Dependent); ok {
		mu.Lock()
		var broken []string
		for _, dep := range d.DependsOn() {
			if failed[dep] {
				broken = append(broken, dep)
			}
		}
		mu.Unlock()
		if len(broken) > 0 {
			return fail(OutcomeSkipped, fmt.Errorf("applying %s: %w: %v failed", tp.Target, ErrSkip, broken))
		}
	}
	changes := Actionable(tp.Changes)
	if len(changes) == 0 {
		r.Outcome = OutcomeUnchanged
		return r
	}
	if opt.DryRun {
		r.Outcome, r.Remaining = OutcomeWouldApply, changes
		return r
	}
	if err := ctx.Err(); err != nil {
		return fail(OutcomeSkipped, fmt.Errorf("applying %s: %w: %w", tp.Target, ErrSkip, err))
	}
	e.log().Debug("applying changes", "target", tp.Target, "changes", len(changes))
	remaining, err := t.Apply(ctx, changes)
	r.Remaining = remaining
	switch {
	case err != nil && errors.Is(err, ErrRolledBack):
		return fail(OutcomeRolledBack, fmt.Errorf("applying %s: %w", tp.Target, err))
	case err != nil:
		return fail(OutcomeFailed, fmt.Errorf("applying %s: %w", tp.Target, err))
	case len(Actionable(remaining)) > 0:
		return fail(OutcomeFailed, fmt.Errorf("applying %s: verify found %d setting(s) still different", tp.Target, len(Actionable(remaining))))
	}
	r.Outcome, r.Applied = OutcomeChanged, changes
	return r
}
