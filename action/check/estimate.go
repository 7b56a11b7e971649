package check

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/fabricctl/fabricctl/action/fleet"
	"github.com/fabricctl/fabricctl/checks/collective"
	"github.com/fabricctl/fabricctl/checks/perftest"
	"github.com/fabricctl/fabricctl/checks/rdma"
	"github.com/fabricctl/fabricctl/checks/report"
	"github.com/fabricctl/fabricctl/checks/schedule"
	"github.com/fabricctl/fabricctl/fabric"
)

// Constants of the estimate and of the time limit derived from it.
const (
	// RoundSetup is what a round of tests costs beyond the test's own
	// duration: starting the servers, the out-of-band exchange, the QPs'
	// set-up and the agents' round trips.
	RoundSetup = 5 * time.Second
	// LimitFactor is the safety factor of the derived time limit: the
	// estimated rounds, the re-test rounds allowed for, times this.
	LimitFactor = 3
	// limitSlack covers connecting to the hosts and reading the switches.
	limitSlack = time.Minute
)

// Estimate is what a check run will do and about how long it takes, worked
// out before anything runs from the same hosts, options and schedule as
// Run: EstimateRun for Run, EstimateFabric for RunFabric.
type Estimate struct {
	// Hosts is how many hosts are checked.
	Hosts int
	// Suites are the suites to run, in Run's order.
	Suites []report.Suite
	// Loopback and Pairwise are the tests of the two sweeps.
	Loopback, Pairwise rdma.Test
	// Plan is the pairwise schedule the sweep will run (no rounds with
	// fewer than two hosts, or when PlanErr is set).
	Plan schedule.Plan
	// PlanErr says why the pairwise schedule cannot be built.
	PlanErr error
	// LoopbackRerun is set when a loopback outlier runs once more
	// (loopback.retestOutliers): one more round at most.
	LoopbackRerun bool
	// ConfirmRounds are the rounds allowed for re-testing bad pairs before
	// the verdict (pairwise.retestOutliers): partners + 1. How many run
	// depends on how many pairs fail; this is an allowance, not a bound.
	ConfirmRounds int
	// LocalizeRounds bounds the localiser's re-test rounds (declared
	// cabling, pairwise.localizeRounds).
	LocalizeRounds int
	// Incast is the incast suite's test and IncastRounds its rounds
	// (none when IncastErr says why it cannot be planned, or under a
	// launcher, where the suite does not run).
	Incast       rdma.Test
	IncastRounds []schedule.IncastRound
	IncastErr    error
	// NCCL bounds the NCCL suite (its job timeout; 0: not run).
	NCCL time.Duration
	// PreflightWaves is how many times the preflight's per-host bound may
	// pass: the hosts are asked Options.Parallel at a time.
	PreflightWaves int
}

// EstimateRun says what Run(ctx, name, hosts, o) will do, for hosts with
// these intents in this order.
func EstimateRun(intents []fabric.HostIntent, o Options) Estimate {
	hosts := make([]Host, len(intents))
	for i, in := range intents {
		hosts[i] = Host{Intent: in}
	}
	e := Estimate{Hosts: len(hosts), Suites: o.suites(), PreflightWaves: 1}
	if o.Launcher == nil {
		par := o.Parallel
		if par <= 0 {
			par = 32
		}
		e.PreflightWaves = (len(hosts) + par - 1) / par
	}
	lo, pw := loopbackSweep(o), pairwiseSweep(o)
	e.Loopback, e.Pairwise = lo.Test, pw.Test
	if e.has(report.SuiteLoopback) {
		e.LoopbackRerun = lo.Retest
	}
	if e.has(report.SuitePairwise) && len(hosts) > 1 {
		e.Plan, e.PlanErr = pairwisePlan(pw, hosts)
		if pw.Retest {
			partners := pw.Partners
			if partners <= 0 {
				partners = rdma.DefaultPartners
			}
			e.ConfirmRounds = partners + 1
		}
		if cabled(o.Topology, hosts) {
			e.LocalizeRounds = LocalizeRounds(o.Checks)
		}
	}
	if e.has(report.SuiteIncast) {
		e.Incast = incastTest(o, nil)
		if o.Launcher == nil {
			e.IncastRounds, e.IncastErr = IncastPlan(o.Checks, intents, o.Topology)
		}
	}
	if e.has(report.SuiteNCCL) {
		e.NCCL = collective.DefaultTimeout
		if o.Checks != nil && o.Checks.NCCL != nil && o.Checks.NCCL.Timeout > 0 {
			e.NCCL = time.Duration(o.Checks.NCCL.Timeout)
		}
	}
	return e
}

// EstimateFabric says what RunFabric will do with the hosts reach.Only
// selects (all when empty) and o.
func EstimateFabric(f *fabric.Fabric, only []string, o Options) Estimate {
	fl, closeAll := fleet.Hosts(f, fleet.Options{Only: only}) // nothing is dialled
	closeAll()
	intents := make([]fabric.HostIntent, len(fl))
	for i, h := range fl {
		intents[i] = h.Intent
	}
	return EstimateRun(intents, fabricOptions(f, o))
}

// pairwisePlan is the schedule Sweep.Pairwise builds over the hosts'
// endpoints (name and labels, in order).
func pairwisePlan(sw rdma.Sweep, hosts []Host) (schedule.Plan, error) {
	sh := make([]schedule.Host, len(hosts))
	for i, h := range hosts {
		sh[i] = schedule.Host{Name: h.Intent.Host, Labels: h.Intent.Labels}
	}
	kind := sw.Schedule
	if kind == "" {
		kind = schedule.KindAllPairs
	}
	return schedule.Build(kind, sh)
}

func (e Estimate) has(s report.Suite) bool { return slices.Contains(e.Suites, s) }

// roundTime is how long one round of t takes: its duration (perftest's
// default iteration count when it has none: a few seconds) and RoundSetup.
func roundTime(t rdma.Test) time.Duration {
	d := t.Duration
	if d <= 0 {
		d = 5 * time.Second
	}
	return d + RoundSetup
}

// Sweep is the estimated time of the sweeps without re-tests: one
// loopback round (every host at once), the pairwise rounds and the incast
// rounds.
func (e Estimate) Sweep() time.Duration {
	var d time.Duration
	if e.has(report.SuiteLoopback) && e.Hosts > 0 {
		d += roundTime(e.Loopback)
	}
	d += time.Duration(len(e.IncastRounds)) * roundTime(e.Incast)
	return d + time.Duration(len(e.Plan.Rounds))*roundTime(e.Pairwise)
}

// retests is the time of the re-test rounds allowed for.
func (e Estimate) retests() time.Duration {
	var d time.Duration
	if e.LoopbackRerun {
		d += roundTime(e.Loopback)
	}
	return d + time.Duration(e.ConfirmRounds+e.LocalizeRounds)*roundTime(e.Pairwise)
}

// Limit is the time limit derived from the estimate: LimitFactor × (the
// sweeps and the re-test rounds allowed for), plus the preflight's bound
// per wave of hosts, the clean-up's bound, the NCCL suite's own bound and a
// minute for connections and switch reads; rounded up to a whole minute.
func (e Estimate) Limit() time.Duration {
	d := LimitFactor*(e.Sweep()+e.retests()) + time.Duration(max(e.PreflightWaves, 1))*preflightBound + cleanupBound + e.NCCL + limitSlack
	return (d + time.Minute - 1).Truncate(time.Minute)
}

// String says it on one line, for stderr before the run:
//
//	check: 4 hosts, preflight + loopback (4 runs at once, write_bw 5s) + pairwise all-pairs (3 rounds, 6 runs, write_bw 5s both ways), about 40s (with 5s of set-up a round); + up to 1 loopback re-run round, + re-tests of bad pairs (3 rounds allowed for)
func (e Estimate) String() string {
	var parts []string
	for _, s := range e.Suites {
		switch s {
		case report.SuiteLoopback:
			parts = append(parts, fmt.Sprintf("loopback (%s at once, %s)", count(e.Hosts, "run"), describe(e.Loopback)))
		case report.SuitePairwise:
			switch {
			case e.Hosts < 2:
				parts = append(parts, "pairwise (not run: fewer than 2 hosts)")
			case e.PlanErr != nil:
				parts = append(parts, fmt.Sprintf("pairwise (not run: %v)", e.PlanErr))
			default:
				parts = append(parts, fmt.Sprintf("pairwise %s (%s, %s, %s)", e.Plan.Kind, count(len(e.Plan.Rounds), "round"), count(len(e.Plan.Pairs()), "run"), describe(e.Pairwise)))
			}
		case report.SuiteIncast:
			parts = append(parts, e.incastPart())
		case report.SuiteNCCL:
			parts = append(parts, "nccl (up to "+Duration(e.NCCL)+")")
		default:
			parts = append(parts, string(s))
		}
	}
	s := fmt.Sprintf("check: %s, %s, about %s (with %s of set-up a round)", count(e.Hosts, "host"), strings.Join(parts, " + "), Duration(e.Sweep()), Duration(RoundSetup))
	var extra []string
	if e.LoopbackRerun {
		extra = append(extra, "up to 1 loopback re-run round")
	}
	if e.ConfirmRounds > 0 {
		extra = append(extra, fmt.Sprintf("re-tests of bad pairs (%s allowed for)", count(e.ConfirmRounds, "round")))
	}
	if e.LocalizeRounds > 0 {
		extra = append(extra, fmt.Sprintf("up to %s", count(e.LocalizeRounds, "localisation re-test round")))
	}
	if len(extra) > 0 {
		s += "; + " + strings.Join(extra, ", + ")
	}
	return s
}

// incastPart says what the incast suite runs: "incast (4 rounds: 2 of 3
// senders → 1, 2 cross-leaf; write_bw 10s, 2 QPs)".
func (e Estimate) incastPart() string {
	switch {
	case e.IncastErr != nil:
		return fmt.Sprintf("incast (not run: %v)", e.IncastErr)
	case len(e.IncastRounds) == 0:
		return "incast (not run: needs the hosts' agents)"
	}
	down, cross, senders := 0, 0, 0
	for _, r := range e.IncastRounds {
		if r.Kind == schedule.IncastCrossLeaf {
			cross++
			continue
		}
		down++
		senders = max(senders, len(r.Flows))
	}
	var what []string
	if down > 0 {
		what = append(what, fmt.Sprintf("%d of %d → 1", down, senders))
	}
	if cross > 0 {
		what = append(what, fmt.Sprintf("%d cross-leaf", cross))
	}
	d := describe(e.Incast)
	if e.Incast.QPs > 1 {
		d += fmt.Sprintf(", %d QPs", e.Incast.QPs)
	}
	return fmt.Sprintf("incast (%s: %s; %s)", count(len(e.IncastRounds), "round"), strings.Join(what, ", "), d)
}

// describe says what one run of t is: "write_bw 5s both ways".
func describe(t rdma.Test) string {
	d := t.Test.String()
	switch {
	case t.Duration > 0:
		d += " " + Duration(t.Duration)
	case t.Iterations > 0:
		d += fmt.Sprintf(" %d iterations", t.Iterations)
	}
	if t.Bidirectional && t.Test.Kind == perftest.BW {
		d += " both ways"
	}
	return d
}

func count(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// Duration prints d rounded to the second, without the zero units
// time.Duration's String ends with: "40s", "7m", "2m10s", "1h5m".
func Duration(d time.Duration) string {
	s := d.Round(time.Second).String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}
