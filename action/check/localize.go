package check

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/fabricctl/fabricctl/checks"
	"github.com/fabricctl/fabricctl/checks/evaluate"
	"github.com/fabricctl/fabricctl/checks/localize"
	"github.com/fabricctl/fabricctl/checks/rdma"
	"github.com/fabricctl/fabricctl/checks/report"
	"github.com/fabricctl/fabricctl/checks/schedule"
	"github.com/fabricctl/fabricctl/checks/topology"
	"github.com/fabricctl/fabricctl/fabric"
)

// Observations turns a report's bandwidth pairs into the localiser's
// observations: the client (B) sent to the server (A). A pair that failed
// with completion errors, a timeout or a loss kind among its counter
// kinds (evaluate.Kind.Loss: retransmits, out-of-sequence, sequence
// errors, drops, errors; whatever its first class) is lossy; one that
// failed for low bandwidth alone is slow, by the fabric's floors; one that
// produced no value for another reason (the out-of-band connection, a
// missing tool, an unusable host) is void, since it says nothing about the
// path. endpoint names the test endpoint of a host and its RDMA device
// (nil: the host name, right for hosts with one cabled NIC).
func Observations(pairs []report.Pair, endpoint func(host, device string) string) []localize.Observation {
	if endpoint == nil {
		endpoint = func(host, _ string) string { return host }
	}
	var out []localize.Observation
	for _, p := range pairs {
		if p.Unit != checks.UnitGbps {
			continue
		}
		o := localize.Observation{Client: endpoint(p.B, p.DeviceB), Server: endpoint(p.A, p.DeviceA), Detail: p.Summary}
		if p.Value != nil {
			o.Gbps = *p.Value
		}
		switch {
		case p.Class == checks.CompletionError || p.Class == checks.Timeout || p.Status == checks.StatusFail && lossKinds(p.CounterKinds):
			o.Loss = true
		case p.Value == nil:
			o.Outcome = localize.Void
		case p.Status == checks.StatusFail && p.Class == checks.LowBandwidth:
			o.Outcome = localize.Slow // below the fabric's own floors
		}
		out = append(out, o)
	}
	return out
}

// lossKinds reports whether a loss kind is among a test's counter kinds.
func lossKinds(kinds []string) bool {
	return slices.ContainsFunc(kinds, func(k string) bool { return evaluate.Kind(k).Loss() })
}

// tests are the pairwise tests the localiser weighs: every run with its
// own verdict (rep.Runs) when the sweep re-tested before its verdict, else
// the pairs.
func tests(rep *report.Report) []report.Pair {
	if len(rep.Runs) > 0 {
		return rep.Runs
	}
	return rep.Pairs
}

// AttachSuspects localises the failures among rep's pairwise results over
// topo and writes the suspects and the topology into the report, for the
// table, JSON and HTML writers. It does nothing when the report has no
// bandwidth pairs or the topology no cabled host.
func AttachSuspects(rep *report.Report, topo *topology.Topology, endpoint func(host, device string) string, o localize.Options) error {
	return Localize(context.Background(), rep, topo, endpoint, nil, 0, nil, o)
}

// Retester runs one round of localisation re-tests after the pairwise
// sweep, as the sweep runs its pairs: every pair at once (no host is in
// two), the client sending to the server. It returns one report Pair per
// pair of the round, in order (A the server, B the client); an error (the
// end of ctx) comes with the pairs that ran.
type Retester interface {
	Retest(ctx context.Context, round schedule.Round) ([]report.Pair, error)
}

// Localize is AttachSuspects followed by the adaptive re-tests of issue
// 17: when pairs of rep failed and the localiser's suspects are ambiguous
// (a suspect with alternatives, or failing pairs that name no suspect), it
// runs the re-tests localize.Refine picks through rt, at most rounds
// rounds, stopping early once the suspects are exact or no test can split
// them, and records them in rep.Retests and rep.RetestStop. Re-tests
// change no verdict: they only feed the localiser. Nothing failed, rt nil
// or rounds 0: no re-test. An error of rt or the end of ctx keeps the
// state reached (the rounds run, the suspects of every result gathered)
// and is returned. With sc (read before the sweep), the switches' port
// error counters are read again before the analysis and after every
// re-test round, and what moved on the cabled switch ports is counter
// evidence (rep.SwitchCounters says which switches were read). When
// pairs failed and no suspect is named, rep.Possible holds the
// localiser's likeliest components: where to look. Every port whose
// receive errors, link-downs or pause-storm watchdog moved during the
// tests is a warning of its own (IDPortCounters), failed tests or not.
func Localize(ctx context.Context, rep *report.Report, topo *topology.Topology, endpoint func(host, device string) string, rt Retester, rounds int, sc *SwitchCounters, o localize.Options) error {
	return LocalizeRouted(ctx, rep, topo, nil, endpoint, rt, rounds, sc, o)
}

// LocalizeRouted is Localize over a fabric whose routes are known
// (InfiniBand's forwarding tables, Options.IB): every test crosses the
// cables and switches of its route (localize.NewRoutedModel) rather than a
// mixture of equal-cost paths, and sc's readings are then the InfiniBand
// ports' IBTA error counters, named as topo names the ports. Nil routes
// is Localize.
func LocalizeRouted(ctx context.Context, rep *report.Report, topo *topology.Topology, routes *localize.Routes, endpoint func(host, device string) string, rt Retester, rounds int, sc *SwitchCounters, o localize.Options) error {
	obs := Observations(tests(rep), endpoint)
	if len(obs) == 0 || topo == nil {
		return nil
	}
	m, err := localize.NewRoutedModel(topo, routes, o)
	if err != nil {
		return fmt.Errorf("localising failures: %w", err)
	}
	l := localize.New(m, o)
	if err := l.Add(obs...); err != nil {
		return fmt.Errorf("localising failures: %w", err)
	}
	rep.Topology = topo
	if sc != nil {
		l.SetCounters(sc.Evidence(ctx, topo))
		rep.SwitchCounters = sc.Summary()
	}
	if rt == nil || rounds <= 0 || !failed(rep.Pairs) {
		res := l.Analyze()
		rep.Suspects, rep.Possible = res.Suspects, possible(rep.Pairs, res)
		rep.Add(sc.PortCounterResults()...)
		return nil
	}
	t := &retestTester{rt: rt, endpoint: endpoint}
	var tester localize.Tester = t
	if sc != nil {
		tester = &countingTester{retestTester: t, sc: sc, topo: topo}
	}
	ref, err := localize.Refine(ctx, l, tester, 1, rounds)
	rep.Suspects, rep.Possible, rep.RetestStop = ref.Suspects, possible(rep.Pairs, ref.Result), ref.Stop
	if sc != nil {
		rep.SwitchCounters = sc.Summary()
		rep.Add(sc.PortCounterResults()...)
	}
	for k, rr := range ref.Rounds {
		round := report.RetestRound{Round: k + 1}
		for _, a := range rr.Splits {
			round.Splits = append(round.Splits, a.String())
		}
		var got []report.Pair
		if k < len(t.rounds) {
			got = t.rounds[k]
		}
		for i, p := range got {
			bears := screening // hosts no re-test used, paired to screen them
			if i < len(rr.Probes) {
				bears = rr.Probes[i].Target
			}
			round.Pairs = append(round.Pairs, report.Retest{Pair: p, For: bears})
		}
		rep.Retests = append(rep.Retests, round)
	}
	if len(rep.Retests) == 0 {
		rep.RetestStop = "" // nothing ran: the report has no re-test section
	}
	if err != nil {
		return fmt.Errorf("localising failures: %w", err)
	}
	return nil
}

// possible is the localiser's likeliest components when it named no
// suspect, kept only where a pair failed: a check that fails must not
// end in "no suspect" in silence, and one that passes needs no place to
// look (a healthy fabric's stray bad tests give some at low odds).
func possible(pairs []report.Pair, res localize.Result) []checks.Suspect {
	if len(res.Suspects) > 0 || !failed(pairs) {
		return nil
	}
	return res.Possible
}

// screening is what a re-test of two hosts no re-test used bears on
// (localize.Options.Screen): no component in question, every component
// on its path.
var screening = checks.SuspectRef{Name: "screening (hosts no re-test used)"}

// failed reports whether a bandwidth pair failed: only then is there
// something to localise by re-tests.
func failed(pairs []report.Pair) bool {
	for _, p := range pairs {
		if p.Unit == checks.UnitGbps && p.Status == checks.StatusFail {
			return true
		}
	}
	return false
}

// retestTester is a Retester as the localiser's Tester: it keeps every
// round's report pairs for the report.
type retestTester struct {
	rt       Retester
	endpoint func(host, device string) string
	rounds   [][]report.Pair
}

func (t *retestTester) RunRound(ctx context.Context, round int, pairs schedule.Round) ([]localize.Observation, error) {
	got, err := t.rt.Retest(ctx, pairs)
	t.rounds = append(t.rounds, got)
	obs := Observations(got, t.endpoint)
	for i := range obs {
		obs[i].Round = round
		obs[i].Detail = strings.TrimSuffix(fmt.Sprintf("re-test %d; %s", round, obs[i].Detail), "; ")
	}
	return obs, err
}

// countingTester is a retestTester that also reads the switches'
// counters after every round (localize.CounterReader).
type countingTester struct {
	*retestTester
	sc   *SwitchCounters
	topo *topology.Topology
}

func (t *countingTester) ReadCounters(ctx context.Context) ([]fabric.Endpoint, []localize.Counter, error) {
	read, moved := t.sc.Evidence(ctx, t.topo)
	return read, moved, nil // a switch that cannot be read is unknown, not a reason to stop
}

// LocalizeRounds is spec.checks.pairwise.localizeRounds, the bound on the
// localiser's re-test rounds (fabric.DefaultLocalizeRounds when absent).
func LocalizeRounds(c *fabric.Checks) int {
	if c == nil || c.Pairwise == nil {
		return fabric.DefaultLocalizeRounds
	}
	return fabric.LocalizeRoundsOr(c.Pairwise.LocalizeRounds)
}

func stopped(why string) string {
	if why == "" {
		return ""
	}
	return " (stopped: " + why + ")"
}

// sweepRetester runs re-tests as the pairwise sweep ran its pairs:
// rdma.Sweep.Extra with the sweep's test, retries, ports and executor,
// judged against the sweep.
type sweepRetester struct {
	sw       rdma.Sweep
	eps      []rdma.Endpoint
	res      rdma.SweepResult
	meas     string
	progress func(format string, args ...any)
}

func (s *sweepRetester) Retest(ctx context.Context, round schedule.Round) ([]report.Pair, error) {
	sw := s.sw
	sw.Note = func(format string, a ...any) { s.progress("localise: "+format, a...) }
	sw.Progress = func(done, total int, r rdma.PairRun) {
		s.progress("localise re-test %d/%d %s: %s", done, total, r.Target(), short(rdma.Judge(r, sw.Thresholds)))
	}
	runs, results, err := sw.Extra(ctx, s.eps, []schedule.Round{round}, s.res)
	if err != nil {
		return nil, fmt.Errorf("running re-tests: %w", err)
	}
	out := make([]report.Pair, len(results))
	for i, r := range results {
		p, err := report.PairOf(r, s.meas)
		if err != nil { // a run's verdict always names its pair; keep the result all the same
			p = report.Pair{A: runs[i].Server.Host, B: runs[i].Client.Host, Test: r.ID, Status: r.Status, Class: r.Class, Summary: r.Summary}
		}
		out[i] = p
	}
	return out, ctx.Err()
}
