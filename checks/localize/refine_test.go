package localize_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/checks"
	"github.com/fabricctl/fabricctl/checks/localize"
	"github.com/fabricctl/fabricctl/checks/schedule"
	"github.com/fabricctl/fabricctl/testkit/localizesim"
)

// pathTester answers re-tests over the two-leaf lab's topology: a test is
// lossy when bad says its path is, slow when slow does, good otherwise.
// It records the rounds it ran and may cancel a context mid-round.
type pathTester struct {
	bad, slow func(p schedule.Pair) bool
	rounds    []schedule.Round
	cancel    context.CancelFunc // when set: cancel after the first pair of the first round
}

func (f *pathTester) RunRound(ctx context.Context, round int, pairs schedule.Round) ([]localize.Observation, error) {
	f.rounds = append(f.rounds, pairs)
	var out []localize.Observation
	for _, p := range pairs {
		o := localize.Observation{Client: p.Client, Server: p.Server, Gbps: 9.8, Round: round}
		switch {
		case f.bad != nil && f.bad(p):
			o.Gbps, o.Loss = 2.1, true
		case f.slow != nil && f.slow(p):
			o.Gbps = 4.2
		}
		out = append(out, o)
		if f.cancel != nil {
			f.cancel()
			return out, ctx.Err()
		}
	}
	return out, nil
}

// halvesSweep records the two-leaf lab's halves schedule (each leaf-01
// host against one leaf-02 host: lab-h1→lab-h3, lab-h2→lab-h4) through f.
func halvesSweep(t *testing.T, f *pathTester) *localize.Localizer {
	t.Helper()
	m, err := localize.NewModel(localizesim.TwoLeaves(2), localize.Options{})
	if err != nil {
		t.Fatal(err)
	}
	l := localize.New(m, localize.Options{ReferenceGbps: 10})
	obs, _ := (&pathTester{bad: f.bad, slow: f.slow}).RunRound(t.Context(), 0, schedule.Round{{Server: "lab-h3", Client: "lab-h1"}, {Server: "lab-h4", Client: "lab-h2"}})
	if err := l.Add(obs...); err != nil {
		t.Fatal(err)
	}
	return l
}

func touches(host string) func(schedule.Pair) bool {
	return func(p schedule.Pair) bool { return p.Client == host || p.Server == host }
}

// TestRefineNarrowsTheAccessLink: after a sparse sweep one lossy test
// (lab-h1→lab-h3) could be either end's cable, port or NIC, and the
// localiser names nobody; the re-tests try each end against a clean
// partner and narrow it to lab-h1's access link: its cable, or the leaf
// port at its other end, which tests alone never split (switch counters
// would). A slow test without loss narrows to lab-h1's NIC exactly.
func TestRefineNarrowsTheAccessLink(t *testing.T) {
	for _, tc := range []struct {
		name      string
		f         *pathTester
		want      []string // the suspect set, sorted
		wantStop  string
		wantProbe string // the host a re-test must pair with a clean partner
	}{
		{"lossy cable", &pathTester{bad: touches("lab-h1")}, []string{"cable:lab-h1:eth0", "port:leaf-01:port1"}, localize.StopNoSplit, "lab-h1"},
		{"slow NIC", &pathTester{slow: touches("lab-h1")}, []string{"nic:lab-h1:eth0"}, localize.StopExact, "lab-h1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := halvesSweep(t, tc.f)
			before := l.Analyze()
			if amb := before.Ambiguities(); len(amb) != 1 || !strings.Contains(amb[0].String(), "lab-h1→lab-h3") {
				t.Fatalf("after the sweep: suspects %v, ambiguities %v; want one unexplained test", components(before.Suspects), amb)
			}
			ref, err := localize.Refine(t.Context(), l, tc.f, 1, 3)
			if err != nil {
				t.Fatal(err)
			}
			if len(ref.Rounds) == 0 || len(ref.Rounds) > 3 || ref.Stop != tc.wantStop {
				t.Fatalf("%d re-test rounds, stop %s; want 1..3, %s", len(ref.Rounds), ref.Stop, tc.wantStop)
			}
			if len(ref.Suspects) != 1 {
				t.Fatalf("suspects %v, want one", components(ref.Suspects))
			}
			set := append([]string{ref.Suspects[0].Component}, refs(ref.Suspects[0].Alternatives)...)
			slices.Sort(set)
			if !slices.Equal(set, tc.want) {
				t.Errorf("suspect set %v, want %v", set, tc.want)
			}
			first := ref.Rounds[0]
			if len(first.Splits) != 1 || len(first.Observations) != len(first.Probes) {
				t.Errorf("first round: splits %v, %d probes, %d results", first.Splits, len(first.Probes), len(first.Observations))
			}
			probed := false
			for _, p := range first.Probes {
				if p.Target.Component == "" {
					t.Errorf("probe %v has no target", p)
				}
				if touches(tc.wantProbe)(p.Pair) && !touches("lab-h3")(p.Pair) {
					probed = true
				}
			}
			if !probed {
				t.Errorf("no re-test of %s with another partner: %+v", tc.wantProbe, first.Probes)
			}
			for _, r := range tc.f.rounds {
				busy := map[string]bool{}
				for _, p := range r {
					if busy[p.Client] || busy[p.Server] {
						t.Errorf("a host in two tests of one round: %v", r)
					}
					busy[p.Client], busy[p.Server] = true, true
				}
			}
		})
	}
}

// TestRefineClos: on a 64-host Clos fabric one round of the topology
// schedule leaves a faulty access cable or NIC unnamed (one bad test, two
// ends); re-tests name it exactly and stop there.
func TestRefineClos(t *testing.T) {
	for i, kind := range []localizesim.Kind{localizesim.Cable, localizesim.NIC} {
		t.Run(string(kind), func(t *testing.T) {
			sim := localizesim.New(small(true), uint64(1+i))
			f := sim.Break(kind, 7, localizesim.Both, 0.2, false)
			m, err := localize.NewModel(sim.Topology(), localize.Options{})
			if err != nil {
				t.Fatal(err)
			}
			rounds, _ := schedule.Topology(m.ScheduleHosts(), schedule.LeafLabel, 1)
			l := localize.New(m, localize.Options{})
			obs, _ := sim.RunRound(t.Context(), 0, rounds[0])
			if err := l.Add(obs...); err != nil {
				t.Fatal(err)
			}
			if len(l.Analyze().Ambiguities()) == 0 {
				t.Fatalf("one round already exact: %v", components(l.Analyze().Suspects))
			}
			ref, err := localize.Refine(t.Context(), l, sim, 1, 3)
			if err != nil {
				t.Fatal(err)
			}
			if ref.Stop != localize.StopExact || len(ref.Rounds) == 0 || len(ref.Rounds) > 3 {
				t.Errorf("stop %s after %d rounds", ref.Stop, len(ref.Rounds))
			}
			if got := components(ref.Suspects); !slices.Equal(got, []string{f.Component}) || len(ref.Suspects[0].Alternatives) != 0 {
				t.Errorf("suspects %v, want exactly %s", got, f.Component)
			}
		})
	}
}

// TestRefineHealthy: no bad test, no re-test; and on a healthy Clos
// fabric whose noise made a test or two read bad, the re-tests that pass
// clear them: no suspect.
func TestRefineHealthy(t *testing.T) {
	f := &pathTester{}
	ref, err := localize.Refine(t.Context(), halvesSweep(t, f), f, 1, 3)
	if err != nil || len(ref.Rounds) != 0 || len(f.rounds) != 0 || ref.Stop != localize.StopNothingFailed || len(ref.Suspects) != 0 {
		t.Errorf("healthy sweep: %d rounds, stop %s, suspects %v, err %v", len(f.rounds), ref.Stop, components(ref.Suspects), err)
	}
	for seed := range uint64(4) {
		sim := localizesim.New(small(true), 40+seed)
		m, _ := localize.NewModel(sim.Topology(), localize.Options{})
		rounds, _ := schedule.Topology(m.ScheduleHosts(), schedule.LeafLabel, 2)
		l := localize.New(m, localize.Options{})
		for i, r := range rounds {
			obs, _ := sim.RunRound(t.Context(), i, r)
			l.Add(obs...)
		}
		ref, err := localize.Refine(t.Context(), l, sim, len(rounds), 3)
		if err != nil || len(ref.Suspects) != 0 {
			t.Errorf("seed %d: healthy Clos: suspects %v after %d re-test rounds (stop %s), err %v", seed, components(ref.Suspects), len(ref.Rounds), ref.Stop, err)
		}
	}
}

// TestRefineBound: the round bound holds, 0 runs none.
func TestRefineBound(t *testing.T) {
	for _, max := range []int{0, 1} {
		f := &pathTester{bad: touches("lab-h1")}
		ref, err := localize.Refine(t.Context(), halvesSweep(t, f), f, 1, max)
		if err != nil || len(ref.Rounds) != max || len(f.rounds) != max || ref.Stop != localize.StopBound {
			t.Errorf("bound %d: %d rounds run, stop %s, err %v", max, len(f.rounds), ref.Stop, err)
		}
	}
}

// TestRefineCancelled: a context ended during a round returns the state
// reached (the round's results so far are in the analysis) and the error;
// one ended before runs nothing.
func TestRefineCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	f := &pathTester{bad: touches("lab-h1"), cancel: cancel}
	l := halvesSweep(t, f)
	ref, err := localize.Refine(ctx, l, f, 1, 3)
	if !errors.Is(err, context.Canceled) || ref.Stop != localize.StopError || len(ref.Rounds) != 1 || len(ref.Rounds[0].Observations) != 1 {
		t.Fatalf("err %v, stop %s, rounds %+v", err, ref.Stop, ref.Rounds)
	}
	if ref.Tests != 3 {
		t.Errorf("the analysis counts %d tests, want the sweep's 2 and the re-test run", ref.Tests)
	}
	f = &pathTester{bad: touches("lab-h1")}
	ref, err = localize.Refine(ctx, halvesSweep(t, f), f, 1, 3)
	if !errors.Is(err, context.Canceled) || len(f.rounds) != 0 || ref.Stop != localize.StopError {
		t.Errorf("cancelled before: err %v, %d rounds", err, len(f.rounds))
	}
}

// TestRefineScreens: with Options.Screen, Refine's re-test rounds also
// pair the hosts no re-test uses (as Run's do), in the same rounds: more
// tests, no more rounds; without it, only the re-tests run.
func TestRefineScreens(t *testing.T) {
	for _, screen := range []bool{false, true} {
		sim := localizesim.New(small(true), 1)
		sim.Break(localizesim.Cable, 7, localizesim.Both, 0.2, false)
		m, err := localize.NewModel(sim.Topology(), localize.Options{})
		if err != nil {
			t.Fatal(err)
		}
		rounds, _ := schedule.Topology(m.ScheduleHosts(), schedule.LeafLabel, 1)
		l := localize.New(m, localize.Options{Screen: screen})
		obs, _ := sim.RunRound(t.Context(), 0, rounds[0])
		if err := l.Add(obs...); err != nil {
			t.Fatal(err)
		}
		ref, err := localize.Refine(t.Context(), l, sim, 1, 3)
		if err != nil {
			t.Fatal(err)
		}
		if len(ref.Rounds) == 0 {
			t.Fatalf("screen %v: no re-test round", screen)
		}
		probes, tests := 0, len(l.Observations())-len(obs)
		for _, r := range ref.Rounds {
			probes += len(r.Probes)
		}
		if screened := tests - probes; screen != (screened > 0) {
			t.Errorf("screen %v: %d tests for %d re-tests in %d rounds", screen, tests, probes, len(ref.Rounds))
		}
	}
}

// TestAmbiguitiesBesideSuspects: bad tests no suspect explains are noise
// beside named suspects unless they point somewhere (Possible): then they
// are left open, so that Refine goes on re-testing instead of stopping
// "exact" with a second fault unnamed (3 easy faults: 0.875 exact before,
// 1.000 after, bench/localize DRIVER=refine).
func TestAmbiguitiesBesideSuspects(t *testing.T) {
	cable := checks.Suspect{Rank: 1, SuspectRef: checks.SuspectRef{Kind: checks.SuspectCable, Component: "cable:h1:eth0"}}
	nic := checks.Suspect{Rank: 1, SuspectRef: checks.SuspectRef{Kind: checks.SuspectNIC, Component: "nic:h9:eth0"}}
	bad := []localize.Observation{{Client: "h9", Server: "h4", Loss: true}}
	for _, tc := range []struct {
		name string
		r    localize.Result
		open bool
	}{
		{"suspect alone", localize.Result{Suspects: []checks.Suspect{cable}}, false},
		{"suspect and noise", localize.Result{Suspects: []checks.Suspect{cable}, Unexplained: bad}, false},
		{"suspect and a possible second fault", localize.Result{Suspects: []checks.Suspect{cable}, Unexplained: bad, Possible: []checks.Suspect{nic}}, true},
		{"no suspect", localize.Result{Unexplained: bad}, true},
	} {
		var open bool
		for _, a := range tc.r.Ambiguities() {
			open = open || len(a.Unexplained) > 0
		}
		if open != tc.open {
			t.Errorf("%s: unexplained tests open %v, want %v", tc.name, open, tc.open)
		}
	}
}

// TestRefineScreenStopsWhenNothingSplits: screening never keeps Refine
// going on its own: a lossy cable and its leaf port, which no test splits
// without switch counters, stop it "no-split" well before its bound, as
// without screening (the two-leaf lab ran to the bound of 3 rounds before
// this rule).
func TestRefineScreenStopsWhenNothingSplits(t *testing.T) {
	sim := localizesim.New(small(false), 3)
	f := sim.Break(localizesim.Cable, 7, localizesim.Up, 0.2, true) // silent: no counter splits it
	m, err := localize.NewModel(sim.Topology(), localize.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rounds, _ := schedule.Topology(m.ScheduleHosts(), schedule.LeafLabel, 2)
	l := localize.New(m, localize.Options{Screen: true})
	for k, r := range rounds {
		obs, _ := sim.RunRound(t.Context(), k, r)
		if err := l.Add(obs...); err != nil {
			t.Fatal(err)
		}
	}
	ref, err := localize.Refine(t.Context(), l, sim, len(rounds), 8)
	if err != nil {
		t.Fatal(err)
	}
	if ref.Stop != localize.StopNoSplit || len(ref.Rounds) >= 8 {
		t.Errorf("stopped %s after %d rounds, want no-split before the bound", ref.Stop, len(ref.Rounds))
	}
	if len(ref.Suspects) != 1 || !slices.Contains(append([]string{ref.Suspects[0].Component}, refs(ref.Suspects[0].Alternatives)...), f.Component) {
		t.Errorf("suspects %v, want the cable's set", components(ref.Suspects))
	}
}
