package evaluate

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/fabricctl/fabricctl/checks"
)

// Sample is what one side of one test (a host's device port) showed: its
// counter movements and how much data the test moved.
type Sample struct {
	// Subject names the side, "gpu-02/mlx5_0".
	Subject string
	Deltas  []Delta
	// GB is the data the test moved, in gigabytes (10^9 bytes): its average
	// bandwidth times its duration. 0 when the test measured nothing; its
	// counters are then compared per test instead of per GB.
	GB float64
}

// Spread is the distribution of one counter's movement over healthy samples.
type Spread struct {
	N      int     `json:"n"`
	Mean   float64 `json:"mean"`
	StdDev float64 `json:"stddev"`
}

// Limit is the movement beyond which a sample is outside the spread: the
// mean plus k standard deviations.
func (s Spread) Limit(k float64) float64 { return s.Mean + k*s.StdDev }

func spreadOf(v []float64) Spread {
	s := Spread{N: len(v)}
	if len(v) == 0 {
		return s
	}
	for _, x := range v {
		s.Mean += x
	}
	s.Mean /= float64(len(v))
	if len(v) > 1 {
		var ss float64
		for _, x := range v {
			ss += (x - s.Mean) * (x - s.Mean)
		}
		s.StdDev = math.Sqrt(ss / float64(len(v)-1))
	}
	return s
}

// Spreads is the healthy baseline of a fleet: for every evidence counter,
// the spread of its movement per GB moved and per test over healthy samples.
// Build one with NewSpreads from the sides of tests known or taken to be
// healthy; judge a sample with Judge.
type Spreads struct {
	// Samples is how many samples the baseline holds.
	Samples int `json:"samples"`
	// PerGB is each counter's movement per GB moved, over the samples that
	// moved data.
	PerGB map[string]Spread `json:"perGB"`
	// PerTest is each counter's movement per test, over every sample.
	PerTest map[string]Spread `json:"perTest"`
}

// NewSpreads builds the baseline from healthy samples. A counter absent
// from a sample (the device has no such counter) does not count for it;
// every evidence counter a sample has counts, zeros included.
func NewSpreads(healthy []Sample) Spreads {
	perGB, perTest := map[string][]float64{}, map[string][]float64{}
	for _, s := range healthy {
		for _, d := range s.Deltas {
			if d.Kind == "" {
				continue
			}
			perTest[d.Name] = append(perTest[d.Name], float64(d.Delta))
			if s.GB > 0 {
				perGB[d.Name] = append(perGB[d.Name], float64(d.Delta)/s.GB)
			}
		}
	}
	b := Spreads{Samples: len(healthy), PerGB: map[string]Spread{}, PerTest: map[string]Spread{}}
	for k, v := range perGB {
		b.PerGB[k] = spreadOf(v)
	}
	for k, v := range perTest {
		b.PerTest[k] = spreadOf(v)
	}
	return b
}

// Rules say when a counter movement is evidence (fabric.CounterRules with
// its defaults applied).
type Rules struct {
	// Sigma is k: evidence lies beyond the baseline's mean + k·σ.
	Sigma float64
	// MinEvents: a smaller movement in one test is never evidence.
	MinEvents uint64
	// MinPerGB: a smaller movement per GB moved is never evidence.
	MinPerGB float64
	// MaxHealthyPerTest, when not 0, caps what the baseline may excuse: a
	// movement above it in one test is beyond the declared healthy envelope
	// (fabric.CounterRules.MaxHealthyPerTest), whatever the fleet's spread.
	MaxHealthyPerTest uint64
	// Ignore names counters that are never evidence.
	Ignore []string
}

// MinSpread is the fewest samples a spread needs to judge by; with fewer
// per-GB samples a counter is judged per test.
const MinSpread = 2

// Judge says whether s's counters moved beyond the healthy baseline: a
// counter of an evidence kind is evidence when it moved by at least
// MinEvents, by more than MinPerGB per GB, and by more than the baseline
// expects for the data s moved (its mean per GB × GB) plus Sigma standard
// deviations — the larger of the fleet's spread and the counting noise of
// the expected number (√expected, as for any count of rare events), so that
// a baseline of a few alike tests does not make every wobble evidence. With
// MaxHealthyPerTest, a movement above it is evidence even where the
// baseline would excuse it (a baseline made mostly of tests across one bad
// link is lossy itself); MinEvents and MinPerGB still hold. When
// s moved no data, or the baseline has fewer than MinSpread per-GB samples
// of the counter, it is judged per test the same way. The finding is the
// worst severity among the evidence (fail for loss and errors, warn for
// pause, ECN and CNP), with class CounterEvidence; one evidence line per
// counter gives the numbers.
func (b Spreads) Judge(s Sample, r Rules) (Finding, []string) {
	status := checks.StatusPass
	var evidence, names []string
	var kinds []Kind
	for _, d := range s.Deltas {
		if d.Kind == "" || d.Delta == 0 || d.Delta < r.MinEvents || slices.Contains(r.Ignore, d.Name) {
			continue
		}
		var line string
		if sp := b.PerGB[d.Name]; s.GB > 0 && sp.N >= MinSpread {
			expect, sd := sp.Mean*s.GB, max(sp.StdDev*s.GB, math.Sqrt(sp.Mean*s.GB))
			spreadLimit := expect + r.Sigma*sd
			limit := max(r.capped(spreadLimit), r.MinPerGB*s.GB)
			if float64(d.Delta) <= limit {
				continue
			}
			line = fmt.Sprintf("%s: %s +%d during the test, %s/GB over %.3g GB (%s; healthy baseline of %d tests: %s/GB ± %s, so %s expected here; limit %s = expected + %g·σ)",
				s.Subject, d.Name, d.Delta, num(float64(d.Delta)/s.GB), s.GB, d.Kind, sp.N, num(sp.Mean), num(sp.StdDev), num(expect), num(limit), r.Sigma)
			if limit < spreadLimit {
				line = r.ceilingLine(s.Subject, d, spreadLimit)
			}
		} else {
			sp := b.PerTest[d.Name]
			spreadLimit := sp.Mean + r.Sigma*max(sp.StdDev, math.Sqrt(sp.Mean))
			limit := r.capped(spreadLimit)
			if float64(d.Delta) <= limit {
				continue
			}
			line = fmt.Sprintf("%s: %s +%d during the test (%s; healthy baseline of %d tests: %s ± %s per test; limit %s = mean + %g·σ)",
				s.Subject, d.Name, d.Delta, d.Kind, sp.N, num(sp.Mean), num(sp.StdDev), num(limit), r.Sigma)
			switch {
			case limit < spreadLimit:
				line = r.ceilingLine(s.Subject, d, spreadLimit)
			case sp.N == 0:
				line = fmt.Sprintf("%s: %s +%d during the test (%s; no healthy baseline to compare with, so a movement of %d or more counts)",
					s.Subject, d.Name, d.Delta, d.Kind, r.MinEvents)
			}
		}
		if d.Reset {
			line += "; the counter was reset, so at least this much"
		}
		evidence = append(evidence, line)
		names = append(names, d.Name)
		kinds = AppendKinds(kinds, d.Kind)
		if sev := severity[d.Kind]; sev.Worse(status) {
			status = sev
		}
	}
	if status == checks.StatusPass {
		return Finding{Status: checks.StatusPass, Summary: "ok: no error or congestion counter moved beyond the healthy baseline"}, nil
	}
	return Finding{Status: status, Class: checks.CounterEvidence,
		Summary: fmt.Sprintf("%s: %s beyond the healthy baseline", s.Subject, strings.Join(names, ", ")), Kinds: kinds}, evidence
}

// capped is limit, lowered to MaxHealthyPerTest when that is declared.
func (r Rules) capped(limit float64) float64 {
	if r.MaxHealthyPerTest > 0 {
		return min(limit, float64(r.MaxHealthyPerTest))
	}
	return limit
}

// ceilingLine is the evidence line of a movement that the fleet's spread
// (its limit spreadLimit) would excuse but the declared ceiling does not.
func (r Rules) ceilingLine(subject string, d Delta, spreadLimit float64) string {
	return fmt.Sprintf("%s: %s +%d during the test (%s; above the declared healthy ceiling of %d per test, "+
		"though the fleet's own spread, limit %s, is as high: most of its tests may share the fault)",
		subject, d.Name, d.Delta, d.Kind, r.MaxHealthyPerTest, num(spreadLimit))
}

// num prints a count or rate readably: 0, 12, 3.4, 8100, 1.2e+06.
func num(v float64) string {
	switch {
	case v == 0:
		return "0"
	case math.Abs(v) >= 1e6:
		return fmt.Sprintf("%.2g", v)
	case math.Abs(v) >= 100:
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.3g", v)
}
