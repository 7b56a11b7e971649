package localize

import "math"

// Faults need not spoil every test that crosses them. A gray failure
// drops a fraction of a percent of the packets of some flows only (a lossy
// lane, one bad ECMP member, some destinations black-holed), an
// intermittent one is active in some rounds only, a flapping link fails
// the tests that run while it is down. Each fault in a fault set therefore
// carries a strike rate: the probability that it spoils a given test
// crossing it. A test crossing several faults is spoilt by each
// independently (a noisy-OR), and shows the effect of the worst one that
// struck; a test that no fault struck reads as a healthy test does. A
// strike rate of 1 is the all-or-nothing model (every test through the
// fault spoilt, as emitLossy and emitNIC say).
//
// The strike rate is part of a fault's mode, from a small grid with a
// prior: most faults are hard, weaker ones need more evidence.
var strikes = [...]float64{1, 0.55, 0.25, 0.1}

// strikeLogPrior is the log prior of each strike rate of strikes, less
// log weakOdds for the weak ones: a weak fault shows in a few bad tests
// among many, as noise does on a large fabric (1,024 hosts with twelve
// tests each see some host with three stray slow tests in a few sessions
// in a hundred), so it must be weakOdds times likelier than not to be
// named (prior adds it back where counters speak for the fault).
var strikeLogPrior = [...]float64{math.Log(0.55), math.Log(0.2 / weakOdds), math.Log(0.15 / weakOdds), math.Log(0.1 / weakOdds)}

// weakOdds: how many times likelier than not a weak fault must be to be
// named, unless its counters speak for it with at least strongEvidence
// (a log-likelihood ratio).
const (
	weakOdds       = 3
	strongEvidence = 6
)

// strikesOf lists the strike rates a fault of direction d may have: a
// link trained at a lower width or speed slows every test that crosses it
// (modeSlow), so only the first; any other fault, all of them.
func strikesOf(d uint8) []float64 {
	if d == modeSlow {
		return strikes[:1]
	}
	return strikes[:]
}

// strikeShift: a mode is its direction bits (modeAB, modeBA, modeAll,
// modeSlow) with the index of its strike rate above them.
const strikeShift = 4

// dirOf is the direction part of mode m.
func dirOf(m uint8) uint8 { return m & (1<<strikeShift - 1) }

// strikeIndex is the index of mode m's strike rate in strikes.
func strikeIndex(m uint8) int { return int(m >> strikeShift) }

// strikeOf is the strike rate of mode m.
func strikeOf(m uint8) float64 { return strikes[m>>strikeShift] }

// withStrike is direction d with the strike rate of index k.
func withStrike(d uint8, k int) uint8 { return d | uint8(k)<<strikeShift }

// A component's strike rate enters every test's probability linearly:
// with c in direction d at strike rate s, P(t) = P0 + s·(P1 − P0), where
// P0 is P(t) with c healthy and P1 with c striking every test (each fault
// strikes independently, within each equal-cost path as well). So the
// probabilities of a test are computed once per direction, and each
// strike rate costs a logarithm per test.

// bestSet returns the fault mode of c that makes the fault set most
// probable and the change of log posterior from the current set (in which
// c may already be faulty, in another mode).
func (a *analysis) bestSet(c int) (uint8, float64) {
	return a.bestRates(c, -1, a.inv[c], nil)
}

// bestSwap returns the fault mode in which g best replaces f (a member of
// the fault set, g healthy) and the change of log posterior.
func (a *analysis) bestSwap(f, g int) (uint8, float64) {
	a.tick++
	tests := a.scratchTests[:0]
	for _, list := range [2][]int32{a.inv[f], a.inv[g]} {
		for _, t := range list {
			if a.stamp[t] != a.tick {
				a.stamp[t] = a.tick
				tests = append(tests, t)
			}
		}
	}
	a.scratchTests = tests
	return a.bestRates(g, f, tests, nil)
}

// bestRates is bestSet (off < 0) or bestSwap (off = f) over tests, the
// tests either component may lie on. When all is not nil it receives the
// change of every mode of c, in the order of modes(c).
func (a *analysis) bestRates(c, off int, tests []int32, all []float64) (uint8, float64) {
	if cap(a.p0) < len(tests) {
		a.p0 = make([]float64, len(tests))
		a.r = make([]float64, len(tests))
	}
	p0, r := a.p0[:len(tests)], a.r[:len(tests)]
	// The change of leaving c healthy (and f out, for a swap).
	healthy := change{c1: int32(c), m1: 0, c2: -1}
	if off >= 0 {
		healthy.c2 = int32(off)
	}
	base := 0.0
	cur := a.mode[c]
	if cur != 0 {
		base -= a.prior(c, cur)
	}
	if off >= 0 {
		base -= a.prior(off, a.mode[off])
	}
	for i, t := range tests {
		if cur == 0 && off < 0 {
			p0[i] = math.Exp(a.logp[t])
			continue
		}
		p0[i] = a.prob(&a.tests[t], healthy)
		base += math.Log(p0[i]) - a.logp[t]
	}
	best, bestD := uint8(0), math.Inf(-1)
	n := 0
	for _, d := range a.dirs(c) {
		hard := healthy
		hard.m1 = withStrike(d, 0)
		for i, t := range tests {
			r[i] = a.prob(&a.tests[t], hard)/p0[i] - 1
		}
		for k, s := range strikesOf(d) {
			m := withStrike(d, k)
			sum := base + a.prior(c, m)
			for _, x := range r {
				if x != 0 {
					sum += math.Log1p(s * x)
				}
			}
			if all != nil {
				all[n] = sum
			}
			n++
			if sum > bestD {
				best, bestD = m, sum
			}
		}
	}
	return best, bestD
}

// emitMax bounds the probability of each outcome of a test that a fault
// strikes: under any fault (a NIC's slowness may meet another fault's
// loss), and under a fault that loses packets (which never reads better
// than lost acknowledgements).
var (
	emitMax      = [3]float64{1, max(emitNIC[1], emitAck[1], emitLossy[1]), max(emitNIC[2], emitAck[2], emitLossy[2])}
	emitMaxLossy = [3]float64{1, max(emitAck[1], emitLossy[1]), max(emitAck[2], emitLossy[2])}
)

// ubAdd bounds from above the change of log posterior when c becomes
// faulty, in any mode, in the current fault set without off (off < 0: as
// it is). A fault only makes a good test less likely (every fault level
// reads good less often than the level below it), so only the bad tests
// of c can gain, each at most as far as c on its way striking it with
// the likeliest bad outcome. It is cheap (bad tests only): the search
// skips the components it rules out.
func (a *analysis) ubAdd(c, off int) float64 {
	comp := &a.m.comps[c]
	sum := comp.logOdds + a.evMax[c] + strikeLogPrior[0]
	if comp.directional {
		sum -= math.Log(float64(len(a.dirs(c))))
	}
	without := change{c1: int32(off), m1: 0, c2: -1}
	bound := &emitMax
	if comp.lossy && !(comp.directional && a.m.routes != nil) && !a.stormLeaf[c] { // no slow mode
		bound = &emitMaxLossy
	}
	for _, ti := range a.inv[c] {
		t := &a.tests[ti]
		if t.out == 0 {
			continue
		}
		var p0 float64
		if off < 0 {
			p0 = math.Exp(a.logp[ti])
		} else {
			p0 = a.prob(t, without)
		}
		if e := bound[t.out]; p0 < e {
			pc := onPath(t, int32(c))
			sum += math.Log(pc*e/p0 + 1 - pc)
		}
	}
	return sum
}

// onPath is the probability that test t crosses component c.
func onPath(t *test, c int32) float64 {
	for _, h := range t.cert {
		if h.c == c {
			return 1
		}
	}
	p := 0.0
	for pi := range t.paths {
		for _, h := range t.paths[pi].hops {
			if h.c == c {
				p += t.paths[pi].p
				break
			}
		}
	}
	return math.Min(p, 1)
}
