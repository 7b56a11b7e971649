package check

import (
	"path/filepath"
	"testing"

	"github.com/fabricctl/fabricctl/checks/report"
	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/internal/testutil"
	"github.com/google/go-cmp/cmp"
)

// TestCriteria: the report carries the thresholds the sweeps judged by,
// the fabric's spec.checks with the defaults and overrides resolved, for
// the measuring suites the run has.
func TestCriteria(t *testing.T) {
	f, err := fabric.Load(filepath.Join(testutil.RepoRoot(t), "profiles/lab/fabric.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	got := Criteria(Options{Checks: f.Spec.Checks})
	want := []report.Criterion{
		{Suite: report.SuiteLoopback, Test: "write_bw", PortRateGbps: 0.2, MinPercentOfPortRate: 1, MinPercentOfBest: 2,
			CounterSigma: 4, CounterMinEvents: 10, CounterMaxHealthyPerTest: 8},
		{Suite: report.SuitePairwise, Test: "write_bw", PortRateGbps: 0.1, MinPercentOfPortRate: 1, MinPercentOfBest: 2,
			MaxLatencyUsec: 2000, CounterSigma: 4, CounterMinEvents: 10, CounterMaxHealthyPerTest: 8},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("lab fabric (-want +got):\n%s", d)
	}
	// Defaults, a --relative-floor override, the pairwise suite alone.
	got = Criteria(Options{Suites: []report.Suite{report.SuitePairwise}, RelativeFloor: 0.3})
	want = []report.Criterion{{Suite: report.SuitePairwise, Test: "write_bw", MinPercentOfBest: 30,
		CounterSigma: fabric.DefaultSigma, CounterMinEvents: fabric.DefaultMinEvents}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("defaults (-want +got):\n%s", d)
	}
	if c := Criteria(Options{})[1]; c.MinPercentOfBest != 93 {
		t.Errorf("default relative floor %v%%, want 93%%", c.MinPercentOfBest)
	}
}

// TestRunRecordsCriteria: Run's report carries its criteria.
func TestRunRecordsCriteria(t *testing.T) {
	h, _ := fixtureHost(t, "h1", nil)
	dead := Host{Intent: fabric.HostIntent{Host: "h2", Address: "192.0.2.1"}, Agent: deadAgent{}}
	o := Options{Suites: []report.Suite{report.SuitePreflight, report.SuitePairwise}, RelativeFloor: 0.5}
	rep, err := Run(t.Context(), "test", []Host{h, dead}, o)
	if err != nil {
		t.Fatal(err)
	}
	want := []report.Criterion{{Suite: report.SuitePairwise, Test: "write_bw", MinPercentOfBest: 50,
		CounterSigma: fabric.DefaultSigma, CounterMinEvents: fabric.DefaultMinEvents}}
	if d := cmp.Diff(want, rep.Criteria); d != "" {
		t.Errorf("report criteria (-want +got):\n%s", d)
	}
}
