package check

import (
	"math"
	"slices"
	"time"

	"github.com/fabricctl/fabricctl/checks/rdma"
	"github.com/fabricctl/fabricctl/checks/report"
)

// Criteria are the pass criteria of o's measuring suites (loopback and
// pairwise, those o runs) as the report shows them: the thresholds of
// spec.checks with the command's overrides and the defaults resolved.
func Criteria(o Options) []report.Criterion {
	var out []report.Criterion
	for _, s := range []struct {
		suite report.Suite
		sweep func(Options) rdma.Sweep
	}{{report.SuiteLoopback, loopbackSweep}, {report.SuitePairwise, pairwiseSweep}} {
		if !slices.Contains(o.suites(), s.suite) {
			continue
		}
		sw := s.sweep(o)
		th := sw.Thresholds
		out = append(out, report.Criterion{Suite: s.suite, Test: sw.Test.Test.String(),
			PortRateGbps: th.PortRateGbps, MinPercentOfPortRate: th.MinPercentOfPortRate,
			MinPercentOfBest: round(100 * th.RelativeFloor), MaxLatencyUsec: float64(th.MaxLatency) / float64(time.Microsecond),
			CounterSigma: sw.Counters.Sigma, CounterMinEvents: sw.Counters.MinEvents, CounterMaxHealthyPerTest: sw.Counters.MaxHealthyPerTest})
	}
	return out
}

// round drops the binary noise of a fraction made a percentage (0.93 → 93, not 93.00000000000001).
func round(v float64) float64 { return math.Round(v*1e6) / 1e6 }
