package main

import (
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/checks/localize"
	"github.com/fabricctl/fabricctl/checks/schedule"
	"github.com/fabricctl/fabricctl/testkit/localizesim"
)

// TestIBFigures holds the IB mode of the benchmark to its goals (exact ≥
// 0.98 with one fault, ≥ 0.90 with three, at most 12 rounds) on fewer
// trials than bench/localize.sh, with the benchmark's own seeds (SEED=1):
// the same trials give the same verdicts on every run.
func TestIBFigures(t *testing.T) {
	cfg := localizesim.IB()
	sim := localizesim.New(cfg, 0)
	m, err := localize.NewRoutedModel(sim.Topology(), sim.Routes(), localize.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rounds, err := schedule.Topology(m.ScheduleHosts(), schedule.LeafLabel, schedule.DefaultTopologyRounds)
	if err != nil {
		t.Fatal(err)
	}
	trials := map[int]int{1: 50, 3: 20}
	if testing.Short() {
		trials = map[int]int{1: 10, 3: 5}
	}
	goal := map[int]float64{1: 0.98, 3: 0.90}
	for _, k := range []int{1, 3} {
		res := sessions(cfg, m, rounds, k, trials[k], 1_000_003+uint64(k)*10_007+500_000_000, driverRun)
		exact := 0
		for _, r := range res {
			if r.class == classExact {
				exact++
			} else {
				t.Logf("%d faults, seed %d: %v %v, suspects %v", k, r.seed, r.truth, r.kinds, r.got)
			}
			if r.rounds > 12 {
				t.Errorf("%d faults, seed %d: %d rounds", k, r.seed, r.rounds)
			}
		}
		if f := float64(exact) / float64(trials[k]); f < goal[k] {
			t.Errorf("%d faults: exact %.3f < %.2f", k, f, goal[k])
		}
	}
}

// TestRefineDriver runs a few one-fault sessions of the easy model on a
// small fabric with both drivers on the same seeds, with switch counters
// and with host counters only. Refine (DRIVER=refine, as fabricctl check
// drives the localiser) must find the fault within the schedule's rounds
// and at most refineRounds re-test rounds, stop early once the suspect is
// exact, and run re-tests where host counters leave it ambiguous; Run
// always runs all its rounds.
func TestRefineDriver(t *testing.T) {
	const trials = 4
	seed := uint64(1_000_003 + 10_007)
	early, retested := false, false
	for _, switches := range []bool{true, false} {
		cfg := localizesim.Default()
		cfg.Hosts, cfg.Leaves, cfg.Spines = 128, 8, 4
		cfg.SwitchCounters = switches
		m, rounds := modelAndSchedule(t, cfg)
		most := len(rounds) + refineRounds
		for _, r := range sessions(cfg, m, rounds, 1, trials, seed, driverRefine) {
			t.Logf("refine, switch counters %v, seed %d: %d rounds, suspects %v", switches, r.seed, r.rounds, r.got)
			if !judge(r).resolved {
				t.Errorf("refine, switch counters %v, seed %d: %v %v, suspects %v", switches, r.seed, r.truth, r.kinds, r.got)
			}
			if r.rounds < len(rounds) || r.rounds > most {
				t.Errorf("refine, switch counters %v, seed %d: %d rounds, want %d to %d", switches, r.seed, r.rounds, len(rounds), most)
			}
			early = early || r.rounds < most
			retested = retested || !switches && r.rounds > len(rounds)
		}
		for _, r := range sessions(cfg, m, rounds, 1, trials, seed, driverRun) {
			if all := len(rounds) + 8; r.rounds != all { // Run's default MaxAdaptiveRounds, always run
				t.Errorf("run, switch counters %v, seed %d: %d rounds, want %d", switches, r.seed, r.rounds, all)
			}
		}
	}
	if !early {
		t.Error("refine never stopped before its bound")
	}
	if !retested {
		t.Error("refine ran no re-test with host counters only")
	}
}

// TestDriver: DRIVER takes run (the default) or refine, and only refine
// tags the figure lines.
func TestDriver(t *testing.T) {
	for _, c := range []struct {
		env, tag string
		ok       bool
	}{{"", "", true}, {"run", "", true}, {"refine", " driver=refine", true}, {"Refine", "", false}, {"sweep", "", false}} {
		d, err := parseDriver(c.env)
		if (err == nil) != c.ok {
			t.Errorf("DRIVER=%q: error %v, want ok %v", c.env, err, c.ok)
			continue
		}
		if err == nil && d.tag() != c.tag {
			t.Errorf("DRIVER=%q: tag %q, want %q", c.env, d.tag(), c.tag)
		}
	}
	line := honest(localizesim.Default(), "switch", 0, nil, driverRefine.tag())[0]
	if !strings.HasSuffix(line, " meanRounds=0.0 driver=refine") {
		t.Errorf("honest line %q does not end with the driver", line)
	}
}

// modelAndSchedule is the localiser's model of cfg's fabric and the
// topology schedule over it, as the benchmark builds them.
func modelAndSchedule(t *testing.T, cfg localizesim.Config) (*localize.Model, []schedule.Round) {
	t.Helper()
	sim := localizesim.New(cfg, 0)
	m, err := localize.NewRoutedModel(sim.Topology(), sim.Routes(), localize.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rounds, err := schedule.Topology(m.ScheduleHosts(), schedule.LeafLabel, schedule.DefaultTopologyRounds)
	if err != nil {
		t.Fatal(err)
	}
	return m, rounds
}
