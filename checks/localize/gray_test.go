package localize_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/checks"
	"github.com/fabricctl/fabricctl/checks/localize"
	"github.com/fabricctl/fabricctl/checks/schedule"
	"github.com/fabricctl/fabricctl/checks/topology"
	"github.com/fabricctl/fabricctl/testkit/localizesim"
)

// TestWeakFaultsNamed: faults that spoil only some tests — a gray cable
// dropping a share of its flows, a NIC slow in some rounds only, a NIC
// slow on some flows — are named exactly with switch counters: the
// localiser weighs each fault's strike rate, and the re-test rounds add
// tests on every host.
func TestWeakFaultsNamed(t *testing.T) {
	cases := []struct {
		name string
		i    int
		f    localizesim.Fault
	}{
		{"gray-cable", 21, localizesim.Fault{Kind: localizesim.Cable, Dir: localizesim.Up, Rate: 0.01, Factor: 0.7, Share: 0.4}},
		{"gray-cable-down", 40, localizesim.Fault{Kind: localizesim.Cable, Dir: localizesim.Down, Rate: 0.002, Factor: 0.9, Share: 0.5}},
		{"intermittent-nic", 9, localizesim.Fault{Kind: localizesim.NIC, Factor: 0.4, Active: 0.5}},
		{"gray-nic", 50, localizesim.Fault{Kind: localizesim.NIC, Factor: 0.5, Share: 0.6}},
		{"intermittent-uplink", 6, localizesim.Fault{Kind: localizesim.Uplink, Dir: localizesim.Both, Factor: 0.3, Active: 0.5}},
	}
	for k, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sim := localizesim.New(small(true), uint64(300+7*k))
			f := sim.BreakWith(c.i, c.f)
			s := session(t, sim)
			if len(s.Suspects) != 1 || s.Suspects[0].Component != f.Component || len(s.Suspects[0].Alternatives) != 0 {
				t.Fatalf("suspects %v (alternatives %v), want exactly %s", components(s.Suspects), alts(s.Suspects), f.Component)
			}
		})
	}
}

// TestInterchangeableSets: a silent fault that tests cannot pin to one
// component is reported as the set they cannot split, never missed: a
// black hole on one uplink (ECMP sends a test through it out of sight)
// is one of its leaf's uplinks, a spine dropping a share of its flows
// one of the spines.
func TestInterchangeableSets(t *testing.T) {
	sim := localizesim.New(small(true), 41)
	f := sim.BreakWith(5, localizesim.Fault{Kind: localizesim.Uplink, Dir: localizesim.Up, Silent: true, Share: 0.7, Incident: localizesim.IncidentBlackHole})
	s := session(t, sim)
	want := uplinksOf(sim.Topology(), "leaf-02")
	if len(s.Suspects) != 1 || !slices.Equal(sortedSet(s.Suspects[0]), want) {
		t.Errorf("black hole on %s: suspects %v %v, want one of %v", f.Component, components(s.Suspects), alts(s.Suspects), want)
	}

	sim = localizesim.New(small(true), 42)
	f = sim.BreakWith(2, localizesim.Fault{Kind: "spine", Factor: 0.2, Share: 0.5, Silent: true, Incident: localizesim.IncidentPartial})
	s = session(t, sim)
	want = []string{"switch:spine-1", "switch:spine-2", "switch:spine-3", "switch:spine-4"}
	if len(s.Suspects) != 1 || !slices.Equal(sortedSet(s.Suspects[0]), want) {
		t.Errorf("%s dropping half its flows: suspects %v %v, want one of %v", f.Component, components(s.Suspects), alts(s.Suspects), want)
	}
}

func uplinksOf(topo *topology.Topology, leaf string) []string {
	var out []string
	for _, l := range topo.LinksOf(leaf) {
		if l.Kind == topology.Fabric {
			out = append(out, "link:"+l.A.String())
		}
	}
	slices.Sort(out)
	return out
}

func sortedSet(s checks.Suspect) []string {
	out := append([]string{s.Component}, refs(s.Alternatives)...)
	slices.Sort(out)
	return out
}

// TestPauseStorm: a NIC flooding its leaf with pauses slows its own tests
// and a share of its leaf's others; its storm counter names it, and the
// leaf's slow tests are its doing, not its neighbours'.
func TestPauseStorm(t *testing.T) {
	sim := localizesim.New(small(true), 51)
	f := sim.BreakWith(20, localizesim.Fault{Kind: localizesim.NIC, Factor: 0.2, Storm: true, Incident: localizesim.IncidentPauseStorm})
	s := session(t, sim)
	if len(s.Suspects) != 1 || s.Suspects[0].Component != f.Component || len(s.Suspects[0].Alternatives) != 0 {
		t.Fatalf("suspects %v, want exactly %s", components(s.Suspects), f.Component)
	}
	ev := strings.Join(s.Suspects[0].Evidence, "\n")
	for _, want := range []string{"tx_pause_storm_warning_events", "a pause storm"} {
		if !strings.Contains(ev, want) {
			t.Errorf("evidence lacks %q:\n%s", want, ev)
		}
	}
}

// TestPossible: when bad tests name no suspect (one lossy test between
// two hosts: either end could be at fault, and one test is not enough to
// blame either), the likeliest components are still listed, with their
// alternatives and a confidence below one half; with nothing bad, none.
func TestPossible(t *testing.T) {
	m, err := localize.NewModel(localizesim.TwoLeaves(2), localize.Options{})
	if err != nil {
		t.Fatal(err)
	}
	l := localize.New(m, localize.Options{ReferenceGbps: 10})
	if err := l.Add(localize.Observation{Client: "lab-h1", Server: "lab-h3", Gbps: 2, Loss: true},
		localize.Observation{Client: "lab-h2", Server: "lab-h4", Gbps: 9.8}); err != nil {
		t.Fatal(err)
	}
	r := l.Analyze()
	if len(r.Suspects) != 0 || len(r.Possible) == 0 {
		t.Fatalf("suspects %v, possible %v", components(r.Suspects), components(r.Possible))
	}
	if err := checks.ValidateSuspects(r.Possible); err != nil {
		t.Error(err)
	}
	for _, p := range r.Possible {
		if p.Confidence <= 0 || p.Confidence >= 0.5 || !strings.HasPrefix(p.Summary, "possibly ") {
			t.Errorf("possible %s: confidence %v, summary %q", p.Component, p.Confidence, p.Summary)
		}
		if n := p.Component; !strings.Contains(n, "lab-h1") && !strings.Contains(n, "lab-h3") && !strings.Contains(n, "isl") && !strings.Contains(n, "leaf-0") {
			t.Errorf("possible %s is on no path of the lossy test", n)
		}
	}
	l = localize.New(m, localize.Options{ReferenceGbps: 10})
	if err := l.Add(localize.Observation{Client: "lab-h1", Server: "lab-h3", Gbps: 9.8}); err != nil {
		t.Fatal(err)
	}
	if r := l.Analyze(); len(r.Possible) != 0 {
		t.Errorf("nothing bad: possible %v", components(r.Possible))
	}
}

// TestPinnedPathsHealthy: with every test's path known (pinned ECMP), the
// localiser's own re-tests crowd some uplinks and the collisions slow
// them; it measures how often a test is slow at each load and takes none
// of those links for a slow one.
func TestPinnedPathsHealthy(t *testing.T) {
	for seed := range uint64(3) {
		cfg := small(false)
		cfg.PinnedPaths = true
		sim := localizesim.New(cfg, 600+seed)
		m, err := localize.NewRoutedModel(sim.Topology(), sim.Routes(), localize.Options{})
		if err != nil {
			t.Fatal(err)
		}
		rounds, _ := schedule.Topology(m.ScheduleHosts(), schedule.LeafLabel, schedule.DefaultTopologyRounds)
		s, err := localize.Run(t.Context(), m, sim, rounds, localize.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if len(s.Suspects) != 0 {
			t.Errorf("seed %d: suspects on a healthy fabric: %v", seed, components(s.Suspects))
		}
	}
}

func ExampleResult_possible() {
	m, _ := localize.NewModel(localizesim.TwoLeaves(2), localize.Options{})
	l := localize.New(m, localize.Options{ReferenceGbps: 10})
	_ = l.Add(localize.Observation{Client: "lab-h1", Server: "lab-h3", Gbps: 2, Loss: true})
	r := l.Analyze()
	fmt.Println(len(r.Suspects), len(r.Possible) > 0)
	// Output: 0 true
}
