package rdma

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/fabricctl/fabricctl/checks"
	"github.com/fabricctl/fabricctl/checks/evaluate"
	"github.com/fabricctl/fabricctl/checks/perftest"
	"github.com/fabricctl/fabricctl/checks/schedule"
)

// IDHost is the check ID of a host verdict: a host the re-tests blamed.
const IDHost = "pairwise/host"

// minBaseline is the fewest samples a leave-one-host-out baseline needs;
// below it (a fleet of two hosts) there is no baseline.
const minBaseline = 2

// sweepJudge judges runs against what the whole sweep measured: the best value
// (the relative floor) and the counters' healthy spread.
type sweepJudge struct {
	th    Thresholds
	rules evaluate.Rules
	best  float64
	// given is a baseline from elsewhere (a healthy run); nil: each side
	// is judged against the runs its host took no part in.
	given   *evaluate.Spreads
	samples []hostSample

	mu   sync.Mutex
	memo map[string]evaluate.Spreads
}

func newSweepJudge(runs []PairRun, th Thresholds, rules evaluate.Rules, given *evaluate.Spreads) *sweepJudge {
	f := &sweepJudge{th: th, rules: rules, memo: map[string]evaluate.Spreads{}}
	if given != nil && given.Samples > 0 {
		f.given = given
	}
	for _, r := range runs {
		if v, ok := r.Value(); ok && r.Test.Test.Kind == perftest.BW {
			f.best = max(f.best, v)
		}
		f.samples = append(f.samples, r.samples()...)
	}
	return f
}

// baselineFor returns the spread a side on host is judged against: a given
// baseline, else the sides of the sweep's runs in which host took no part
// (so that a faulty host's own runs never excuse it), else — with fewer
// than minBaseline of those (a fleet of two) — none.
func (f *sweepJudge) baselineFor(host string) evaluate.Spreads {
	if f.given != nil {
		return *f.given
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if b, ok := f.memo[host]; ok {
		return b
	}
	// A run involves host when either side is on it: the partners' sides
	// of host's runs are left out too.
	var others []evaluate.Sample
	for _, s := range f.samples {
		if s.host != host && !slices.Contains(s.peers, host) {
			others = append(others, s.Sample)
		}
	}
	if len(others) < minBaseline {
		// A run can never be its own baseline (it would excuse itself):
		// with no other runs, every movement of MinEvents counts.
		others = nil
	}
	b := evaluate.NewSpreads(others)
	f.memo[host] = b
	return b
}

func (f *sweepJudge) judgeAll(runs []PairRun) []checks.Result {
	out := make([]checks.Result, len(runs))
	for i, r := range runs {
		out[i] = f.judge(r)
	}
	return out
}

// judge is the complete verdict on one run (a first run or a re-test): its
// own (Judge), then the relative floor against the fleet's best, then its
// counters against the healthy spread. Every evidence counter that moved is
// a measurement "COUNTER@host/dev" (count), evidence or not. Counters are facts about the link
// even when the run's number is void, so counter evidence turns an error of
// the measurement into a failure.
func (f *sweepJudge) judge(r PairRun) checks.Result {
	res := Judge(r, f.th)
	if v, ok := r.Value(); ok && f.best > 0 && r.Test.Test.Kind == perftest.BW && res.Status != checks.StatusFail {
		if rf, err := evaluate.RelativeFloor(v, f.best, f.th.relative()); err == nil && rf.Status != checks.StatusPass {
			evaluate.Merge(&res, rf)
		}
	}
	if r.Err != nil || r.Blocked != nil {
		return res
	}
	for _, s := range r.samples() {
		for _, d := range s.Deltas {
			if d.Kind != "" && d.Delta > 0 {
				res.Measurements = append(res.Measurements, checks.Measurement{Name: d.Name + "@" + s.Subject, Value: float64(d.Delta), Unit: checks.UnitCount})
			}
		}
		fd, ev := f.baselineFor(s.host).Judge(s.Sample, f.rules)
		if fd.Status == checks.StatusPass {
			continue
		}
		if res.Status == checks.StatusError && fd.Status == checks.StatusFail {
			void := res.Summary
			res.Status, res.Class, res.Summary = checks.StatusPass, "", ""
			evaluate.Merge(&res, fd) // the counters decide: the failure's class and kinds
			res.Summary += "; " + void
		} else {
			evaluate.Merge(&res, fd)
		}
		res.Evidence = append(res.Evidence, ev...)
	}
	return res
}

// passedSpreads is the counter spread of the runs that passed.
func (f *sweepJudge) passedSpreads(runs []PairRun, results []checks.Result) evaluate.Spreads {
	var ok []evaluate.Sample
	for i, r := range runs {
		if results[i].Status == checks.StatusPass {
			for _, s := range r.samples() {
				ok = append(ok, s.Sample)
			}
		}
	}
	return evaluate.NewSpreads(ok)
}

// suspicious reports whether a verdict calls for confirmation: a failure
// of the link, or an outlier. Errors of the measurement decided nothing
// and are not re-tested (their runs were already retried).
func suspicious(r checks.Result) bool {
	switch r.Status {
	case checks.StatusFail:
		return true
	case checks.StatusWarn:
		return r.Class == checks.LowBandwidth
	}
	return false
}

// confirmByRepeat folds the verdict of a repeat of the same run into the
// first verdict: a repeat that passes clears it (not a failure: the first
// run's trouble did not recur); one that is bad again confirms it as a
// failure, with why (why names where the fault then lies); one that could
// not measure leaves it as it was.
func confirmByRepeat(first *checks.Result, again checks.Result, why string) {
	switch {
	case again.Status == checks.StatusPass:
		ev := []string{fmt.Sprintf("first run: %s (%s)", first.Status, first.Summary)}
		for _, e := range first.Evidence {
			ev = append(ev, "first run: "+e)
		}
		*first = checks.Result{ID: first.ID, Target: first.Target, Status: checks.StatusPass,
			Summary:      again.Summary + "; re-test passed, so the first run's trouble did not recur",
			Measurements: again.Measurements, Evidence: append(ev, again.Evidence...)}
	case suspicious(again):
		first.Status = checks.StatusFail
		if first.Class == "" {
			first.Class = again.Class
		}
		first.CounterKinds = evaluate.AppendKinds(first.CounterKinds, again.CounterKinds...)
		first.Summary += "; confirmed by a re-test (" + again.Summary + ")"
		if why != "" {
			first.Summary += "; " + why
		}
		for _, e := range again.Evidence {
			first.Evidence = append(first.Evidence, "re-test: "+e)
		}
	default:
		first.Evidence = append(first.Evidence, fmt.Sprintf("re-test decided nothing: %s (%s)", again.Status, again.Summary))
	}
}

// confirm re-tests the bad pairs of a pairwise sweep before the verdict,
// as ClusterKit does. Every end of a bad pair that no good pair has proven
// healthy is a suspect and runs against known-good partners: it is blamed
// only when it fails with good partners too, and then every bad pair of it
// fails, naming it. A bad pair whose two ends pass with other partners
// (from the start, or after their re-tests) runs once more as it was: a
// pass clears it, a second bad run makes it a failure of the path between
// them.
func (s Sweep) confirm(ctx context.Context, res *SweepResult, f *sweepJudge, byName map[string]Endpoint, mu *sync.Mutex) {
	var judged []schedule.Judged
	bad := map[schedule.Pair]int{} // bad pair → index of its run
	for i, r := range res.Runs {
		if r.Blocked != nil || r.Loopback() {
			continue
		}
		p := schedule.Pair{Server: r.Server.Host, Client: r.Client.Host}
		v, _ := r.Value()
		j := schedule.Judged{Pair: p, Gbps: max(v, 0), Bad: suspicious(res.Results[i])}
		if res.Results[i].Status == checks.StatusError {
			continue // decided nothing about either end
		}
		if j.Bad {
			bad[p] = i
		}
		judged = append(judged, j)
	}
	if len(bad) == 0 {
		return
	}
	partners := s.Partners
	if partners <= 0 {
		partners = DefaultPartners
	}
	plan, err := schedule.PlanConfirm(judged, partners)
	if err != nil {
		return
	}
	runRetests := func(rounds []schedule.Round) {
		if len(rounds) == 0 || ctx.Err() != nil {
			return
		}
		var names []string
		for _, p := range (schedule.Plan{Rounds: rounds}).Pairs() {
			names = append(names, p.Server+"<->"+p.Client)
		}
		s.note("re-tests before the verdict: %s", strings.Join(names, ", "))
		done, total := 0, schedule.Plan{Rounds: rounds}.Pairs()
		runs := s.runRounds(ctx, rounds, byName, mu, &done, len(total))
		res.Retests = append(res.Retests, runs...)
		res.RetestResults = append(res.RetestResults, f.judgeAll(runs)...)
	}
	if len(plan.Suspects) > 0 {
		s.note("suspects %s: re-testing them against known-good %s", strings.Join(plan.Suspects, ", "), strings.Join(plan.Good, ", "))
	}
	runRetests(plan.Rounds)

	// What each suspect showed against its good partners.
	type tally struct {
		bad, good int
		partners  []string
		lines     []string
	}
	suspect := map[string]bool{}
	for _, h := range plan.Suspects {
		suspect[h] = true
	}
	good := map[string]bool{}
	for _, h := range plan.Good {
		good[h] = true
	}
	byHost := map[string]*tally{}
	retestOf := func(p schedule.Pair) (checks.Result, bool) {
		for i := len(res.Retests) - 1; i >= 0; i-- {
			r := res.Retests[i]
			if r.Server.Host == p.Server && r.Client.Host == p.Client {
				return res.RetestResults[i], true
			}
		}
		return checks.Result{}, false
	}
	for i, r := range res.Retests {
		vr := res.RetestResults[i]
		for _, pair := range [][2]string{{r.Client.Host, r.Server.Host}, {r.Server.Host, r.Client.Host}} {
			h, partner := pair[0], pair[1]
			if !suspect[h] || !good[partner] {
				continue
			}
			t := byHost[h]
			if t == nil {
				t = &tally{}
				byHost[h] = t
			}
			switch {
			case suspicious(vr):
				t.bad++
			case vr.Status == checks.StatusPass || vr.Status == checks.StatusWarn:
				t.good++
			default:
				continue // decided nothing
			}
			t.partners = append(t.partners, partner)
			t.lines = append(t.lines, fmt.Sprintf("re-test %s with known-good %s: %s (%s)", h, partner, vr.Status, vr.Summary))
		}
	}
	blamed := map[string]bool{}
	for h, t := range byHost {
		blamed[h] = t.bad > 0 && t.good == 0
	}

	// Bad pairs whose suspects were cleared (or that were not re-tested
	// with partners) and that did not run again yet: run them again now.
	var again []schedule.Pair
	for p := range bad {
		if blamed[p.Server] || blamed[p.Client] {
			continue
		}
		if _, ok := retestOf(p); ok {
			continue
		}
		if (good[p.Server] || byHost[p.Server] != nil) && (good[p.Client] || byHost[p.Client] != nil) {
			again = append(again, p)
		}
	}
	slices.SortFunc(again, func(a, b schedule.Pair) int {
		return cmp.Or(cmp.Compare(a.Server, b.Server), cmp.Compare(a.Client, b.Client))
	})
	runRetests(schedule.Pack(again))

	for p, i := range bad {
		first := &res.Results[i]
		var culprits []string
		for _, h := range []string{p.Server, p.Client} {
			if blamed[h] {
				culprits = append(culprits, h)
			}
		}
		if len(culprits) > 0 {
			first.Status = checks.StatusFail
			if first.Class == "" {
				first.Class = checks.LowBandwidth
			}
			for _, h := range culprits {
				first.Summary += fmt.Sprintf("; %s fails with known-good partners too", h)
				first.Evidence = append(first.Evidence, byHost[h].lines...)
			}
			continue
		}
		if again, ok := retestOf(p); ok {
			confirmByRepeat(first, again, fmt.Sprintf("%s and %s pass with other partners: the fault is on the path between them", p.Server, p.Client))
			continue
		}
		first.Evidence = append(first.Evidence, "not confirmed: no known-good partner to test its hosts against, or their re-tests decided nothing")
	}

	// A verdict per blamed host.
	var names []string
	for h := range blamed {
		if blamed[h] {
			names = append(names, h)
		}
	}
	slices.Sort(names)
	for _, h := range names {
		t := byHost[h]
		classes := map[checks.FailureClass]int{}
		var ev []string
		for p, i := range bad {
			if p.Server == h || p.Client == h {
				r := res.Results[i]
				classes[r.Class]++
				ev = append(ev, fmt.Sprintf("%s: %s", r.Target, r.Summary))
			}
		}
		slices.Sort(ev)
		class, n := checks.FailureClass(""), 0
		for c, k := range classes {
			if k > n || (k == n && c < class) {
				class, n = c, k
			}
		}
		res.Hosts = append(res.Hosts, checks.Result{ID: IDHost, Target: h, Status: checks.StatusFail, Class: class,
			Summary: fmt.Sprintf("%s fails with known-good partners too (%s): the fault is at %s (its NIC, cable or switch port), not at its partners",
				h, strings.Join(uniq(t.partners), ", "), h),
			Evidence: append(t.lines, ev...)})
	}
}

func uniq(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return slices.Compact(s)
}
