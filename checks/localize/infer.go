package localize

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/fabricctl/fabricctl/checks"
	"github.com/fabricctl/fabricctl/fabric"
)

// Localizer gathers test results and counters about one fabric and names
// the components that explain the failures. It is pure (no I/O) and not
// safe for concurrent use; Run drives it through a Tester.
type Localizer struct {
	m        *Model
	o        Options
	obs      []Observation
	counters []Counter
	read     map[fabric.Endpoint]bool
	last     *analysis      // of the data as it is; nil after a change
	asked    map[string]int // component → rounds it was re-tested in
}

// New starts a localiser over model m.
func New(m *Model, o Options) *Localizer {
	return &Localizer{m: m, o: o.withDefaults(), read: map[fabric.Endpoint]bool{}}
}

// Add records test results. An observation naming an endpoint the model
// lacks, or the same endpoint twice, is an error and nothing is added.
func (l *Localizer) Add(obs ...Observation) error {
	for i, o := range obs {
		if o.Client == o.Server {
			return fmt.Errorf("adding observation %d: %w: %s tested against itself", i, ErrEndpoint, o.Client)
		}
		for _, e := range []string{o.Client, o.Server} {
			if _, err := l.m.endpoint(e); err != nil {
				return fmt.Errorf("adding observation %d: %w", i, err)
			}
		}
		if math.IsNaN(o.Gbps) || math.IsInf(o.Gbps, 0) || o.Gbps < 0 {
			return fmt.Errorf("adding observation %d %s→%s: bandwidth %v is not a measurement", i, o.Client, o.Server, o.Gbps)
		}
		switch o.Outcome {
		case "", Good, Slow, Lossy, Void:
		default:
			return fmt.Errorf("adding observation %d %s→%s: outcome %q is not good, slow, lossy or void", i, o.Client, o.Server, o.Outcome)
		}
	}
	l.obs = append(l.obs, obs...)
	l.last = nil
	return nil
}

// SetCounters records counter evidence over the whole session so far,
// replacing what an earlier call set: read lists the endpoints whose
// counters were read (where no movement is evidence too), moved the
// counters that moved there since testing began.
func (l *Localizer) SetCounters(read []fabric.Endpoint, moved []Counter) {
	l.read = map[fabric.Endpoint]bool{}
	for _, e := range read {
		l.read[e] = true
	}
	for _, c := range moved {
		l.read[c.At] = true
	}
	l.counters = slices.Clone(moved)
	l.last = nil
}

// Observations returns the results recorded so far.
func (l *Localizer) Observations() []Observation { return slices.Clone(l.obs) }

// Result is what the localiser concludes.
type Result struct {
	// Suspects are the components that best explain the failures, the
	// strongest first, each with its evidence and the alternatives the
	// evidence cannot tell it from.
	Suspects []checks.Suspect `json:"suspects"`
	// Tests and Bad count the tests considered and those slow or lossy.
	Tests int `json:"tests"`
	Bad   int `json:"bad"`
	// ReferenceGbps is the bandwidth a healthy test reached.
	ReferenceGbps float64 `json:"referenceGbps"`
	// Unexplained are bad tests no suspect explains: taken for noise
	// (ECMP collisions, measurement hiccups) unless re-tests say otherwise.
	Unexplained []Observation `json:"unexplained,omitempty"`
	// Possible are, when bad tests went unexplained, the likeliest
	// components for them anyway (beside the suspects, if any; at least
	// 1 % likely), each with the alternatives the evidence cannot tell it
	// from and its Confidence (the probability that it, or one of its
	// alternatives, is faulty): where to look, not whom to blame. A
	// healthy fabric has some too, at low confidence: noise makes a few
	// tests bad.
	Possible []checks.Suspect `json:"possible,omitempty"`
}

// Analyze names the suspects for everything recorded so far.
func (l *Localizer) Analyze() Result {
	return l.analyse().result()
}

// Fault modes of a component in a fault set: which way a cable corrupts
// (modeAB: from its A end to its B end), or modeAll for components that
// fail as a whole (and for a cable failing both ways).
const (
	modeAB  uint8 = 1
	modeBA  uint8 = 2
	modeAll uint8 = 3
	// modeSlow: a cable that carries data slowly both ways without loss
	// (a link trained at a lower width or speed); only where routes are
	// known, since a slow uplink among equal-cost paths looks like ECMP
	// collisions.
	modeSlow uint8 = 4
	// modeStorm: a leaf whose NIC floods it with pause frames slows the
	// tests of its other hosts; only for a leaf one of whose NICs counted
	// a pause storm, and reported as that NIC's fault.
	modeStorm uint8 = 8
)

// Effect levels of faults on a test, from mild to severe, indexing emit.
const (
	levelNone = iota
	levelSlow // a faulty NIC
	levelAck  // the test's acknowledgements cross a corrupting cable
	levelLoss // its data crosses a corrupting cable or a failing switch
)

// analysis is one inference over the recorded data.
type analysis struct {
	m     *Model
	o     Options
	tests []test
	inv   [][]int32 // component → tests it may lie on
	ref   float64
	// bg: how often a healthy test of each class reads good, slow and
	// lossy (bgClass: within a leaf, across leaves by ECMP, across
	// leaves on a known route by how many tests of its round shared its
	// busiest link).
	bg [bgClasses][3]float64

	read  map[fabric.Endpoint]bool
	phy   map[fabric.Endpoint][]Counter
	disc  map[fabric.Endpoint][]Counter
	down  map[fabric.Endpoint][]Counter
	deg   map[fabric.Endpoint][]Counter
	storm map[fabric.Endpoint][]Counter
	// stormLeaf: the leaves (components) with a NIC that counted a pause storm.
	stormLeaf map[int]bool
	state     map[fabric.Endpoint]bool // port state read (a Degraded reading, moved or not)
	// discardsRead: the counters read include discards (some port counted
	// them), so a port that counted none was read clean.
	discardsRead bool
	evMax        []float64 // best counter log-likelihood ratio of each component over its modes
	// badOn: how many bad tests may cross each component.
	badOn []int32

	mode []uint8 // current fault set: the mode of each component, 0 when healthy
	F    []int
	logp []float64 // log P(outcome of t | F)

	stamp  []int32
	cstamp []int32
	tick   int32

	// scratch for bestRates
	p0, r        []float64
	scratchTests []int32

	altCache map[int]altEntry // filled once the search is over
}

func (m *Model) buildTest(c, s *nicEnd) test {
	t := test{client: c, server: s}
	// The client's cable carries data from the host (its A end) to the
	// leaf, the server's from the leaf to the host; acknowledgements the
	// other way.
	// The client's leaf port sends it only the acknowledgements.
	t.cert = []hop{{c: int32(c.nic)}, {c: int32(c.cable), dir: dirAB, ack: true}, {c: int32(c.port), ack: true}, {c: int32(c.leaf)}}
	if c.leaf != s.leaf {
		t.inter = true
		if g, ok := m.group[c.leafName]; ok {
			t.cert = append(t.cert, hop{c: int32(g)})
		}
		if g, ok := m.group[s.leafName]; ok {
			t.cert = append(t.cert, hop{c: int32(g)})
		}
		t.cert = append(t.cert, hop{c: int32(s.leaf)})
		if hops, ok := m.routedHops(c, s); ok {
			t.cert = append(t.cert, hops...)
		} else {
			k := [2]string{c.leafName, s.leafName}
			if k[1] < k[0] {
				k[0], k[1] = k[1], k[0]
				t.rev = true
			}
			t.paths = m.paths[k]
		}
	}
	t.cert = append(t.cert, hop{c: int32(s.port)}, hop{c: int32(s.cable), dir: dirBA, ack: true}, hop{c: int32(s.nic)})
	return t
}

// routedHops are the switch-to-switch cables and the switches between the
// leaves of c and s that a test from c to s crosses on its known route,
// and those its acknowledgements cross on the route back; ok is false
// when the routes do not lead from c to s.
func (m *Model) routedHops(c, s *nicEnd) ([]hop, bool) {
	if m.routes == nil {
		return nil, false
	}
	there, err := m.routes.Path(m.topo, c.ep, s.ep)
	if err != nil {
		return nil, false
	}
	hops, ok := m.walk(there, c, s, false)
	if !ok {
		return nil, false
	}
	if back, err := m.routes.Path(m.topo, s.ep, c.ep); err == nil {
		if acks, ok := m.walk(back, s, c, true); ok {
			hops = append(hops, acks...)
		}
	}
	return hops, true
}

// walk turns the ports a route leaves by into hops: every cable between
// switches, and every switch between the two ends' leaves.
func (m *Model) walk(egress []fabric.Endpoint, from, to *nicEnd, ackOnly bool) ([]hop, bool) {
	var out []hop
	for _, e := range egress {
		l, ok := m.links[e]
		if !ok {
			return nil, false
		}
		if l.access {
			continue
		}
		out = append(out, hop{c: l.c, dir: l.dir, ackOnly: ackOnly})
		if l.far == from.leafName || l.far == to.leafName {
			continue
		}
		if sw, ok := m.ids["switch:"+l.far]; ok {
			out = append(out, hop{c: int32(sw), ackOnly: ackOnly})
		} else if lf, ok := m.leafOf[l.far]; ok {
			out = append(out, hop{c: int32(lf), ackOnly: ackOnly})
		}
	}
	return out, true
}

func (l *Localizer) analyse() *analysis {
	if l.last != nil {
		return l.last
	}
	a := &analysis{m: l.m, o: l.o, read: l.read}
	outs, ref := classify(l.obs, l.o)
	a.ref = ref
	n := len(l.m.comps)
	a.inv = make([][]int32, n)
	a.badOn = make([]int32, n)
	seen := make([]int32, n)
	for i := range seen {
		seen[i] = -1
	}
	for i, ob := range l.obs {
		if outs[i] == Void {
			continue
		}
		c, _ := l.m.endpoint(ob.Client)
		s, _ := l.m.endpoint(ob.Server)
		t := l.m.buildTest(c, s)
		t.obs, t.out = ob, outcomeIndex(outs[i])
		idx := int32(len(a.tests))
		a.tests = append(a.tests, t)
		note := func(c int32) {
			if seen[c] != idx {
				seen[c] = idx
				a.inv[c] = append(a.inv[c], idx)
				if t.out != 0 {
					a.badOn[c]++
				}
			}
		}
		for _, h := range t.cert {
			note(h.c)
		}
		for _, p := range t.paths {
			for _, h := range p.hops {
				note(h.c)
			}
		}
	}
	a.loads()
	a.counters(l.counters)
	a.stamp = make([]int32, len(a.tests))
	// Two passes: the background rates measured on all tests, then on the
	// tests the first pass's suspects do not touch.
	a.background(nil)
	a.search(false)
	if len(a.F) > 0 {
		before := a.bg
		a.background(a.mode)
		if bgMoved(before, a.bg) {
			a.search(true)
		}
	}
	a.groups()
	l.last = a
	return a
}

// groupLimit: a component whose fault set is at most this many times less
// likely than without it may still be a suspect through the components
// interchangeable with it (groups).
var groupLimit = math.Log(64)

// groups adds the faults that no single component makes more likely than
// not but a set of interchangeable ones does: the uplinks of a leaf whose
// paths tests cannot tell apart (ECMP out of sight) share the evidence of
// a fault that spoils only some of their tests, so each of the eight is
// less likely than no fault while "one of the eight" is more likely. The
// odds of the set are the sum of its members' (a suspect and its
// alternatives); the strongest member stands for it, with the others as
// its alternatives.
func (a *analysis) groups() {
	type cand struct {
		c int
		m uint8
		d float64
	}
	var cs []cand
	for _, c := range a.candidates() {
		if a.mode[c] != 0 || a.ubAdd(c, -1) < -groupLimit {
			continue
		}
		if m, d := a.bestSet(c); d >= -groupLimit && d <= 1e-9 {
			cs = append(cs, cand{c, m, d})
		}
	}
	slices.SortFunc(cs, func(x, y cand) int { return cmp.Or(cmp.Compare(y.d, x.d), cmp.Compare(x.c, y.c)) })
	for _, x := range cs {
		// An earlier member of the set may explain x's tests by now.
		m, d := a.bestSet(x.c)
		if d < -groupLimit {
			continue
		}
		a.set(x.c, m)
		odds := 1.0 // the set's odds against no fault, in units of x's
		for _, g := range a.rivals(x.c) {
			if a.ubAdd(g, x.c)-d < -groupLimit {
				continue
			}
			if _, dg := a.bestSwap(x.c, g); dg > -groupLimit {
				odds += math.Exp(dg)
			}
		}
		if d+math.Log(odds) <= 0 {
			a.set(x.c, 0)
		}
	}
}

// background estimates how often a healthy test is slow or lossy, within
// a leaf and across leaves, from the tests whose certain hops touch no
// suspect. Loss gathers on the few leaves of a fault (a host, an uplink, a
// switch) while stray loss counters spread over all of them: a leaf whose
// loss count stands far above what the other leaves' rate predicts (a
// Poisson bound) is left out of the loss rate. A lossless fabric loses
// nothing for crossing more switches, so where enough tests ran within
// leaves their loss rate is every test's: a spine or an uplink group that
// loses a share of the tests of every leaf is then a fault to explain, not
// a background to absorb (tests across leaves spread it evenly, which no
// outlier bound can catch). Slow tests are not pooled: ECMP collisions
// slow tests across leaves only. A prior worth bgWeight tests keeps a
// small session (a lab of four hosts) from taking its one broken link for
// the background.
func (a *analysis) background(suspect []uint8) {
	var use []*test
	intra := 0
	for ti := range a.tests {
		t := &a.tests[ti]
		if suspect == nil || !a.touchesCert(t, suspect) {
			use = append(use, t)
			if !t.inter {
				intra++
			}
		}
	}
	nc := len(a.m.comps)
	skip := make([]bool, nc) // NIC and leaf components left out
	n, x := make([]float64, nc), make([]float64, nc)
	rate := func(class func(*test) bool, out int, prior float64, robust bool) float64 {
		// Hosts, then (robust) leaves, whose count of such tests stands far
		// above what the others' rate predicts are left out: a faulty NIC
		// or cable no suspect names yet would otherwise raise the rate
		// that hides it, most on a small fabric.
		clear(skip)
		var tn, tx float64
		left := func(t *test) bool {
			return skip[t.client.nic] || skip[t.server.nic] || skip[t.client.leaf] || skip[t.server.leaf]
		}
		count := func() {
			tn, tx = 0, 0
			for _, t := range use {
				if !class(t) || left(t) {
					continue
				}
				tn++
				if t.out == out {
					tx++
				}
			}
		}
		outliers := func(key func(*test) (int, int)) {
			clear(n)
			clear(x)
			var keys []int
			for _, t := range use {
				if !class(t) || left(t) {
					continue
				}
				k1, k2 := key(t)
				for _, k := range [2]int{k1, k2} {
					if k < 0 {
						continue
					}
					if n[k] == 0 {
						keys = append(keys, k)
					}
					n[k]++
					if t.out == out {
						x[k]++
					}
				}
			}
			var marked []int
			for _, k := range keys {
				rn, rx := tn-n[k], tx-x[k]
				if rn <= 0 {
					continue
				}
				if e := rx / rn * n[k]; x[k] > e+4*math.Sqrt(e)+3 {
					marked = append(marked, k)
				}
			}
			if len(marked) < len(keys) {
				for _, k := range marked {
					skip[k] = true
				}
			}
		}
		count()
		if tn == 0 {
			return prior
		}
		outliers(func(t *test) (int, int) { return t.client.nic, t.server.nic })
		count()
		if robust {
			outliers(func(t *test) (int, int) {
				if t.client.leaf == t.server.leaf {
					return t.client.leaf, -1
				}
				return t.client.leaf, t.server.leaf
			})
			count()
		}
		return (tx + bgWeight*prior) / (tn + bgWeight)
	}
	of := func(k int) func(*test) bool { return func(t *test) bool { return t.bgClass == k } }
	inter := func(t *test) bool { return t.inter }
	within := func(t *test) bool { return !t.inter }
	for k := range bgClasses {
		// Slow tests cluster on leaves by nature (ECMP collisions on their
		// uplinks), so only the loss rate leaves outlying leaves out.
		sp := bgSlow
		if k > bgECMP { // a known route: the rate of its neighbours in load
			sp = a.bg[k-1][1]
		}
		slow := clamp(rate(of(k), 1, sp, false), 0.002, 0.6)
		var l float64
		switch {
		case intra >= minPooled:
			l = rate(within, 2, bgLossy, true)
		case k == bgWithin:
			l = rate(within, 2, bgLossy, true)
		default:
			l = rate(inter, 2, bgLossy, true)
		}
		l = clamp(l, 0.0005, 0.1)
		a.bg[k] = [3]float64{1 - slow - l, slow, l}
	}
	for ti := range a.tests {
		a.tests[ti].background = &a.bg[a.tests[ti].bgClass]
	}
}

// Background classes (test.bgClass): tests within a leaf, tests across
// leaves over hidden ECMP paths, and tests across leaves on known routes
// by the load of their busiest link: 1, 2 … bgMaxLoad or more tests of
// their round crossing it the same way. Where routes are known, the
// localiser's own re-tests may crowd a link; the slow rate of each load
// is measured, so a link slowed by its load is not taken for a slow link.
const (
	bgWithin  = 0
	bgECMP    = 1
	bgMaxLoad = 6
	bgClasses = 2 + bgMaxLoad
)

// loads sets each test's background class: the tests of a round crossing
// each switch-to-switch link in each direction on known routes.
func (a *analysis) loads() {
	type key struct {
		round int
		c     int32
		dir   uint8
	}
	n := map[key]int{}
	routed := func(t *test) bool { return t.inter && t.paths == nil }
	for ti := range a.tests {
		t := &a.tests[ti]
		if !routed(t) {
			continue
		}
		for _, h := range t.cert {
			if !h.ackOnly && h.dir != 0 && a.m.comps[h.c].ref.Kind == checks.SuspectUplink {
				n[key{t.obs.Round, h.c, h.dir}]++
			}
		}
	}
	for ti := range a.tests {
		t := &a.tests[ti]
		switch {
		case !t.inter:
			t.bgClass = bgWithin
		case !routed(t):
			t.bgClass = bgECMP
		default:
			load := 1
			for _, h := range t.cert {
				if !h.ackOnly && h.dir != 0 && a.m.comps[h.c].ref.Kind == checks.SuspectUplink {
					load = max(load, n[key{t.obs.Round, h.c, h.dir}])
				}
			}
			t.bgClass = bgECMP + min(load, bgMaxLoad)
		}
	}
}

// minPooled is how many tests within leaves set the loss rate of every
// test (background).
const minPooled = 60

// touchesCert reports whether a component of the fault set lies on one of
// t's certain hops.
func (a *analysis) touchesCert(t *test, mode []uint8) bool {
	for _, h := range t.cert {
		if mode[h.c] != 0 {
			return true
		}
	}
	return false
}

func (a *analysis) touches(t *test, mode []uint8) bool {
	for _, h := range t.cert {
		if mode[h.c] != 0 {
			return true
		}
	}
	for _, p := range t.paths {
		for _, h := range p.hops {
			if mode[h.c] != 0 {
				return true
			}
		}
	}
	return false
}

// bgMoved reports whether a background rate changed by more than a fifth.
func bgMoved(x, y [bgClasses][3]float64) bool {
	for k := range bgClasses {
		for o := 1; o < 3; o++ {
			if math.Abs(x[k][o]-y[k][o]) > 0.2*x[k][o] {
				return true
			}
		}
	}
	return false
}

func clamp(x, lo, hi float64) float64 { return math.Min(hi, math.Max(lo, x)) }

// counters indexes the counter evidence and the best it offers each component.
func (a *analysis) counters(cs []Counter) {
	a.phy = map[fabric.Endpoint][]Counter{}
	a.disc = map[fabric.Endpoint][]Counter{}
	a.down = map[fabric.Endpoint][]Counter{}
	a.deg = map[fabric.Endpoint][]Counter{}
	a.storm = map[fabric.Endpoint][]Counter{}
	a.state = map[fabric.Endpoint]bool{}
	for _, c := range cs {
		if c.Kind == Degraded {
			a.state[c.At] = true
		}
		if c.Delta == 0 {
			continue
		}
		switch c.Kind {
		case PhyErrors:
			a.phy[c.At] = append(a.phy[c.At], c)
		case Discards:
			a.disc[c.At] = append(a.disc[c.At], c)
			a.discardsRead = true
		case LinkDown:
			a.down[c.At] = append(a.down[c.At], c)
		case Degraded:
			a.deg[c.At] = append(a.deg[c.At], c)
		case PauseStorm:
			a.storm[c.At] = append(a.storm[c.At], c)
		}
	}
	a.stormLeaf = map[int]bool{}
	for e := range a.storm {
		if ne, ok := a.m.ends[e.String()]; ok {
			a.stormLeaf[ne.leaf] = true
		}
	}
	a.evMax = make([]float64, len(a.m.comps))
	for i := range a.m.comps {
		best := math.Inf(-1)
		for _, m := range a.modes(i) {
			best = math.Max(best, a.evidence(i, m))
		}
		a.evMax[i] = best
	}
}

// modes lists the fault modes of component c.
func (a *analysis) modes(c int) []uint8 {
	dirs := a.dirs(c)
	out := make([]uint8, 0, len(dirs)*len(strikes))
	for _, d := range dirs {
		for k := range strikesOf(d) {
			out = append(out, withStrike(d, k))
		}
	}
	return out
}

// dirs lists the ways component c can fail, whatever its strike rate.
func (a *analysis) dirs(c int) []uint8 {
	switch {
	case a.stormLeaf[c]:
		return dirsStormLeaf
	case a.m.comps[c].directional && a.m.routes != nil:
		return dirsRouted
	case a.m.comps[c].directional:
		return dirsCable
	}
	return dirsWhole
}

var (
	dirsRouted = []uint8{modeAB, modeBA, modeAll, modeSlow}
	dirsCable  = []uint8{modeAB, modeBA, modeAll}
	dirsWhole  = []uint8{modeAll}
	// A leaf one of whose NICs counted a pause storm.
	dirsStormLeaf = []uint8{modeAll, modeStorm}
)

// evidence is the log-likelihood ratio of the counters about component c
// failing in mode m: a cable corrupting towards an end whose counters were
// read shows receive errors there (or is less likely for showing none); a
// switch port dropping frames counts discards.
func (a *analysis) evidence(c int, m uint8) float64 {
	m = dirOf(m)
	comp := &a.m.comps[c]
	llr := 0.0
	if comp.directional && len(comp.phyEnds) == 2 {
		for k, e := range comp.phyEnds {
			towards := modeAB // errors at B come from a cable corrupting A→B
			if k == 0 {
				towards = modeBA
			}
			if m&towards == 0 || !a.read[e] {
				continue
			}
			if len(a.phy[e]) > 0 {
				llr += math.Log(pSeen / pBackground)
			} else {
				llr += math.Log((1 - pSeen) / (1 - pBackground))
			}
		}
		// A link that went down counts it at both ends and fails both ways
		// without corrupting: the count stands for the receive errors. One
		// trained low shows it in both ends' port state, and one whose
		// state was read at its width did not. The absence of a link-down
		// count is no evidence: not every fabric reads it.
		var down, deg, state bool
		for _, e := range comp.phyEnds {
			down = down || len(a.down[e]) > 0
			deg = deg || len(a.deg[e]) > 0
			state = state || a.state[e]
		}
		if down && m == modeAll {
			llr = math.Max(llr, math.Log(pDownSeen/pDownBackground))
		}
		switch {
		case m != modeSlow:
		case deg:
			llr += math.Log(pStateSeen / pBackground)
		case state:
			llr += math.Log((1 - pStateSeen) / (1 - pBackground))
		}
	}
	if m == modeStorm && a.stormLeaf[c] {
		llr += math.Log(pStormSeen / pStormBackground)
	}
	if comp.ref.Kind == checks.SuspectNIC && len(a.storm) > 0 {
		// A NIC that stalled sending pauses is a faulty NIC; one that did
		// not is no less likely faulty in another way.
		if e, err := fabric.ParseEndpoint(strings.TrimPrefix(comp.ref.Component, "nic:")); err == nil && len(a.storm[e]) > 0 {
			llr += math.Log(pStormSeen / pStormBackground)
		}
	}
	if comp.ref.Kind == checks.SuspectSwitchPort {
		e, err := fabric.ParseEndpoint(strings.TrimPrefix(comp.ref.Component, "port:"))
		switch {
		case err != nil:
		case len(a.disc[e]) > 0:
			llr += math.Log(0.5 / 0.02)
		case a.discardsRead && a.read[e]:
			llr += math.Log(0.5 / 0.98)
		}
	}
	return llr
}

// effect is how a component in mode m on hop h spoils a test.
func (a *analysis) effect(h hop, m uint8, rev bool) int {
	m = dirOf(m)
	comp := &a.m.comps[h.c]
	switch {
	case m == modeStorm && (h.ackOnly || comp.ref.Kind != checks.SuspectLeaf):
		return levelNone
	case m == modeStorm:
		return levelSlow
	case m == modeSlow && h.ackOnly:
		return levelNone
	case m == modeSlow:
		return levelSlow
	case h.ackOnly && !comp.lossy:
		return levelNone
	case h.ackOnly && (!comp.directional || m == modeAll || m&h.dir != 0):
		return levelAck
	case h.ackOnly:
		return levelNone
	case h.ack && a.m.routes != nil && comp.ref.Kind == checks.SuspectSwitchPort:
		// Where routes are known (InfiniBand) a port fault is one that
		// drops what the port sends (PortXmitDiscards): the client's leaf
		// port sends it only acknowledgements.
		return levelAck
	}
	switch {
	case !comp.lossy:
		return levelSlow
	case !comp.directional || m == modeAll:
		return levelLoss
	}
	dir := h.dir
	if rev {
		dir ^= 3
	}
	if m&dir != 0 {
		return levelLoss
	}
	if h.ack {
		return levelAck
	}
	return levelNone
}

// change is a fault set that differs from the current one in at most two
// components: c1 takes mode m1, c2 mode m2 (-1: unused).
type change struct {
	c1, c2 int32
	m1, m2 uint8
}

var noChange = change{c1: -1, c2: -1}

func (a *analysis) modeOf(x int32, ch change) uint8 {
	switch x {
	case ch.c1:
		return ch.m1
	case ch.c2:
		return ch.m2
	}
	return a.mode[x]
}

// prob is P(outcome of t | the current fault set changed by ch): each
// fault on the test's way strikes it with its strike rate, independently
// (a noisy-OR), and the test shows the worst effect that struck; between
// leaves, mixed over the equal-cost paths.
func (a *analysis) prob(t *test, ch change) float64 {
	q := [4]float64{1, 1, 1, 1} // q[L]: no fault of level ≥ L struck
	for _, h := range t.cert {
		if m := a.modeOf(h.c, ch); m != 0 {
			if lv := a.effect(h, m, false); lv > levelNone {
				miss := 1 - strikeOf(m)
				for l := levelSlow; l <= lv; l++ {
					q[l] *= miss
				}
			}
		}
	}
	base := a.mixLevels(t, &q)
	if t.paths == nil || q[levelLoss] == 0 {
		return base
	}
	sum, rest := 0.0, 1.0
	for pi := range t.paths {
		p := &t.paths[pi]
		pq, hit := q, false
		for _, h := range p.hops {
			if m := a.modeOf(h.c, ch); m != 0 {
				if lv := a.effect(h, m, t.rev); lv > levelNone {
					miss := 1 - strikeOf(m)
					for l := levelSlow; l <= lv; l++ {
						pq[l] *= miss
					}
					hit = true
				}
			}
		}
		if hit {
			sum += p.p * a.mixLevels(t, &pq)
			rest -= p.p
		}
	}
	return sum + math.Max(rest, 0)*base
}

// mixLevels is P(outcome of t) when q[L] is the probability that no fault
// of level L or worse struck it.
func (a *analysis) mixLevels(t *test, q *[4]float64) float64 {
	if q[levelSlow] == 1 {
		return t.background[t.out]
	}
	return q[levelSlow]*t.background[t.out] +
		(q[levelAck]-q[levelSlow])*emitNIC[t.out] +
		(q[levelLoss]-q[levelAck])*emitAck[t.out] +
		(1-q[levelLoss])*emitLossy[t.out]
}

// prior is the log prior odds of c failing in mode m with its counters; a
// cable's three modes share its prior.
func (a *analysis) prior(c int, m uint8) float64 {
	ev := a.evidence(c, m)
	k := strikeIndex(m)
	p := a.m.comps[c].logOdds + ev + strikeLogPrior[k]
	if k > 0 && ev >= strongEvidence && a.badOn[c] >= 2 {
		// Counters that all but show the fault (a link-down at a link's
		// ends) answer the doubt that weak faults must otherwise clear,
		// once more than one bad test crossed it: a link that went down
		// once (a host rebooted) and one stray bad test through it are
		// as likely on a healthy fabric.
		p += math.Log(weakOdds)
	}
	if a.m.comps[c].directional {
		p -= math.Log(float64(len(a.dirs(c))))
	}
	return p
}

// search finds a maximum a posteriori fault set: lazy greedy additions,
// then removals, mode changes and swaps until nothing improves. With warm
// set it starts from the current fault set (after a background change).
func (a *analysis) search(warm bool) {
	n := len(a.m.comps)
	if !warm {
		a.mode = make([]uint8, n)
		a.F = nil
	}
	a.logp = make([]float64, len(a.tests))
	for ti := range a.tests {
		a.logp[ti] = math.Log(a.prob(&a.tests[ti], noChange))
	}
	for iter := 0; iter < 8; iter++ {
		// After the first pass refine has left a set it cannot improve:
		// only additions give it more to do.
		if added := a.greedy(); !added && iter > 0 {
			break
		}
		if !a.refine() && iter > 0 {
			break
		}
	}
}

// greedy adds the best component while it improves the posterior. Gains
// only shrink as faults are added (a test already explained gains less),
// so stale gains are upper bounds: the best is re-evaluated until it stays
// on top (lazy greedy).
func (a *analysis) greedy() bool {
	type entry struct {
		c    int
		m    uint8
		gain float64
		at   int // len(F) when computed
	}
	var h []entry
	for _, c := range a.candidates() {
		if a.mode[c] != 0 {
			continue
		}
		if a.ubAdd(c, -1) <= 1e-9 {
			continue
		}
		best := entry{c: c, at: len(a.F)}
		best.m, best.gain = a.bestSet(c)
		if best.gain > 1e-9 {
			h = append(h, best)
		}
	}
	added := false
	for len(h) > 0 && len(a.F) < 64 {
		slices.SortFunc(h, func(x, y entry) int { return cmp.Or(cmp.Compare(y.gain, x.gain), cmp.Compare(x.c, y.c)) })
		top := &h[0]
		if a.mode[top.c] != 0 {
			h = h[1:]
			continue
		}
		if top.at != len(a.F) {
			top.at = len(a.F)
			top.m, top.gain = a.bestSet(top.c)
			if top.gain <= 1e-9 {
				h = h[1:]
			}
			continue
		}
		a.set(top.c, top.m)
		added = true
		h = h[1:]
	}
	return added
}

// refine removes suspects, changes their modes or swaps them for rivals
// while that improves the posterior; it reports whether anything changed.
func (a *analysis) refine() bool {
	any := false
	for iter := 0; iter < 8; iter++ {
		changed := false
		for _, f := range slices.Clone(a.F) {
			bestM, bestD := a.mode[f], 1e-9
			if m, d := a.bestSet(f); m != a.mode[f] && d > bestD {
				bestM, bestD = m, d
			}
			if d := a.deltaSet(f, 0); d > bestD {
				bestM, bestD = 0, d
			}
			if bestM != a.mode[f] {
				a.set(f, bestM)
				changed = true
			}
		}
		for _, f := range slices.Clone(a.F) {
			if a.mode[f] == 0 {
				continue
			}
			best, bestM, bestD := -1, uint8(0), 1e-9
			remove := a.deltaSet(f, 0)
			for _, g := range a.rivals(f) {
				if a.ubAdd(g, f)+remove <= bestD {
					continue
				}
				if m, d := a.bestSwap(f, g); d > bestD {
					best, bestM, bestD = g, m, d
				}
			}
			if best >= 0 {
				a.set(f, 0)
				a.set(best, bestM)
				changed = true
			}
		}
		if !changed {
			break
		}
		any = true
	}
	return any
}

// candidates are the components with counter evidence, or on a bad test
// whose outcome their failure would cause: a NIC on a slow test, anything
// else on a lossy one (a cable on a slow one too where routes are known). (A NIC rarely loses packets, a cable rarely slows
// without loss; such components can still come in as rivals.)
func (a *analysis) candidates() []int {
	var out []int
	for c := range a.m.comps {
		if a.evMax[c] > 0 {
			out = append(out, c)
			continue
		}
		want := 2
		if !a.m.comps[c].lossy {
			want = 1
		}
		// Where routes are known a cable may also run slow (modeSlow).
		slowToo := a.m.routes != nil && a.m.comps[c].directional
		for _, t := range a.inv[c] {
			if o := a.tests[t].out; o == want || slowToo && o == 1 {
				out = append(out, c)
				break
			}
		}
	}
	return out
}

// rivals are the components that could replace f: those on at least half
// of the bad tests f explains (their outcome at least twice as likely with
// f as without; a component on fewer cannot explain as much), or with
// counter evidence.
func (a *analysis) rivals(f int) []int {
	count := map[int32]int{}
	explained := 0
	without := change{c1: int32(f), m1: 0, c2: -1}
	for _, t := range a.inv[f] {
		tt := &a.tests[t]
		if tt.out == 0 || a.logp[t]-math.Log(a.prob(tt, without)) < math.Ln2 {
			continue
		}
		explained++
		a.tick++
		for _, h := range tt.cert {
			if a.stampC(h.c) {
				count[h.c]++
			}
		}
		for _, p := range tt.paths {
			for _, h := range p.hops {
				if a.stampC(h.c) {
					count[h.c]++
				}
			}
		}
	}
	need := max(1, (explained+1)/2)
	var out []int
	for c, n := range count {
		if int(c) != f && a.mode[c] == 0 && n >= need {
			out = append(out, int(c))
		}
	}
	for c := range a.m.comps {
		if a.evMax[c] > 0 && c != f && a.mode[c] == 0 && count[int32(c)] < need {
			out = append(out, c)
		}
	}
	slices.Sort(out)
	return out
}

// stampC marks component c as seen for the current tick and reports
// whether it was new.
func (a *analysis) stampC(c int32) bool {
	if a.cstamp == nil {
		a.cstamp = make([]int32, len(a.m.comps))
	}
	if a.cstamp[c] == a.tick {
		return false
	}
	a.cstamp[c] = a.tick
	return true
}

// deltaSet is the change of log posterior when c's mode becomes m (0: healthy).
func (a *analysis) deltaSet(c int, m uint8) float64 {
	old := a.mode[c]
	ch := change{c1: int32(c), m1: m, c2: -1}
	d := 0.0
	for _, t := range a.inv[c] {
		d += math.Log(a.prob(&a.tests[t], ch)) - a.logp[t]
	}
	if old != 0 {
		d -= a.prior(c, old)
	}
	if m != 0 {
		d += a.prior(c, m)
	}
	return d
}

// deltaSwap is the change of log posterior when g in mode m replaces f.
func (a *analysis) deltaSwap(f, g int, m uint8) float64 {
	ch := change{c1: int32(f), m1: 0, c2: int32(g), m2: m}
	a.tick++
	d := 0.0
	for _, list := range [2][]int32{a.inv[f], a.inv[g]} {
		for _, t := range list {
			if a.stamp[t] == a.tick {
				continue
			}
			a.stamp[t] = a.tick
			d += math.Log(a.prob(&a.tests[t], ch)) - a.logp[t]
		}
	}
	return d - a.prior(f, a.mode[f]) + a.prior(g, m)
}

func (a *analysis) set(c int, m uint8) {
	was := a.mode[c]
	a.mode[c] = m
	switch {
	case was == 0 && m != 0:
		a.F = append(a.F, c)
	case was != 0 && m == 0:
		a.F = slices.DeleteFunc(a.F, func(x int) bool { return x == c })
	}
	for _, t := range a.inv[c] {
		a.logp[t] = math.Log(a.prob(&a.tests[t], noChange))
	}
}

// alternative is a component that could replace a suspect, with how much
// less likely the fault set is with it (log scale).
type alternative struct {
	c int
	m uint8
	d float64
}

func (a *analysis) alternatives(f int) ([]alternative, float64) {
	if c, ok := a.altCache[f]; ok {
		return c.alts, c.remove
	}
	var out []alternative
	remove := a.deltaSet(f, 0) // removing f: ≤ 0 when f is needed
	for _, g := range a.rivals(f) {
		if a.ubAdd(g, f)+remove <= -30 {
			continue
		}
		best := alternative{c: g}
		best.m, best.d = a.bestSwap(f, g)
		if best.d > -30 {
			out = append(out, best)
		}
	}
	slices.SortFunc(out, func(x, y alternative) int { return cmp.Or(cmp.Compare(y.d, x.d), cmp.Compare(x.c, y.c)) })
	if a.altCache == nil {
		a.altCache = map[int]altEntry{}
	}
	a.altCache[f] = altEntry{out, remove}
	return out, remove
}

// altEntry caches the alternatives of a suspect of the final fault set.
type altEntry struct {
	alts   []alternative
	remove float64
}

func (a *analysis) result() Result {
	r := Result{Tests: len(a.tests), ReferenceGbps: a.ref}
	for _, t := range a.tests {
		if t.out != 0 {
			r.Bad++
		}
	}
	type scored struct {
		f      int
		gain   float64
		alts   []alternative
		remove float64
	}
	// A leaf slowed by a pause storm is the storming NIC's doing: it is
	// reported with that NIC, not apart.
	folded := map[int]int{} // NIC → the leaf it slows
	for _, f := range a.F {
		if dirOf(a.mode[f]) != modeStorm {
			continue
		}
		for _, g := range a.F {
			if ne := a.nicOf(g); ne != nil && ne.leaf == f && len(a.storm[ne.ep]) > 0 {
				folded[g] = f
				break
			}
		}
	}
	var ss []scored
	for _, f := range a.F {
		if slices.Contains(slices.Collect(maps.Values(folded)), f) {
			continue
		}
		alts, remove := a.alternatives(f)
		ss = append(ss, scored{f, -remove, alts, remove})
	}
	slices.SortFunc(ss, func(x, y scored) int { return cmp.Or(cmp.Compare(y.gain, x.gain), cmp.Compare(x.f, y.f)) })
	limit := -math.Log(a.o.Ambiguity)
	for i, s := range ss {
		c := a.m.comps[s.f]
		sus := checks.Suspect{Rank: i + 1, SuspectRef: c.ref, Ends: slices.Clone(c.ends)}
		total, set := 1+math.Exp(s.remove), 1.0
		var altRefs []checks.SuspectRef
		for _, alt := range s.alts {
			total += math.Exp(alt.d)
			if alt.d >= limit {
				altRefs = append(altRefs, a.m.comps[alt.c].ref)
				set += math.Exp(alt.d)
			}
		}
		sus.Confidence = math.Round(1/total*1000) / 1000
		sus.Alternatives = altRefs
		sus.Summary, sus.Evidence = a.explain(s.f, altRefs)
		if leaf, ok := folded[s.f]; ok {
			sus.Evidence = append(sus.Evidence, a.stormEvidence(leaf))
		}
		if len(altRefs) > 0 {
			sus.Summary += fmt.Sprintf(" (the fault is one of these %d with %.0f%% confidence)", len(altRefs)+1, math.Floor(100*set/total))
		}
		r.Suspects = append(r.Suspects, sus)
	}
	for ti := range a.tests {
		t := &a.tests[ti]
		if t.out != 0 && !a.touches(t, a.mode) {
			r.Unexplained = append(r.Unexplained, t.obs)
		}
	}
	if len(r.Unexplained) > 0 {
		r.Possible = a.possible()
	}
	return r
}

// maxPossible bounds Result.Possible; minPossible is the least
// probability a possible fault must have.
const (
	maxPossible = 3
	minPossible = 0.01
)

// possible lists the likeliest faults when none is likelier than not:
// the components whose fault (with the components interchangeable with
// it) is at least minPossible probable, likeliest first, each once.
func (a *analysis) possible() []checks.Suspect {
	type cand struct {
		c int
		m uint8
		d float64
	}
	var cs []cand
	floor := math.Log(minPossible / (1 - minPossible))
	for _, c := range a.candidates() {
		if a.mode[c] != 0 || a.ubAdd(c, -1) < floor-groupLimit {
			continue
		}
		if m, d := a.bestSet(c); d >= floor-groupLimit {
			cs = append(cs, cand{c, m, d})
		}
	}
	slices.SortFunc(cs, func(x, y cand) int { return cmp.Or(cmp.Compare(y.d, x.d), cmp.Compare(x.c, y.c)) })
	var out []checks.Suspect
	listed := map[int]bool{}
	for _, x := range cs {
		if len(out) == maxPossible {
			break
		}
		if listed[x.c] {
			continue
		}
		a.set(x.c, x.m)
		odds := 1.0
		var alts []checks.SuspectRef
		for _, g := range a.rivals(x.c) {
			if a.ubAdd(g, x.c)-x.d < -groupLimit {
				continue
			}
			if _, dg := a.bestSwap(x.c, g); dg >= -math.Log(a.o.Ambiguity) {
				odds += math.Exp(dg)
				alts = append(alts, a.m.comps[g].ref)
				listed[g] = true
			}
		}
		summary, ev := a.explain(x.c, alts)
		a.set(x.c, 0)
		listed[x.c] = true
		lo := x.d + math.Log(odds)
		if lo < floor {
			continue
		}
		p := 1 / (1 + math.Exp(-lo))
		c := a.m.comps[x.c]
		out = append(out, checks.Suspect{Rank: len(out) + 1, SuspectRef: c.ref, Ends: slices.Clone(c.ends), Alternatives: alts,
			Confidence: math.Round(p*1000) / 1000, Evidence: ev,
			Summary: fmt.Sprintf("possibly %s (%.0f%% likely; too little evidence to blame it)", summary, math.Floor(100*p))})
	}
	return out
}

// nicOf is the endpoint whose NIC component c is, or nil.
func (a *analysis) nicOf(c int) *nicEnd {
	if a.m.comps[c].ref.Kind != checks.SuspectNIC {
		return nil
	}
	return a.m.ends[strings.TrimPrefix(a.m.comps[c].ref.Component, "nic:")]
}

// stormEvidence says how a pause storm slows leaf (a component) beyond
// the storming NIC's own tests.
func (a *analysis) stormEvidence(leaf int) string {
	n, slow := 0, 0
	for _, ti := range a.inv[leaf] {
		t := &a.tests[ti]
		if t.client.leaf != leaf && t.server.leaf != leaf {
			continue
		}
		n++
		if t.out == 1 {
			slow++
		}
	}
	return fmt.Sprintf("its pause frames slow the other hosts of %s: %d of the %d tests of that leaf were slow", a.m.comps[leaf].ref.Name, slow, n)
}

var outcomeWords = [3]string{"good", "slow", "lossy"}

// explain writes the summary and evidence of suspect f.
func (a *analysis) explain(f int, alts []checks.SuspectRef) (string, []string) {
	c := a.m.comps[f]
	var certN, certBad, pathN, pathBad, slow, lossy int
	type badTest struct {
		t    *test
		gain float64 // how much more likely the outcome is with f
	}
	var bad []badTest
	without := change{c1: int32(f), m1: 0, c2: -1}
	for _, ti := range a.inv[f] {
		t := &a.tests[ti]
		isCert := slices.ContainsFunc(t.cert, func(h hop) bool { return int(h.c) == f })
		if isCert {
			certN++
		} else {
			pathN++
		}
		if t.out == 0 {
			continue
		}
		if t.out == 1 {
			slow++
		} else {
			lossy++
		}
		if isCert {
			certBad++
		} else {
			pathBad++
		}
		bad = append(bad, badTest{t, a.logp[ti] - math.Log(a.prob(t, without))})
	}
	// The tests it explains best first, then in the order they ran.
	slices.SortStableFunc(bad, func(x, y badTest) int { return cmp.Compare(y.gain, x.gain) })
	var ev []string
	var summary string
	what := fmt.Sprintf("%d slow, %d lossy", slow, lossy)
	switch {
	case certN > 0:
		summary = fmt.Sprintf("%s: %d of %d tests through it were bad (%s)", c.ref.Name, certBad, certN, what)
	case pathN > 0:
		summary = fmt.Sprintf("%s: %d of %d tests that may cross it were bad (%s); it is on about 1 in %.0f of their equal-cost paths",
			c.ref.Name, pathBad, pathN, what, a.pathsThrough(f))
	default:
		summary = c.ref.Name + ": counters only"
	}
	if c.directional {
		switch dirOf(a.mode[f]) {
		case modeAB:
			ev = append(ev, fmt.Sprintf("the results fit corruption from %s towards %s only", c.phyEnds[0], c.phyEnds[1]))
		case modeBA:
			ev = append(ev, fmt.Sprintf("the results fit corruption from %s towards %s only", c.phyEnds[1], c.phyEnds[0]))
		case modeSlow:
			ev = append(ev, "the results fit a link that carries data slowly without loss (trained at a lower width or speed)")
		}
	}
	if group := sameLeafUplinks(a.m, c.ref, alts); group != "" {
		summary = fmt.Sprintf("one of the %d uplinks of leaf %s: %s", len(alts)+1, group, strings.TrimPrefix(summary, c.ref.Name+": "))
		ev = append(ev, fmt.Sprintf("tests cannot tell the uplinks of %s apart (ECMP picks each test's path out of sight); their switch counters can", group))
	} else if len(alts) > 0 {
		var names []string
		for _, x := range alts {
			names = append(names, x.Name)
		}
		ev = append(ev, "explains the results as well: "+strings.Join(names, "; "))
	}
	for _, b := range bad[:min(len(bad), 6)] {
		ev = append(ev, fmt.Sprintf("round %d: %s %s", b.t.obs.Round+1, outcomeWords[b.t.out], b.t.obs))
	}
	for _, e := range c.phyEnds {
		for _, x := range a.phy[e] {
			ev = append(ev, fmt.Sprintf("%s: %s +%d (receive errors: the cable or optics arriving here)", e, x.Name, x.Delta))
		}
		for _, x := range a.down[e] {
			ev = append(ev, fmt.Sprintf("%s: %s +%d (the link went down)", e, x.Name, x.Delta))
		}
		for _, x := range a.deg[e] {
			ev = append(ev, fmt.Sprintf("%s: %s (the link trained below its width or speed)", e, x.Name))
		}
	}
	if c.ref.Kind == checks.SuspectNIC {
		if e, err := fabric.ParseEndpoint(strings.TrimPrefix(c.ref.Component, "nic:")); err == nil {
			for _, x := range a.storm[e] {
				ev = append(ev, fmt.Sprintf("%s: %s +%d (a pause storm: the NIC stalled sending pause frames)", e, x.Name, x.Delta))
			}
		}
	}
	if c.ref.Kind == checks.SuspectSwitchPort {
		if e, err := fabric.ParseEndpoint(strings.TrimPrefix(c.ref.Component, "port:")); err == nil {
			for _, x := range a.disc[e] {
				ev = append(ev, fmt.Sprintf("%s: %s +%d (discards: the port dropped frames)", e, x.Name, x.Delta))
			}
		}
	}
	return summary, ev
}

// pathsThrough is how many equal-cost paths per test f lies on, inverted:
// the mean over its tests of 1 / P(path through f).
func (a *analysis) pathsThrough(f int) float64 {
	sum, n := 0.0, 0
	for _, ti := range a.inv[f] {
		t := &a.tests[ti]
		p := 0.0
		for _, pa := range t.paths {
			if slices.ContainsFunc(pa.hops, func(h hop) bool { return int(h.c) == f }) {
				p += pa.p
			}
		}
		if p > 0 {
			sum += 1 / p
			n++
		}
	}
	if n == 0 {
		return 1
	}
	return sum / float64(n)
}

// sameLeafUplinks returns the leaf whose uplinks the suspect and all its
// alternatives are, or "".
func sameLeafUplinks(m *Model, s checks.SuspectRef, alts []checks.SuspectRef) string {
	if s.Kind != checks.SuspectUplink || len(alts) == 0 {
		return ""
	}
	common := m.leavesOfLink(s.Component)
	for _, x := range alts {
		if x.Kind != checks.SuspectUplink {
			return ""
		}
		lx := m.leavesOfLink(x.Component)
		for l := range common {
			if !lx[l] {
				delete(common, l)
			}
		}
	}
	var ls []string
	for l := range common {
		ls = append(ls, l)
	}
	slices.Sort(ls)
	if len(ls) == 0 {
		return ""
	}
	return ls[0]
}

// leavesOfLink returns the leaves at the ends of a switch-to-switch cable.
func (m *Model) leavesOfLink(id string) map[string]bool {
	out := map[string]bool{}
	i, ok := m.ids[id]
	if !ok {
		return out
	}
	for _, e := range m.comps[i].phyEnds {
		if _, ok := m.leafOf[e.Device]; ok {
			out[e.Device] = true
		}
	}
	return out
}
