package main

import (
	"slices"
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

// TestSwitchPathsNamesASilentUplink: a black hole on one uplink (every
// flow to some leaves dropped, nothing counted) with the switches' counters
// read: where ECMP keeps each test's path out of sight it can only be
// named as one of its leaf's uplinks; with pinned, known paths
// (EVIDENCE=switch-paths, check's setting where ECMP is deterministic) it
// is named alone. A healthy fabric names nothing either way.
func TestSwitchPathsNamesASilentUplink(t *testing.T) {
	if testing.Short() {
		t.Skip("1,024-host sessions")
	}
	for _, pinned := range []bool{false, true} {
		cfg := localizesim.Default()
		cfg.PinnedPaths = pinned
		m, rounds := modelAndSchedule(t, cfg)
		healthy, _, _ := driverRun.drive(t.Context(), m, localizesim.New(cfg, 7), rounds)
		if len(healthy.Suspects) != 0 {
			t.Errorf("pinned %v, healthy: suspects %v", pinned, healthy.Suspects)
		}
		sim := localizesim.New(cfg, 7)
		f := sim.BreakWith(5*cfg.Spines+2, localizesim.Fault{Kind: localizesim.Uplink, Dir: localizesim.Up, Silent: true, Share: 0.6, Incident: localizesim.IncidentBlackHole})
		res, _, _ := driverRun.drive(t.Context(), m, sim, rounds)
		var sets [][]string
		for _, s := range res.Suspects {
			set := []string{s.Component}
			for _, a := range s.Alternatives {
				set = append(set, a.Component)
			}
			sets = append(sets, set)
		}
		switch got := Classify([]string{f.Component}, sets); {
		case pinned && got != classExact:
			t.Errorf("pinned paths: suspects %v, want %s alone", sets, f.Component)
		case !pinned && (len(sets) != 1 || len(sets[0]) < 2 || !slices.Contains(sets[0], f.Component)):
			t.Errorf("hidden ECMP: suspects %v, want %s among its leaf's uplinks", sets, f.Component)
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
