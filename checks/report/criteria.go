package report

import (
	"fmt"
	"strconv"
	"strings"
)

// Generator names the fabricctl that ran the checks and wrote the report:
// `fabricctl version`'s version and VCS revision. The command sets it; a
// report without one says nothing about its maker.
type Generator struct {
	Version  string `json:"version"`
	Revision string `json:"revision,omitempty"`
	// Modified: the binary was built from a work tree with uncommitted changes.
	Modified bool `json:"modified,omitempty"`
}

// String reads "v1.2.0 (rev 0123456789ab)", "v1.2.0 (rev 0123456789ab, modified)" or "v1.2.0".
func (g Generator) String() string {
	var parts []string
	if g.Revision != "" && g.Revision != "unknown" {
		parts = append(parts, "rev "+g.Revision[:min(12, len(g.Revision))])
	}
	if g.Modified {
		parts = append(parts, "modified")
	}
	v := g.Version
	if v == "" {
		v = "unknown version"
	}
	if len(parts) == 0 {
		return v
	}
	return v + " (" + strings.Join(parts, ", ") + ")"
}

// Criterion is how one measuring suite (loopback or pairwise) judged its
// tests: the thresholds in force, as the fabric's spec.checks and the
// command's flags resolved them. The report shows them next to the verdict
// and scales the heatmap's colours by them.
type Criterion struct {
	Suite Suite  `json:"suite"`
	Test  string `json:"test"` // the perftest test without "ib_": write_bw
	// PortRateGbps is the declared rate the absolute floor is a share of
	// (spec.checks.*.portRate); 0: each port's own rate.
	PortRateGbps float64 `json:"portRateGbps,omitempty"`
	// MinPercentOfPortRate is the absolute floor: a bandwidth below it fails (0: none).
	MinPercentOfPortRate float64 `json:"minPercentOfPortRate,omitempty"`
	// MinPercentOfBest is the relative floor: a bandwidth below this share
	// of the sweep's best is an outlier (0: none).
	MinPercentOfBest float64 `json:"minPercentOfBest,omitempty"`
	// MaxLatencyUsec bounds latency tests (0: none).
	MaxLatencyUsec float64 `json:"maxLatencyUsec,omitempty"`
	// The counter-evidence rules: an error counter that moved during a test
	// by at least CounterMinEvents and beyond the healthy baseline plus
	// CounterSigma standard deviations (or above CounterMaxHealthyPerTest,
	// when set) fails the test whatever its bandwidth. All 0: not judged.
	CounterSigma             float64 `json:"counterSigma,omitempty"`
	CounterMinEvents         uint64  `json:"counterMinEvents,omitempty"`
	CounterMaxHealthyPerTest uint64  `json:"counterMaxHealthyPerTest,omitempty"`
}

// Rules says the criterion in words, one rule a line:
//
//	bandwidth ≥ 1% of the declared 0.1 Gb/s port rate, else fail
//	bandwidth ≥ 2% of the sweep's best, else an outlier
//	error counters within the healthy baseline + 4σ (≥ 10 events; above 8 in one test is evidence), else fail
func (c Criterion) Rules() []string {
	var out []string
	if c.MinPercentOfPortRate > 0 {
		rate := "each port's own rate"
		if c.PortRateGbps > 0 {
			rate = "the declared " + num(c.PortRateGbps) + " Gb/s port rate"
		}
		out = append(out, fmt.Sprintf("bandwidth ≥ %s%% of %s, else fail", num(c.MinPercentOfPortRate), rate))
	}
	if c.MinPercentOfBest > 0 {
		out = append(out, fmt.Sprintf("bandwidth ≥ %s%% of the sweep's best, else an outlier", num(c.MinPercentOfBest)))
	}
	if c.MaxLatencyUsec > 0 {
		out = append(out, fmt.Sprintf("latency ≤ %s µs, else fail", num(c.MaxLatencyUsec)))
	}
	if c.CounterSigma > 0 || c.CounterMinEvents > 0 || c.CounterMaxHealthyPerTest > 0 {
		s := "error counters within the healthy baseline"
		if c.CounterSigma > 0 {
			s += " + " + num(c.CounterSigma) + "σ"
		}
		var notes []string
		if c.CounterMinEvents > 0 {
			notes = append(notes, fmt.Sprintf("≥ %d events", c.CounterMinEvents))
		}
		if c.CounterMaxHealthyPerTest > 0 {
			notes = append(notes, fmt.Sprintf("above %d in one test is evidence", c.CounterMaxHealthyPerTest))
		}
		if len(notes) > 0 {
			s += " (" + strings.Join(notes, "; ") + ")"
		}
		out = append(out, s+", else fail")
	}
	return out
}

// num prints a threshold without trailing zeros: 0.1, 93, 2.5.
func num(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// criterionOf returns the report's criterion for a suite's test, if any.
func (r *Report) criterionOf(s Suite, test string) (Criterion, bool) {
	for _, c := range r.Criteria {
		if c.Suite == s && c.Test == test {
			return c, true
		}
	}
	return Criterion{}, false
}
