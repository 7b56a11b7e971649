package localize

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/fabricctl/fabricctl/checks"
	"github.com/fabricctl/fabricctl/checks/schedule"
)

// hypothesis is a fault set the results leave plausible, with its log
// posterior relative to the most likely one.
type hypothesis struct {
	ch change
	d  float64
}

// exploreLimit: alternatives of a suspect more than this many times less
// likely than it are not worth a test.
var exploreLimit = math.Log(1e6)

// nearLimit: a component that is not a suspect earns re-tests while the
// fault set with it is at most this many times less likely than without.
// On a healthy 1,024-host fabric ECMP collisions keep a few components
// always below it.
var nearLimit = math.Log(1e4)

// temper flattens the posterior when weighing hypotheses for re-tests, so
// that a fault the first rounds barely showed (an uplink that few tests
// happened to cross) still earns a test: the information gain is taken
// over weights ∝ exp(temper · log posterior).
const temper = 0.25

// minGain is the least expected information (bits) a re-test must bring.
const minGain = 0.02

// NextRound plans the next round of re-tests: the tests whose outcomes
// best split the explanations the results so far leave open (expected
// information gain over the competing fault sets), no host in two tests,
// at most Options.MaxPairsPerTarget per component in question. It returns
// an empty round when no test can tell them apart: the remaining
// ambiguity is for counters (or people) to settle. round (0-based) varies
// the partners picked from one call to the next.
func (l *Localizer) NextRound(round int) schedule.Round {
	var out schedule.Round
	for _, p := range l.Plan(round) {
		out = append(out, p.Pair)
	}
	return out
}

// Probe is one re-test NextRound picks, with the component in question
// it bears on: the suspect, alternative or near miss whose fault the
// test's outcome confirms or rules out.
type Probe struct {
	schedule.Pair
	Target checks.SuspectRef `json:"target"`
}

// Plan is NextRound with the reason for each re-test: the component it
// was chosen to test. Plan and NextRound count alike towards the rounds
// a component may be re-tested in.
func (l *Localizer) Plan(round int) []Probe {
	a := l.analyse()
	if l.asked == nil {
		l.asked = map[string]int{}
	}
	return a.plan(round, l.asked)
}

// maxAsks is how many rounds one component may be re-tested without
// becoming a suspect, unless it is within Options.Ambiguity of becoming
// one: by then its tests have spoken.
const maxAsks = 6

func (a *analysis) hypotheses() ([]hypothesis, map[int]uint8, map[int]float64) {
	hs := []hypothesis{{ch: noChange}}
	targets := map[int]uint8{}   // component → the fault modes in question
	closest := map[int]float64{} // near miss → its log posterior against the best
	for _, f := range a.F {
		alts, remove := a.alternatives(f)
		for _, alt := range alts {
			if alt.d < -exploreLimit {
				continue
			}
			hs = append(hs, hypothesis{ch: change{c1: int32(f), m1: 0, c2: int32(alt.c), m2: alt.m}, d: alt.d})
			targets[f] |= dirOf(a.mode[f])
			targets[alt.c] |= dirOf(alt.m)
		}
		if remove >= -exploreLimit {
			hs = append(hs, hypothesis{ch: change{c1: int32(f), m1: 0, c2: -1}, d: remove})
			targets[f] |= dirOf(a.mode[f])
		}
	}
	type near struct {
		c int
		m uint8
		d float64
	}
	var nears []near
	for _, c := range a.candidates() {
		if a.mode[c] != 0 {
			continue
		}
		if a.ubAdd(c, -1) < -nearLimit {
			continue
		}
		best := near{c: c}
		best.m, best.d = a.bestSet(c)
		if best.d >= -nearLimit {
			nears = append(nears, best)
		}
	}
	slices.SortFunc(nears, func(x, y near) int { return cmp.Or(cmp.Compare(y.d, x.d), cmp.Compare(x.c, y.c)) })
	for _, n := range nears[:min(len(nears), 64)] {
		hs = append(hs, hypothesis{ch: change{c1: int32(n.c), m1: n.m, c2: -1}, d: n.d})
		targets[n.c] |= dirOf(n.m)
		closest[n.c] = n.d
	}
	return hs, targets, closest
}

// plan picks the re-tests of one round.
func (a *analysis) plan(round int, asked map[string]int) []Probe {
	hs, all, closest := a.hypotheses()
	var targets []int
	for c := range all {
		d, near := closest[c]
		if a.mode[c] != 0 || asked[a.m.comps[c].ref.Component] < maxAsks || near && d > -math.Log(a.o.Ambiguity) {
			targets = append(targets, c)
		}
	}
	slices.Sort(targets)
	if len(hs) < 2 {
		return nil
	}
	w := make([]float64, len(hs)) // unnormalised: eig weighs the hypotheses a test bears on
	for i, h := range hs {
		w[i] = math.Exp(temper * h.d)
	}
	clear := a.clearEndpoints(targets)
	if len(clear) == 0 {
		return nil
	}
	type cand struct {
		client, server *nicEnd
		target         int
		gain           float64
	}
	var cands []cand
	for ti, c := range targets {
		for k, pr := range a.probes(c, all[c], clear, round+ti) {
			t := a.m.buildTest(pr[0], pr[1])
			switch {
			case !t.inter:
				t.bgClass = bgWithin
			case t.paths != nil:
				t.bgClass = bgECMP
			default:
				t.bgClass = bgECMP + 1
			}
			t.background = &a.bg[t.bgClass]
			gain := eig(a, &t, hs, w)
			// A test crosses a given uplink or spine on one of its
			// equal-cost paths only, so each brings less; together they
			// bring as much.
			if gain > minGain*float64(a.o.MaxPairsPerTarget)/float64(a.budget(c)) {
				cands = append(cands, cand{pr[0], pr[1], c, gain - 1e-6*float64(k)})
			}
		}
	}
	slices.SortStableFunc(cands, func(x, y cand) int { return cmp.Compare(y.gain, x.gain) })
	busy := map[string]bool{}
	perTarget := map[int]int{}
	var out []Probe
	for _, c := range cands {
		if busy[c.client.host] || busy[c.server.host] || perTarget[c.target] >= a.budget(c.target) {
			continue
		}
		busy[c.client.host], busy[c.server.host] = true, true
		perTarget[c.target]++
		out = append(out, Probe{Pair: schedule.Pair{Server: a.m.testName(c.server), Client: a.m.testName(c.client)}, Target: a.m.comps[c.target].ref})
	}
	for c := range perTarget {
		asked[a.m.comps[c].ref.Component]++
	}
	return out
}

// clearEndpoints are the endpoints whose tests were all good and whose own
// components no hypothesis involves: safe partners for re-tests.
func (a *analysis) clearEndpoints(targets []int) []*nicEnd {
	involved := map[int]bool{}
	for _, c := range targets {
		involved[c] = true
	}
	for _, f := range a.F {
		involved[f] = true
	}
	bad := map[*nicEnd]bool{}
	for ti := range a.tests {
		t := &a.tests[ti]
		if t.out != 0 {
			bad[t.client], bad[t.server] = true, true
		}
	}
	var out []*nicEnd
	for _, es := range a.m.byHost {
		for _, e := range es {
			// A suspect leaf or uplink group does not disqualify its hosts:
			// their tests are how it is tested.
			if bad[e] || involved[e.nic] || involved[e.cable] || involved[e.port] {
				continue
			}
			out = append(out, e)
		}
	}
	slices.SortFunc(out, func(x, y *nicEnd) int { return cmp.Compare(x.name, y.name) })
	return out
}

// budget is how many re-tests one component may get in a round: a
// switch-to-switch cable or a switch is crossed by one test in as many as
// there are equal-cost paths, so it gets several times a host's share.
func (a *analysis) budget(c int) int {
	switch a.m.comps[c].ref.Kind {
	case checks.SuspectUplink, checks.SuspectSpine, checks.SuspectUplinkGroup:
		return 4 * a.o.MaxPairsPerTarget
	}
	return a.o.MaxPairsPerTarget
}

// probes proposes tests that bear on component c failing in modes: its
// endpoint against clear partners on its leaf and on others, or clear
// endpoints of its leaf against clear endpoints of other leaves, sending
// the way a one-way cable fault in question corrupts.
func (a *analysis) probes(c int, modes uint8, clear []*nicEnd, seed int) [][2]*nicEnd {
	byLeaf := map[string][]*nicEnd{}
	var leaves []string
	for _, e := range clear {
		if byLeaf[e.leafName] == nil {
			leaves = append(leaves, e.leafName)
		}
		byLeaf[e.leafName] = append(byLeaf[e.leafName], e)
	}
	pick := func(es []*nicEnd, k int) *nicEnd { return es[(seed*7+k)%len(es)] }
	var out [][2]*nicEnd
	ref := a.m.comps[c].ref
	switch ref.Kind {
	case checks.SuspectNIC, checks.SuspectCable, checks.SuspectSwitchPort:
		var e *nicEnd
		for _, x := range a.m.ends {
			if x.nic == c || x.cable == c || x.port == c {
				e = x
				break
			}
		}
		if e == nil {
			return nil
		}
		if same := byLeaf[e.leafName]; len(same) > 0 {
			out = append(out, [2]*nicEnd{e, pick(same, 0)}, [2]*nicEnd{pick(same, 1), e})
		}
		for k, l := range rotate(leaves, seed) {
			if l != e.leafName && k < 4 {
				out = append(out, [2]*nicEnd{e, pick(byLeaf[l], k)})
			}
		}
	default:
		// A switch or switch-to-switch cable: load the paths through it from
		// the clear endpoints of the leaves it touches.
		mine := a.leavesOf(c)
		if len(mine) == 0 { // a spine: any two leaves cross it
			mine = rotate(leaves, seed)[:min(len(leaves), a.o.MaxPairsPerTarget)]
		}
		for _, l := range mine {
			own := byLeaf[l]
			if len(own) == 0 {
				continue
			}
			if ref.Kind == checks.SuspectLeaf && len(own) > 1 {
				out = append(out, [2]*nicEnd{pick(own, 0), pick(own, 1)})
			}
			send, recv := true, true // may l's endpoints send, receive?
			if comp := &a.m.comps[c]; comp.directional && (modes == modeAB || modes == modeBA) && len(comp.phyEnds) == 2 {
				fromA := modes == modeAB // the corruption runs from the A end to the B end
				if comp.phyEnds[0].Device == l {
					send, recv = fromA, !fromA
				} else {
					send, recv = !fromA, fromA
				}
			}
			others := rotate(leaves, seed)
			for k := 0; k < a.budget(c) && len(others) > 1; k++ {
				other := others[k%len(others)]
				if other == l {
					other = others[(k+1)%len(others)]
				}
				x, y := pick(own, k), pick(byLeaf[other], k)
				switch {
				case send && (!recv || k%2 == 0):
					out = append(out, [2]*nicEnd{x, y})
				default:
					out = append(out, [2]*nicEnd{y, x})
				}
			}
		}
	}
	return out
}

// leavesOf returns the leaves component c belongs to or touches.
func (a *analysis) leavesOf(c int) []string {
	var out []string
	for l, i := range a.m.leafOf {
		if i == c || a.m.group[l] == c {
			out = append(out, l)
		}
	}
	if len(out) == 0 {
		for _, e := range a.m.comps[c].ends {
			dev := e
			if i := indexByte(e, ':'); i >= 0 {
				dev = e[:i]
			}
			if _, ok := a.m.leafOf[dev]; ok {
				out = append(out, dev)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func indexByte(s string, b byte) int {
	for i := 0; i < len(s); i++ {
		if s[i] == b {
			return i
		}
	}
	return -1
}

func rotate(s []string, k int) []string {
	if len(s) == 0 {
		return nil
	}
	k %= len(s)
	return append(slices.Clone(s[k:]), s[:k]...)
}

// eig is the expected information gain (bits) of test t over the
// hypotheses hs with weights w.
//
// Only the hypotheses that change a component on the test's way bear on
// it; the others predict what the current fault set does (hs[0], no
// change). They are weighed against that one alone (w, unnormalised):
// how much a test tells about a component depends on that component's
// odds, not on how many others are in question elsewhere.
func eig(a *analysis, t *test, hs []hypothesis, w []float64) float64 {
	var mix [3]float64
	cond, total := 0.0, 0.0
	for i, h := range hs {
		if i > 0 && onPath(t, h.ch.c1) == 0 && (h.ch.c2 < 0 || onPath(t, h.ch.c2) == 0) {
			continue
		}
		var d [3]float64
		for o := range 3 {
			t.out = o
			d[o] = a.prob(t, h.ch)
		}
		for o := range 3 {
			mix[o] += w[i] * d[o]
		}
		cond += w[i] * entropy(d)
		total += w[i]
	}
	if total == 0 {
		return 0
	}
	for o := range 3 {
		mix[o] /= total
	}
	return entropy(mix) - cond/total
}

func entropy(p [3]float64) float64 {
	h := 0.0
	for _, x := range p {
		if x > 0 {
			h -= x * math.Log2(x)
		}
	}
	return h
}

// screen pairs the endpoints that no re-test of the round uses (busy):
// within their leaf on even rounds, which tests NICs and access links
// without ECMP's collisions, and between leaves on odd rounds (one half of
// each leaf sending to the other half of a leaf further round the ring),
// which tests the uplinks; partners and roles change from round to round.
// Faults that spoil only some tests or some rounds (gray, intermittent,
// flapping) show only with more tests; hosts that would idle add them.
func (m *Model) screen(round int, busy map[string]bool) schedule.Round {
	leaves := make([]string, 0, len(m.leafOf))
	for l := range m.leafOf {
		leaves = append(leaves, l)
	}
	slices.Sort(leaves)
	idle := map[string][]*nicEnd{}
	for _, name := range m.Endpoints() {
		e := m.ends[name]
		if !busy[e.host] {
			idle[e.leafName] = append(idle[e.leafName], e)
		}
	}
	// One NIC of a host per round: a host with several is left to the
	// first of them.
	taken := map[string]bool{}
	rng := rand.New(rand.NewPCG(uint64(round)+1, 0x5c7ee7))
	for _, l := range leaves {
		es := slices.DeleteFunc(idle[l], func(e *nicEnd) bool {
			if taken[e.host] {
				return true
			}
			taken[e.host] = true
			return false
		})
		rng.Shuffle(len(es), func(i, j int) { es[i], es[j] = es[j], es[i] })
		idle[l] = es
	}
	var out schedule.Round
	pair := func(c, s *nicEnd) {
		out = append(out, schedule.Pair{Client: m.testName(c), Server: m.testName(s)})
	}
	if round%2 == 0 || len(leaves) < 2 {
		for _, l := range leaves {
			es := idle[l]
			for i := 0; i+1 < len(es); i += 2 {
				pair(es[i], es[i+1])
			}
		}
		return out
	}
	shift := 1 + (round/2)%(len(leaves)-1)
	for i, l := range leaves {
		to := idle[leaves[(i+shift)%len(leaves)]]
		from := idle[l]
		half := len(from) / 2
		recv := to[(len(to)+1)/2:]
		for k := 0; k < half && k < len(recv); k++ {
			pair(from[k], recv[k])
		}
	}
	return out
}
