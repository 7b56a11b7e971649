package main

import (
	"testing"

	"github.com/fabricctl/fabricctl/testkit/localizesim"
)

// TestHardModelFigures holds the localiser to floors on the harder fault
// models (gray, intermittent, incidents, mixed) with one fault and switch
// counters, on a few trials with the benchmark's seeds (SEED=1): the
// same trials give the same verdicts on every run. The floors are the
// figures measured when they were set, less a margin of one trial.
func TestHardModelFigures(t *testing.T) {
	if testing.Short() {
		t.Skip("1,024-host sessions")
	}
	const trials = 8
	floors := map[localizesim.FaultModel]float64{localizesim.Gray: 0.875, localizesim.Intermittent: 0.875, localizesim.Incidents: 0.75, localizesim.Mixed: 0.875}
	for model, floor := range floors {
		cfg := localizesim.Default()
		cfg.Model = model
		m, rounds := modelAndSchedule(t, cfg)
		res := sessions(cfg, m, rounds, 1, trials, 1_000_003+10_007, driverRun)
		resolved := 0
		for _, r := range res {
			if judge(r).resolved {
				resolved++
			} else {
				t.Logf("%s, seed %d: %v %v, suspects %v", model, r.seed, r.truth, r.kinds, r.got)
			}
			if r.rounds > 12 {
				t.Errorf("%s, seed %d: %d rounds", model, r.seed, r.rounds)
			}
		}
		t.Logf("%s: resolved %d of %d", model, resolved, trials)
		if f := float64(resolved) / trials; f < floor {
			t.Errorf("%s: resolved %.3f < %.2f", model, f, floor)
		}
	}
}

// TestJudge checks the honest scoring on hand-made verdicts.
func TestJudge(t *testing.T) {
	cable := []string{"cable:h1:eth0", "port:leaf-01:swp1"}
	for _, c := range []struct {
		name string
		got  [][]string
		want scored
	}{
		{"exact", [][]string{{"cable:h1:eth0"}}, scored{exact: true, resolved: true}},
		{"cable or port", [][]string{{"cable:h1:eth0", "port:leaf-01:swp1"}}, scored{resolved: true}},
		{"port alone", [][]string{{"port:leaf-01:swp1"}}, scored{resolved: true}},
		{"none", nil, scored{missed: true}},
		{"elsewhere", [][]string{{"nic:h2:eth0"}}, scored{misblamed: true}},
		{"too wide", [][]string{{"cable:h1:eth0", "nic:h1:eth0"}}, scored{}},
	} {
		r := verdict{truth: []string{"cable:h1:eth0"}, classes: [][]string{cable}, got: c.got}
		r.class = Classify(r.truth, r.got)
		if got := judge(r); got != c.want {
			t.Errorf("%s: %+v, want %+v", c.name, got, c.want)
		}
	}
}

// TestUnsplittable: the sets the honest scoring judges against — a cable
// with its leaf port; with ECMP out of sight an uplink with its leaf's
// others and their group, a spine with the other spines; with pinned
// paths the uplink and the spine alone.
func TestUnsplittable(t *testing.T) {
	for _, pinned := range []bool{false, true} {
		cfg := localizesim.Default()
		cfg.Hosts, cfg.Leaves, cfg.Spines = 64, 4, 4
		cfg.PinnedPaths = pinned
		sim := localizesim.New(cfg, 1)
		cable := sim.BreakWith(0, localizesim.Fault{Kind: localizesim.Cable, Dir: localizesim.Up, Factor: 0.3})
		up := sim.BreakWith(5, localizesim.Fault{Kind: localizesim.Uplink, Dir: localizesim.Up, Factor: 0.3})
		spine := sim.BreakWith(2, localizesim.Fault{Kind: "spine", Factor: 0.2, Share: 0.5})
		for _, c := range []struct {
			f    localizesim.Fault
			want int
		}{{cable, 2}, {up, map[bool]int{false: 5, true: 1}[pinned]}, {spine, map[bool]int{false: 4, true: 1}[pinned]}} {
			got := unsplittable(sim, c.f)
			if len(got) != c.want || got[0] != c.f.Component {
				t.Errorf("pinned %v: %s: %v, want %d components", pinned, c.f.Component, got, c.want)
			}
		}
	}
}
