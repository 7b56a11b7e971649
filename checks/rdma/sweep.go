package rdma

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/fabricctl/fabricctl/checks"
	"github.com/fabricctl/fabricctl/checks/evaluate"
	"github.com/fabricctl/fabricctl/checks/schedule"
)

// DefaultBasePort is the first TCP port of a sweep; the i-th pair of a
// round (or the i-th host of a loopback) uses DefaultBasePort+i.
const DefaultBasePort = 18600

// DefaultPartners is how many known-good partners a suspect host is
// re-tested against.
const DefaultPartners = 2

// Sweep runs one test over many endpoints.
type Sweep struct {
	Test       Test
	Thresholds Thresholds
	// Counters say when counter movements are evidence (zero: k = 4,
	// MinEvents 10).
	Counters evaluate.Rules
	// Schedule pairs the hosts (pairwise only; default all-pairs).
	Schedule schedule.Kind
	// Retest confirms every failing or outlier run before the verdict:
	// pairwise, its hosts against known-good partners and the pair once
	// more; loopback, the host once more.
	Retest   bool
	Partners int // default DefaultPartners
	// BasePort is the first TCP port (default DefaultBasePort).
	BasePort int
	// Baseline, when it holds samples, is the healthy counter spread every
	// side is judged against (e.g. SweepResult.Baseline of a healthy run);
	// otherwise each side is judged against the sweep's runs its host took
	// no part in.
	Baseline *evaluate.Spreads
	// Progress, when set, is told about every run as it ends.
	Progress func(done, total int, r PairRun)
	// Executor runs each round (and the loopback, as one round of self-pairs); nil drives every
	// job through its endpoints' agents (RunPair).
	Executor Executor
	// Note, when set, is told what the sweep starts: each round, each
	// re-test plan.
	Note func(format string, args ...any)

	// run runs one test (runPair; tests replace it).
	run func(ctx context.Context, pool *sessionPool, srv, cli Endpoint, t Test, port func(int) int) PairRun
}

// Executor runs the jobs of one round at once and returns one PairRun per job, in order. The
// default (a nil Sweep.Executor) drives every job through its endpoints' agents; a launcher (the
// Slurm one in action/launch/slurm) runs the whole round as one step on its hosts. Jobs with a Blocked
// endpoint never reach an Executor. An Executor retries runs that failed for a cause of the measurement
// (PairRun.Retryable, at least clock calibration: PairRun.RetryCalibration) as RunPair does.
type Executor interface {
	RunRound(ctx context.Context, jobs []Job) []PairRun
}

func (s Sweep) runOne(ctx context.Context, pool *sessionPool, srv, cli Endpoint, port func(int) int) PairRun {
	if s.run != nil {
		return s.run(ctx, pool, srv, cli, s.Test, port)
	}
	return runPair(ctx, pool, srv, cli, s.Test, port)
}

func (s Sweep) note(format string, args ...any) {
	if s.Note != nil {
		s.Note(format, args...)
	}
}

// port returns the TCP port of the i-th concurrent run of a round of n:
// retries after "port in use" move by portStride.
func (s Sweep) port(i int) func(attempt int) int {
	base := s.BasePort
	if base <= 0 {
		base = DefaultBasePort
	}
	return func(attempt int) int { return base + i + attempt*portStride }
}

func (s Sweep) rules() evaluate.Rules {
	r := s.Counters
	if r.Sigma <= 0 {
		r.Sigma = DefaultSigma
	}
	if r.MinEvents == 0 {
		r.MinEvents = DefaultMinEvents
	}
	return r
}

// Defaults of Sweep.Counters.
const (
	DefaultSigma     = 4
	DefaultMinEvents = 10
)

// SweepResult is the outcome of a sweep.
type SweepResult struct {
	// Runs are the first runs; Results their verdicts in the same order,
	// re-tests included.
	Runs    []PairRun
	Results []checks.Result
	// First holds each first run's own verdict, in Runs' order, before
	// the confirmation re-tests were folded into Results: with
	// Retests/RetestResults, every test that ran, each judged alone (what
	// a localiser weighs: a pair lossy once and clean on its re-test is
	// two tests, not one passing pair). Nil when nothing was re-tested.
	First []checks.Result
	Plan  schedule.Plan
	// Retests are the confirmation runs, and RetestResults their own
	// verdicts in the same order.
	Retests       []PairRun
	RetestResults []checks.Result
	// Hosts holds a verdict per host the re-tests blamed (ID
	// "pairwise/host"): it failed with known-good partners too.
	Hosts []checks.Result
	// Baseline is the counter spread of the runs that passed, to judge a
	// later sweep by (Sweep.Baseline).
	Baseline evaluate.Spreads
}

// Loopback runs the test on every endpoint at once, server and client on
// the same host (LoopDevice, when set, as the client's device). With
// Retest, a host whose run failed on the link or was an outlier runs once
// more: a re-run that passes clears it.
func (s Sweep) Loopback(ctx context.Context, eps []Endpoint) SweepResult {
	var mu sync.Mutex
	done := 0
	runAll := func(eps []Endpoint, total int) []PairRun {
		jobs := make([]Job, len(eps))
		for i, e := range eps {
			jobs[i] = Job{Server: e, Client: e, Test: s.Test, TCPPort: s.port(i)(0)}
		}
		pool := newSessionPool(ctx)
		defer pool.close()
		return s.runJobs(ctx, pool, jobs, &mu, &done, total)
	}
	s.note("loopback on %d hosts at once (%s each)", len(eps), s.Test.describe())
	runs := runAll(eps, len(eps))
	f := newSweepJudge(runs, s.Thresholds, s.rules(), s.Baseline)
	res := SweepResult{Runs: runs, Results: f.judgeAll(runs)}
	if s.Retest && ctx.Err() == nil {
		var again []Endpoint
		var idx []int
		for i, r := range res.Results {
			if suspicious(r) && runs[i].Blocked == nil {
				again = append(again, eps[i])
				idx = append(idx, i)
			}
		}
		if len(again) > 0 {
			var names []string
			for _, e := range again {
				names = append(names, e.Host)
			}
			s.note("loopback re-run before the verdict: %s", strings.Join(names, ", "))
			done = 0
			res.First = snapshot(res.Results)
			res.Retests = runAll(again, len(again))
			res.RetestResults = f.judgeAll(res.Retests)
			for j, i := range idx {
				confirmByRepeat(&res.Results[i], res.RetestResults[j], "")
			}
		}
	}
	res.Baseline = f.passedSpreads(res.Runs, res.Results)
	return res
}

func (s Sweep) progress(mu *sync.Mutex, done *int, total int, r PairRun) {
	if s.Progress == nil {
		return
	}
	mu.Lock()
	defer mu.Unlock()
	*done++
	s.Progress(*done, total, r)
}

// runRounds runs every round in turn and every pair of a round at once.
func (s Sweep) runRounds(ctx context.Context, rounds []schedule.Round, byName map[string]Endpoint, mu *sync.Mutex, done *int, total int) []PairRun {
	var runs []PairRun
	pool := newSessionPool(ctx)
	defer pool.close()
	for k, round := range rounds {
		var names []string
		for _, p := range round {
			names = append(names, p.Server+"<->"+p.Client)
		}
		s.note("round %d/%d: %s (%s each)", k+1, len(rounds), strings.Join(names, ", "), s.Test.describe())
		jobs := make([]Job, len(round))
		for i, p := range round {
			jobs[i] = Job{Server: byName[p.Server], Client: byName[p.Client], Test: s.Test, TCPPort: s.port(i)(0)}
		}
		runs = append(runs, s.runJobs(ctx, pool, jobs, mu, done, total)...)
		if ctx.Err() != nil {
			break
		}
	}
	return runs
}

// runJobs runs one round: through the Executor when there is one (blocked jobs apart), else every
// job at once through the agents.
func (s Sweep) runJobs(ctx context.Context, pool *sessionPool, jobs []Job, mu *sync.Mutex, done *int, total int) []PairRun {
	out := make([]PairRun, len(jobs))
	if s.Executor == nil {
		var wg sync.WaitGroup
		for i, j := range jobs {
			wg.Go(func() {
				out[i] = s.runOne(ctx, pool, j.Server, j.Client, func(attempt int) int { return j.TCPPort + attempt*portStride })
				s.progress(mu, done, total, out[i])
			})
		}
		wg.Wait()
		return out
	}
	var run []Job
	var at []int
	for i, j := range jobs {
		if b := j.Blocked(); b != nil {
			out[i] = PairRun{Server: j.Server, Client: j.Client, Test: j.Test, TCPPort: j.TCPPort, Blocked: b}
			s.progress(mu, done, total, out[i])
			continue
		}
		run, at = append(run, j), append(at, i)
	}
	if len(run) == 0 {
		return out
	}
	got := s.Executor.RunRound(ctx, run)
	for k, j := range run {
		r := PairRun{Server: j.Server, Client: j.Client, Test: j.Test, TCPPort: j.TCPPort,
			Err: fmt.Errorf("running %s: %w", j.Server.Host+"/"+j.Client.Host, ErrNoRun)}
		if k < len(got) {
			r = got[k]
		}
		out[at[k]] = r
		s.progress(mu, done, total, r)
	}
	return out
}

// ErrNoRun: an Executor returned no run for a job.
var ErrNoRun = errors.New("the executor returned no run")

// Pairwise runs the schedule over the endpoints (one per host) and judges
// every pair: its own measurements, the relative floor against the fleet's
// best pair, and its counters against the healthy spread of the runs each
// side's host took no part in. With Retest, every pair that failed on the
// link or was an outlier is confirmed before the verdict (see confirm).
func (s Sweep) Pairwise(ctx context.Context, eps []Endpoint) (SweepResult, error) {
	byName := map[string]Endpoint{}
	hosts := make([]schedule.Host, len(eps))
	for i, e := range eps {
		byName[e.Host] = e
		hosts[i] = schedule.Host{Name: e.Host, Labels: e.Labels}
	}
	kind := s.Schedule
	if kind == "" {
		kind = schedule.KindAllPairs
	}
	plan, err := schedule.Build(kind, hosts)
	if err != nil {
		return SweepResult{}, fmt.Errorf("planning the pairwise sweep: %w", err)
	}
	var mu sync.Mutex
	done, total := 0, len(plan.Pairs())
	runs := s.runRounds(ctx, plan.Rounds, byName, &mu, &done, total)
	f := newSweepJudge(runs, s.Thresholds, s.rules(), s.Baseline)
	res := SweepResult{Runs: runs, Results: f.judgeAll(runs), Plan: plan}
	if s.Retest && ctx.Err() == nil {
		first := snapshot(res.Results)
		s.confirm(ctx, &res, f, byName, &mu)
		if len(res.Retests) > 0 {
			res.First = first
		}
	}
	res.Baseline = f.passedSpreads(res.Runs, res.Results)
	return res, nil
}

// ErrExtraPair: a further round of Extra names an endpoint the sweep does
// not have, or one endpoint in two of its pairs.
var ErrExtraPair = errors.New("cannot run the pair")

// Extra runs further rounds after Pairwise — a localiser's re-tests —
// exactly as the sweep's own rounds run: its test, retries and Executor,
// the pairs of a round at once on BasePort+i (retries portStride
// higher), one round after the other. Each run is judged against the
// sweep's res as its own re-tests are: the relative floor against the
// best of res.Runs, counters against the healthy spread of the runs its
// host took no part in (or the given Baseline). A round naming an unknown
// endpoint, or one endpoint twice (two tests on one NIC at once), is
// refused before anything runs. When ctx ends, the runs made so far are
// returned.
func (s Sweep) Extra(ctx context.Context, eps []Endpoint, rounds []schedule.Round, res SweepResult) ([]PairRun, []checks.Result, error) {
	byName := map[string]Endpoint{}
	for _, e := range eps {
		byName[e.Host] = e
	}
	total := 0
	for k, r := range rounds {
		busy := map[string]bool{}
		for _, p := range r {
			for _, h := range []string{p.Server, p.Client} {
				if _, ok := byName[h]; !ok {
					return nil, nil, fmt.Errorf("re-test round %d: %s<->%s: %w: %s is not an endpoint of the sweep", k+1, p.Server, p.Client, ErrExtraPair, h)
				}
				if busy[h] {
					return nil, nil, fmt.Errorf("re-test round %d: %s<->%s: %w: %s is in another pair of the round", k+1, p.Server, p.Client, ErrExtraPair, h)
				}
				busy[h] = true
			}
			total++
		}
	}
	var mu sync.Mutex
	done := 0
	runs := s.runRounds(ctx, rounds, byName, &mu, &done, total)
	f := newSweepJudge(res.Runs, s.Thresholds, s.rules(), s.Baseline)
	return runs, f.judgeAll(runs), nil
}

// snapshot copies verdicts deeply enough that folding re-tests into the
// originals leaves the copies as they were.
func snapshot(results []checks.Result) []checks.Result {
	out := slices.Clone(results)
	for i := range out {
		out[i].Evidence = slices.Clone(out[i].Evidence)
		out[i].Measurements = slices.Clone(out[i].Measurements)
		out[i].CounterKinds = slices.Clone(out[i].CounterKinds)
	}
	return out
}
