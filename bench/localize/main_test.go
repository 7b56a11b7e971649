package main

import (
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
		res := sessions(cfg, m, rounds, k, trials[k], 1_000_003+uint64(k)*10_007+500_000_000)
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
