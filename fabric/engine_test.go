package fabric

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// fakeTarget records calls; state is a map of settings it reconciles for real.
type fakeTarget struct {
	name     string
	tier     Tier
	deps     []string
	mu       sync.Mutex
	want     map[string]string
	have     map[string]string
	planErr  error
	applyErr error // returned after a real rollback when set
	applied  int
	log      *[]string
	logMu    *sync.Mutex
	inflight *atomic.Int32
	peak     *atomic.Int32
	// gate, when set, is called once the target is in flight and holds its
	// apply until it returns.
	gate func()
}

func (f *fakeTarget) Name() string        { return f.name }
func (f *fakeTarget) Tier() Tier          { return f.tier }
func (f *fakeTarget) DependsOn() []string { return f.deps }

func (f *fakeTarget) Plan(ctx context.Context) ([]Change, error) {
	if f.planErr != nil {
		return nil, f.planErr
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	var cs []Change
	for k, v := range f.want {
		if f.have[k] != v {
			cs = append(cs, Change{Setting: k, Old: f.have[k], New: v, Disruptive: k == "pfc"})
		}
	}
	return cs, nil
}

func (f *fakeTarget) Apply(ctx context.Context, changes []Change) ([]Change, error) {
	if f.inflight != nil {
		n := f.inflight.Add(1)
		for {
			p := f.peak.Load()
			if n <= p || f.peak.CompareAndSwap(p, n) {
				break
			}
		}
		defer f.inflight.Add(-1)
	}
	if f.log != nil {
		f.logMu.Lock()
		*f.log = append(*f.log, f.name)
		f.logMu.Unlock()
	}
	if f.gate != nil {
		f.gate()
	}
	f.mu.Lock()
	pre := map[string]string{}
	for k, v := range f.have {
		pre[k] = v
	}
	for _, c := range changes {
		f.have[c.Setting] = c.New
	}
	f.applied++
	if f.applyErr != nil {
		f.have = pre // the rollback
		f.mu.Unlock()
		return nil, fmt.Errorf("%w; %w", f.applyErr, ErrRolledBack)
	}
	f.mu.Unlock()
	return f.Plan(ctx)
}

func newFake(name string, tier Tier) *fakeTarget {
	return &fakeTarget{name: name, tier: tier, want: map[string]string{"mtu": "9000", "pfc": "3"}, have: map[string]string{"mtu": "1500"}}
}

func TestEnginePlanApplyConverges(t *testing.T) {
	var log []string
	var logMu sync.Mutex
	targets := []Target{}
	fakes := []*fakeTarget{newFake("h1", TierHost), newFake("s1", TierSwitch), newFake("sm", TierSubnetManager), newFake("h2", TierHost)}
	for _, f := range fakes {
		f.log, f.logMu = &log, &logMu
		targets = append(targets, f)
	}
	e := &Engine{Parallel: 1}
	plan := e.Plan(context.Background(), targets)
	if !plan.HasChanges() || plan.Err() != nil {
		t.Fatalf("plan: changes=%v err=%v", plan.HasChanges(), plan.Err())
	}
	if got := []string{plan.Targets[0].Target, plan.Targets[1].Target, plan.Targets[2].Target, plan.Targets[3].Target}; fmt.Sprint(got) != "[sm s1 h1 h2]" {
		t.Errorf("plan order %v, want subnet managers, switches, hosts", got)
	}
	res := e.Apply(context.Background(), targets, plan, ApplyOptions{})
	if res.Failed() || res.Err() != nil {
		t.Fatalf("apply failed: %v", res.Err())
	}
	if fmt.Sprint(log) != "[sm s1 h1 h2]" {
		t.Errorf("apply order %v, want sm before s1 before hosts", log)
	}
	again := e.Plan(context.Background(), targets)
	if again.HasChanges() {
		t.Errorf("second plan still has changes: %+v", again.Targets)
	}
	res = e.Apply(context.Background(), targets, again, ApplyOptions{})
	for _, f := range fakes {
		if f.applied != 1 {
			t.Errorf("%s applied %d times, want 1 (second apply must change nothing)", f.name, f.applied)
		}
	}
	for _, r := range res.Targets {
		if r.Outcome != OutcomeUnchanged {
			t.Errorf("%s: %s on the second apply", r.Target, r.Outcome)
		}
	}
}

func TestEngineDryRunNeverApplies(t *testing.T) {
	f := newFake("h1", TierHost)
	e := &Engine{}
	plan := e.Plan(context.Background(), []Target{f})
	res := e.Apply(context.Background(), []Target{f}, plan, ApplyOptions{DryRun: true})
	if f.applied != 0 || res.Targets[0].Outcome != OutcomeWouldApply || len(res.Targets[0].Remaining) != 2 {
		t.Fatalf("dry run: applied %d, %+v", f.applied, res.Targets[0])
	}
}

func TestEngineFailureRollsBackAndOthersContinue(t *testing.T) {
	leaf := newFake("leaf-01", TierSwitch)
	leaf.applyErr = errors.New("device rejected line 3")
	behind := newFake("h1", TierHost)
	behind.deps = []string{"leaf-01"}
	other := newFake("h2", TierHost)
	other.deps = []string{"leaf-02"}
	broken := newFake("h3", TierHost)
	broken.planErr = errors.New("dial tcp: connection refused")
	targets := []Target{leaf, behind, other, broken}
	e := &Engine{}
	plan := e.Plan(context.Background(), targets)
	if plan.Err() == nil {
		t.Fatal("plan error of h3 was lost")
	}
	res := e.Apply(context.Background(), targets, plan, ApplyOptions{})
	got := map[string]Outcome{}
	for _, r := range res.Targets {
		got[r.Target] = r.Outcome
	}
	want := map[string]Outcome{"leaf-01": OutcomeRolledBack, "h1": OutcomeSkipped, "h2": OutcomeChanged, "h3": OutcomeFailed}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("outcomes %v, want %v", got, want)
	}
	if leaf.have["mtu"] != "1500" || leaf.have["pfc"] != "" {
		t.Errorf("failed target not restored: %v", leaf.have)
	}
	if behind.applied != 0 {
		t.Errorf("a host behind the failed leaf was applied")
	}
	if !res.Failed() || !errors.Is(res.Err(), ErrRolledBack) || !errors.Is(res.Err(), ErrSkip) {
		t.Errorf("result error %v must wrap ErrRolledBack and ErrSkip", res.Err())
	}
}

// TestEngineParallelBound: the engine runs Parallel applies at once and
// never more. The first four applies wait for each other (an event, not a
// sleep): an engine that ran fewer at once would never release them.
func TestEngineParallelBound(t *testing.T) {
	var inflight, peak atomic.Int32
	var targets []Target
	var arrived sync.WaitGroup
	arrived.Add(4)
	all4 := make(chan struct{})
	go func() { arrived.Wait(); close(all4) }()
	var first atomic.Int32
	for i := 0; i < 20; i++ {
		f := newFake(fmt.Sprintf("h%02d", i), TierHost)
		f.inflight, f.peak = &inflight, &peak
		f.gate = func() {
			if first.Add(1) > 4 {
				return
			}
			arrived.Done()
			select {
			case <-all4:
			case <-time.After(time.Minute):
				t.Error("four applies were never in flight at once")
			}
		}
		targets = append(targets, f)
	}
	e := &Engine{Parallel: 4}
	e.Apply(context.Background(), targets, e.Plan(context.Background(), targets), ApplyOptions{})
	if p := peak.Load(); p != 4 {
		t.Errorf("peak concurrency %d, want 4", p)
	}
}

func TestEngineCancelledStartsNothing(t *testing.T) {
	f := newFake("h1", TierHost)
	e := &Engine{}
	plan := e.Plan(context.Background(), []Target{f})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res := e.Apply(ctx, []Target{f}, plan, ApplyOptions{})
	if f.applied != 0 || res.Targets[0].Outcome != OutcomeSkipped || !errors.Is(res.Err(), context.Canceled) {
		t.Errorf("cancelled apply: applied %d, %+v", f.applied, res.Targets[0])
	}
}
