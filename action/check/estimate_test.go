package check

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/fabricctl/fabricctl/checks/rdma/rdmatest"
	"github.com/fabricctl/fabricctl/checks/report"
	"github.com/fabricctl/fabricctl/checks/schedule"
	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/internal/testutil"
)

// The estimate of known fabrics, by hand: the lab (4 hosts, loopback and
// pairwise re-tests on, partners 2) is 1 loopback round + 3 all-pairs rounds
// of 5 s + 5 s set-up = 40 s; its limit 3 × (40 s + 1 loopback re-run round
// + 3 confirmation rounds, 10 s each) + 2m preflight + 30s clean-up + 1m =
// 7m30s, rounded up to 8m. The two-leaf lab declares its cabling: with the
// pairwise suite alone, 3 × (30 s + 3 confirmation and 3 localisation
// rounds) + 3m30s = 8m. Forty hosts with the
// defaults: 1 + 39 rounds = 6m40s; 3 × 400 s + 2 preflight waves of 32 hosts
// (4m) + 1m30s = 25m30s, rounded up to 26m.
func TestEstimateKnownFabrics(t *testing.T) {
	load := func(p string) *fabric.Fabric {
		f, err := fabric.Load(filepath.Join(testutil.RepoRoot(t), p))
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	var forty []fabric.HostIntent
	for i := range 40 {
		forty = append(forty, fabric.HostIntent{Host: fmt.Sprintf("gpu-%02d", i+1)})
	}
	cases := []struct {
		name         string
		e            Estimate
		line         string
		sweep, limit time.Duration
	}{
		{"lab", EstimateFabric(load("profiles/lab/fabric.yaml"), nil, Options{}),
			"check: 4 hosts, preflight + loopback (4 runs at once, write_bw 5s) + pairwise all-pairs (3 rounds, 6 runs, write_bw 5s both ways), " +
				"about 40s (with 5s of set-up a round); + up to 1 loopback re-run round, + re-tests of bad pairs (3 rounds allowed for)",
			40 * time.Second, 8 * time.Minute},
		{"two-leaf", EstimateFabric(load("profiles/lab/two-leaf.yaml"), nil, Options{Suites: []report.Suite{report.SuitePairwise}}),
			"check: 4 hosts, pairwise all-pairs (3 rounds, 6 runs, write_bw 5s both ways), about 30s (with 5s of set-up a round); " +
				"+ re-tests of bad pairs (3 rounds allowed for), + up to 3 localisation re-test rounds",
			30 * time.Second, 8 * time.Minute},
		{"forty", EstimateRun(forty, Options{}),
			"check: 40 hosts, preflight + loopback (40 runs at once, write_bw 5s) + pairwise all-pairs (39 rounds, 780 runs, write_bw 5s), about 6m40s (with 5s of set-up a round)",
			400 * time.Second, 26 * time.Minute},
		{"forty, ring, 10s, nccl", EstimateRun(forty, Options{Checks: &fabric.Checks{Pairwise: &fabric.Pairwise{Schedule: "ring", Duration: fabric.Duration(10 * time.Second)}},
			Suites: []report.Suite{report.SuitePairwise, report.SuiteNCCL}, Parallel: 64}),
			"check: 40 hosts, pairwise ring (2 rounds, 40 runs, write_bw 10s) + nccl (up to 5m), about 30s (with 5s of set-up a round)",
			30 * time.Second, 10 * time.Minute},
		{"one host", EstimateRun(forty[:1], Options{}),
			"check: 1 host, preflight + loopback (1 run at once, write_bw 5s) + pairwise (not run: fewer than 2 hosts), about 10s (with 5s of set-up a round)",
			10 * time.Second, 4 * time.Minute},
		{"cross-leaf without labels", EstimateRun(forty[:4], Options{Suites: []report.Suite{report.SuitePairwise},
			Checks: &fabric.Checks{Pairwise: &fabric.Pairwise{Schedule: "cross-leaf"}}}),
			"check: 4 hosts, pairwise (not run: building cross-leaf schedule: host without a leaf label: \"gpu-01\" has no \"leaf\" label), about 0s (with 5s of set-up a round)",
			0, 4 * time.Minute},
	}
	for _, c := range cases {
		if got := c.e.String(); got != c.line {
			t.Errorf("%s:\n got %s\nwant %s", c.name, got, c.line)
		}
		if c.e.Sweep() != c.sweep || c.e.Limit() != c.limit {
			t.Errorf("%s: sweep %v, limit %v; want %v, %v", c.name, c.e.Sweep(), c.e.Limit(), c.sweep, c.limit)
		}
	}
	// --target narrows the hosts as RunFabric does.
	if e := EstimateFabric(load("profiles/lab/fabric.yaml"), []string{"lab-h1", "lab-h3"}, Options{}); e.Hosts != 2 || len(e.Plan.Rounds) != 1 {
		t.Errorf("--target lab-h1,lab-h3: %d hosts, %d rounds; want 2, 1", e.Hosts, len(e.Plan.Rounds))
	}
}

// The estimate names the rounds the run then runs: the pairwise notes
// ("round k/N: a<->b, …") and the runs' count, for an odd fleet and two
// schedules.
func TestEstimateIsWhatRunRuns(t *testing.T) {
	t.Setenv("PATH", rdmatest.Path(t, "")+string(os.PathListSeparator)+os.Getenv("PATH"))
	var hosts []Host
	var intents []fabric.HostIntent
	for _, n := range []string{"h1", "h2", "h3", "h4", "h5"} {
		h, _ := fixtureHost(t, n, nil)
		hosts, intents = append(hosts, h), append(intents, h.Intent)
	}
	for _, kind := range []schedule.Kind{schedule.KindAllPairs, schedule.KindRing} {
		var lines []string
		opts := Options{Suites: []report.Suite{report.SuiteLoopback, report.SuitePairwise}, BasePort: rdmatest.FreePort(t), Timeout: 20 * time.Second,
			Checks:   &fabric.Checks{Pairwise: &fabric.Pairwise{Schedule: string(kind)}},
			Progress: func(f string, a ...any) { lines = append(lines, fmt.Sprintf(f, a...)) }}
		e := EstimateRun(intents, opts)
		if _, err := Run(t.Context(), "test", hosts, opts); err != nil {
			t.Fatal(err)
		}
		var want, got []string
		for k, r := range e.Plan.Rounds {
			var names []string
			for _, p := range r {
				names = append(names, p.Server+"<->"+p.Client)
			}
			want = append(want, fmt.Sprintf("pairwise: round %d/%d: %s (", k+1, len(e.Plan.Rounds), strings.Join(names, ", ")))
		}
		runs := regexp.MustCompile(`^pairwise \d+/(\d+) `)
		total := ""
		for _, l := range lines {
			if strings.HasPrefix(l, "pairwise: round ") {
				got = append(got, l[:strings.Index(l, "(")+1])
			}
			if m := runs.FindStringSubmatch(l); m != nil {
				total = m[1]
			}
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") || len(want) == 0 {
			t.Errorf("%s: the run's rounds:\n%s\nthe estimate's:\n%s", kind, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		if total != fmt.Sprint(len(e.Plan.Pairs())) {
			t.Errorf("%s: the run counted %s runs, the estimate %d", kind, total, len(e.Plan.Pairs()))
		}
	}
}

func TestDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{0: "0s", 40 * time.Second: "40s", 7 * time.Minute: "7m", 130 * time.Second: "2m10s",
		time.Hour: "1h", 65 * time.Minute: "1h5m", 1500 * time.Millisecond: "2s"} {
		if got := Duration(d); got != want {
			t.Errorf("Duration(%v) = %q, want %q", d, got, want)
		}
	}
}
