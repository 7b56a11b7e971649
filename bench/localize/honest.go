package main

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/fabricctl/fabricctl/checks/topology"
	"github.com/fabricctl/fabricctl/testkit/localizesim"
)

// kindOf names a fault's kind for the per-kind lines: the incident kind,
// else the component kind with its effect (nic, cable, uplink/degraded …),
// "gray-" or "intermittent-" in front for those models' faults.
func kindOf(cfg localizesim.Config, f localizesim.Fault) string {
	kind := string(f.Kind)
	if f.Effect != localizesim.Corrupt {
		kind += "/" + string(f.Effect)
	}
	switch {
	case f.Incident != "":
		return f.Incident
	case f.Rate > 0 || f.Share > 0 && f.Kind == localizesim.NIC:
		return "gray-" + kind
	case f.Active > 0:
		return "intermittent-" + kind
	}
	return kind
}

// unsplittable is the smallest set of components that no end-to-end test
// can split from fault f: a cable and its leaf port (both carry the same
// tests both ways), a spine's missing route to a leaf and the uplink to
// that leaf; and where the tests' paths are hidden (ECMP), an uplink and
// the other uplinks of its leaf with their group, and a spine and the
// other spines. Counters may split them; tests cannot.
func unsplittable(sim *localizesim.Sim, f localizesim.Fault) []string {
	out := []string{f.Component}
	topo := sim.Topology()
	for _, l := range topo.Links {
		a, b := "cable:"+l.A.String(), "port:"+l.B.String()
		switch f.Component {
		case a:
			out = append(out, b)
		case b:
			out = append(out, a)
		}
	}
	uplinkOfLeaf := func(leaf string) {
		for _, l := range topo.LinksOf(leaf) {
			if id := "link:" + l.A.String(); l.A.Device == leaf && strings.HasPrefix(l.B.Device, "spine") && !slices.Contains(out, id) {
				out = append(out, id)
			}
		}
		out = append(out, "uplinks:"+leaf)
	}
	if strings.HasPrefix(f.Component, "switch:") && f.Via == "" && !sim.Config().PinnedPaths {
		// A spine dropping a share of what crosses it: with ECMP out of
		// sight every spine carries a like share of every leaf's tests.
		for _, n := range topo.Nodes {
			if id := "switch:" + n.Name; n.Role == topology.RoleSpine && id != f.Component {
				out = append(out, id)
			}
		}
	}
	if f.Kind == localizesim.Uplink {
		id := f.Component
		if f.Via != "" { // a spine's missing route shows as its uplink to the leaf failing downwards
			id = f.Via
			out = append(out, id)
		}
		leaf := ""
		if i := strings.Index(id, ":swp"); strings.HasPrefix(id, "link:") && i > 0 {
			leaf = id[len("link:"):i]
		}
		if leaf != "" && !sim.Config().PinnedPaths {
			uplinkOfLeaf(leaf)
		}
	}
	return out
}

// score is one trial judged honestly against the unsplittable classes.
type scored struct{ exact, resolved, missed, misblamed bool }

func judge(r verdict) scored {
	var s scored
	s.exact = r.class == classExact
	if len(r.truth) > 0 && len(r.got) == 0 {
		s.missed = true
	}
	hit := make([]bool, len(r.truth))
	within := true
	for _, set := range r.got {
		in := false
		for i, cl := range r.classes {
			if slices.ContainsFunc(set, func(c string) bool { return slices.Contains(cl, c) }) {
				in, hit[i] = true, true
			}
		}
		if !in {
			s.misblamed = true
		}
		for _, c := range set {
			if !slices.ContainsFunc(r.classes, func(cl []string) bool { return slices.Contains(cl, c) }) {
				within = false
			}
		}
	}
	s.resolved = within && !slices.Contains(hit, false) && !s.misblamed
	return s
}

// honest prints the lines of issue 32's form for one setting: overall,
// then (one fault) per fault kind with kind= after evidence=; every line
// ends with tag (the driver's, driver.tag).
func honest(cfg localizesim.Config, evidence string, k int, res []verdict, tag string) []string {
	type tally struct{ n, exact, resolved, missed, misblamed, named, maxRounds, sumRounds, possible int }
	all := &tally{}
	kinds := map[string]*tally{}
	add := func(t *tally, r verdict, s scored) {
		t.n++
		for _, c := range []struct {
			b bool
			n *int
		}{{s.exact, &t.exact}, {s.resolved, &t.resolved}, {s.missed, &t.missed}, {s.misblamed, &t.misblamed}} {
			if c.b {
				*c.n++
			}
		}
		for _, set := range r.got {
			t.named += len(set)
		}
		t.maxRounds = max(t.maxRounds, r.rounds)
		t.sumRounds += r.rounds
		if s.missed && slices.ContainsFunc(r.possible, func(set []string) bool {
			return slices.ContainsFunc(r.classes, func(cl []string) bool {
				return slices.ContainsFunc(set, func(c string) bool { return slices.Contains(cl, c) })
			})
		}) {
			t.possible++
		}
	}
	for _, r := range res {
		s := judge(r)
		add(all, r, s)
		if k == 1 && len(r.kinds) == 1 {
			t := kinds[r.kinds[0]]
			if t == nil {
				t = &tally{}
				kinds[r.kinds[0]] = t
			}
			add(t, r, s)
		}
		if os.Getenv("VERBOSE") != "" && !s.resolved {
			fmt.Fprintf(os.Stderr, "not resolved: %s/%s seed %d faults %v %v suspects %v\n", cfg.Model, evidence, r.seed, r.truth, r.kinds, r.got)
		}
	}
	line := func(kind string, t *tally) string {
		f := func(x int) string {
			if t.n == 0 {
				return "0"
			}
			return strconv.FormatFloat(float64(x)/float64(t.n), 'f', 3, 64)
		}
		cand, meanRounds := 0.0, 0.0
		if t.n > 0 {
			cand = float64(t.named) / float64(t.n)
			meanRounds = float64(t.sumRounds) / float64(t.n)
		}
		return fmt.Sprintf("localize: hosts=%d faults=%d model=%s evidence=%s%s trials=%d exact=%s resolved=%s missed=%s misblamed=%s candidates=%.2f rounds=%d meanRounds=%.1f%s",
			cfg.Hosts, k, cfg.Model, evidence, kind, t.n, f(t.exact), f(t.resolved), f(t.missed), f(t.misblamed), cand, t.maxRounds, meanRounds, tag)
	}
	out := []string{line("", all)}
	if all.missed > 0 {
		fmt.Fprintf(os.Stderr, "localize: faults=%d model=%s evidence=%s: %d of %d trials named no suspect; in %d of them the possible faults (Result.Possible) held one%s\n",
			k, cfg.Model, evidence, all.missed, all.n, all.possible, tag)
	}
	names := make([]string, 0, len(kinds))
	for n := range kinds {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		out = append(out, line(" kind="+n, kinds[n]))
	}
	return out
}
