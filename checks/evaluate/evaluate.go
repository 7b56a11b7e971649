package evaluate

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/fabricctl/fabricctl/checks"
)

// DefaultRelativeFloor is the fraction of the fleet's best bandwidth under
// which a pair is an outlier (DESIGN.md §6: below 93% of the best).
const DefaultRelativeFloor = 0.93

// Sentinels for errors.Is.
var (
	// ErrBadRate: a sysfs rate string that is not "N Gb/sec (…)".
	ErrBadRate = errors.New("unreadable port rate")
	// ErrBadThreshold: a threshold outside its range (percent 0..100, fraction 0..1, bound > 0).
	ErrBadThreshold = errors.New("invalid threshold")
)

// Finding is a verdict on one measurement, to merge into a checks.Result.
type Finding struct {
	Status  checks.Status
	Class   checks.FailureClass // empty when Status is pass
	Summary string
	// Kinds are the counter kinds the finding rests on (counter
	// evidence only), each once.
	Kinds []Kind
}

// AppendKinds appends to kinds each of more that it does not hold yet, in
// order: a finding or result names each counter kind once.
func AppendKinds[K, M ~string](kinds []K, more ...M) []K {
	for _, m := range more {
		if !slices.Contains(kinds, K(m)) {
			kinds = append(kinds, K(m))
		}
	}
	return kinds
}

// Merge folds f into r: the worse status wins and brings its class; the
// summary of a passing result is replaced by the first problem, and further
// problems are appended; f's counter kinds join r's CounterKinds.
func Merge(r *checks.Result, f Finding) {
	r.CounterKinds = AppendKinds(r.CounterKinds, f.Kinds...)
	prev := r.Status
	if prev == "" {
		prev = checks.StatusPass
	}
	switch {
	case f.Status == checks.StatusPass:
		r.Status = prev
		if r.Summary == "" {
			r.Summary = f.Summary
		}
	case prev == checks.StatusPass:
		r.Status, r.Class, r.Summary = f.Status, f.Class, f.Summary
	default:
		if f.Status.Worse(prev) {
			r.Status, r.Class = f.Status, f.Class
		}
		r.Summary += "; " + f.Summary
	}
}

var rateRe = regexp.MustCompile(`^\s*([0-9]+(?:\.[0-9]+)?)\s*Gb/sec\b`)

// ParsePortRate reads /sys/class/infiniband/<dev>/ports/<n>/rate, e.g.
// "100 Gb/sec (4X EDR)" or "2.5 Gb/sec (1X SDR)", and returns Gb/s.
func ParsePortRate(s string) (float64, error) {
	m := rateRe.FindStringSubmatch(s)
	if m == nil {
		return 0, fmt.Errorf("parsing port rate %q: %w", strings.TrimSpace(s), ErrBadRate)
	}
	v, err := strconv.ParseFloat(m[1], 64)
	if err != nil || v <= 0 {
		return 0, fmt.Errorf("parsing port rate %q: %w", strings.TrimSpace(s), ErrBadRate)
	}
	return v, nil
}

// AbsoluteFloor judges a measured bandwidth against minPercent of the port
// rate (both Gb/s). For a pair, pass the lower of the two ends' rates.
func AbsoluteFloor(measuredGbps, portRateGbps, minPercent float64) (Finding, error) {
	if minPercent <= 0 || minPercent > 100 || portRateGbps <= 0 {
		return Finding{}, fmt.Errorf("judging bandwidth: %w: %.4g%% of %.4g Gb/s", ErrBadThreshold, minPercent, portRateGbps)
	}
	floor := portRateGbps * minPercent / 100
	pct := 100 * measuredGbps / portRateGbps
	if measuredGbps < floor {
		return Finding{Status: checks.StatusFail, Class: checks.LowBandwidth,
			Summary: fmt.Sprintf("%.2f Gb/s is %.1f%% of the %.4g Gb/s port rate, below the %.4g%% floor", measuredGbps, pct, portRateGbps, minPercent)}, nil
	}
	return Finding{Status: checks.StatusPass, Summary: fmt.Sprintf("ok: %.2f Gb/s is %.1f%% of the %.4g Gb/s port rate", measuredGbps, pct, portRateGbps)}, nil
}

// RelativeFloor judges a measured bandwidth against the best of the fleet: below
// fraction × best it is an outlier (StatusWarn, LowBandwidth) until a re-test
// against known-good partners confirms it (see the schedule package).
func RelativeFloor(measuredGbps, bestGbps, fraction float64) (Finding, error) {
	if fraction <= 0 || fraction > 1 || bestGbps <= 0 {
		return Finding{}, fmt.Errorf("judging bandwidth against the fleet: %w: %.4g of %.4g Gb/s", ErrBadThreshold, fraction, bestGbps)
	}
	if IsOutlier(measuredGbps, bestGbps, fraction) {
		return Finding{Status: checks.StatusWarn, Class: checks.LowBandwidth,
			Summary: fmt.Sprintf("%.2f Gb/s is %.1f%% of the fleet's best %.2f Gb/s, below %.0f%%", measuredGbps, 100*measuredGbps/bestGbps, bestGbps, 100*fraction)}, nil
	}
	return Finding{Status: checks.StatusPass, Summary: fmt.Sprintf("ok: %.1f%% of the fleet's best", 100*measuredGbps/bestGbps)}, nil
}

// IsOutlier reports whether measured is below fraction × best.
func IsOutlier(measured, best, fraction float64) bool { return measured < best*fraction }

// LatencyBound judges a measured latency (microseconds, typically perftest's
// t_typical or t_avg) against a bound.
func LatencyBound(measuredUsec, boundUsec float64) (Finding, error) {
	if boundUsec <= 0 {
		return Finding{}, fmt.Errorf("judging latency: %w: bound %.4g us", ErrBadThreshold, boundUsec)
	}
	if measuredUsec > boundUsec {
		return Finding{Status: checks.StatusFail, Class: checks.HighLatency,
			Summary: fmt.Sprintf("%.2f us is above the %.4g us bound", measuredUsec, boundUsec)}, nil
	}
	return Finding{Status: checks.StatusPass, Summary: fmt.Sprintf("ok: %.2f us is within the %.4g us bound", measuredUsec, boundUsec)}, nil
}
