package rdma

import (
	"context"
	"errors"
	"fmt"
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
	// Schedule pairs the hosts (pairwise only; default all-pairs).
	Schedule schedule.Kind
	// Retest re-runs outliers against known-good partners (pairwise only).
	Retest   bool
	Partners int // default DefaultPartners
	// BasePort is the first TCP port (default DefaultBasePort).
	BasePort int
	// Baseline, when set, is the healthy counter movement per test; nil
	// builds it from the sweep's own healthy runs.
	Baseline evaluate.Baseline
	// Progress, when set, is told about every run as it ends.
	Progress func(done, total int, r PairRun)
	// Executor runs each round (and the loopback, as one round of self-pairs); nil drives every
	// job through its endpoints' agents (RunPair).
	Executor Executor
}

// Executor runs the jobs of one round at once and returns one PairRun per job, in order. The
// default (a nil Sweep.Executor) drives every job through its endpoints' agents; a launcher (the
// Slurm one in checks/slurm) runs the whole round as one step on its hosts. Jobs with a Blocked
// endpoint never reach an Executor. An Executor retries runs whose clock calibration failed
// (PairRun.RetryCalibration) as RunPair does.
type Executor interface {
	RunRound(ctx context.Context, jobs []Job) []PairRun
}

func (s Sweep) port(i int) int {
	if s.BasePort > 0 {
		return s.BasePort + i
	}
	return DefaultBasePort + i
}

// SweepResult is the outcome of a sweep: one Result per run in Runs' order, and the re-tests.
type SweepResult struct {
	Runs     []PairRun
	Results  []checks.Result
	Plan     schedule.Plan
	Retests  []PairRun
	Baseline evaluate.Baseline
}

// Loopback runs the test on every endpoint at once, server and client on
// the same host (LoopDevice, when set, as the client's device).
func (s Sweep) Loopback(ctx context.Context, eps []Endpoint) SweepResult {
	jobs := make([]Job, len(eps))
	for i, e := range eps {
		jobs[i] = Job{Server: e, Client: e, Test: s.Test, TCPPort: s.port(i)}
	}
	pool := newSessionPool(ctx)
	defer pool.close()
	var mu sync.Mutex
	done := 0
	return s.judge(s.runJobs(ctx, pool, jobs, &mu, &done, len(eps)))
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

func (s Sweep) judge(runs []PairRun) SweepResult {
	res := SweepResult{Runs: runs, Results: make([]checks.Result, len(runs))}
	for i, r := range runs {
		res.Results[i] = Judge(r, s.Thresholds)
	}
	res.Baseline = judgeSweep(runs, res.Results, s.Thresholds, s.Baseline)
	return res
}

// runRounds runs every round in turn and every pair of a round at once.
func (s Sweep) runRounds(ctx context.Context, rounds []schedule.Round, byName map[string]Endpoint, mu *sync.Mutex, done *int, total int) []PairRun {
	var runs []PairRun
	pool := newSessionPool(ctx)
	defer pool.close()
	for _, round := range rounds {
		jobs := make([]Job, len(round))
		for i, p := range round {
			jobs[i] = Job{Server: byName[p.Server], Client: byName[p.Client], Test: s.Test, TCPPort: s.port(i)}
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
				out[i] = runPair(ctx, pool, j.Server, j.Client, j.Test, j.TCPPort)
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

// Pairwise runs the schedule over the endpoints (one per host), judges every
// pair, and when Retest is set runs outlier hosts again against known-good
// partners: a suspect whose re-tests are outliers too turns its outlier
// pairs into failures; an outlier pair between two healthy hosts is run
// again as it was, and fails when it is still low.
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
	res := s.judge(s.runRounds(ctx, plan.Rounds, byName, &mu, &done, total))
	res.Plan = plan
	if !s.Retest || ctx.Err() != nil {
		return res, nil
	}
	var measured []schedule.Measured
	for _, r := range res.Runs {
		if v, ok := r.Value(); ok && r.Test.Test.Kind == "bw" {
			measured = append(measured, schedule.Measured{Pair: schedule.Pair{Server: r.Server.Host, Client: r.Client.Host}, Gbps: v})
		}
	}
	if len(measured) == 0 {
		return res, nil
	}
	partners := s.Partners
	if partners <= 0 {
		partners = DefaultPartners
	}
	rp, err := schedule.PlanRetests(measured, s.Thresholds.relative(), partners)
	if err != nil || len(rp.Rounds) == 0 {
		return res, nil
	}
	done, total = 0, len(rp.Pairs())
	res.Retests = s.runRounds(ctx, rp.Rounds, byName, &mu, &done, total)
	applyRetests(&res, rp, s.Thresholds.relative())
	return res, nil
}

// applyRetests folds the re-tests into the results of the outlier pairs.
func applyRetests(res *SweepResult, rp schedule.RetestPlan, floor float64) {
	// What each host's re-tests showed: a suspect stays suspect when every
	// re-test of it is an outlier too.
	type tally struct {
		low, ok int
		lines   []string
	}
	byHost := map[string]*tally{}
	byPair := map[schedule.Pair]*tally{}
	for _, r := range res.Retests {
		p := schedule.Pair{Server: r.Server.Host, Client: r.Client.Host}
		v, ok := r.Value()
		low := !ok || evaluate.IsOutlier(v, rp.Best, floor)
		line := fmt.Sprintf("re-test %s: ", r.Target())
		if ok {
			line += fmt.Sprintf("%.3f Gb/s (%.0f%% of the best %.3f)", v, 100*v/rp.Best, rp.Best)
		} else {
			line += "no result"
		}
		for _, k := range []string{p.Server, p.Client} {
			if byHost[k] == nil {
				byHost[k] = &tally{}
			}
		}
		if byPair[p] == nil {
			byPair[p] = &tally{}
		}
		for _, t := range []*tally{byHost[p.Client], byPair[p]} {
			if low {
				t.low++
			} else {
				t.ok++
			}
			t.lines = append(t.lines, line)
		}
	}
	suspect := map[string]bool{}
	for _, h := range rp.Suspects {
		suspect[h] = true
	}
	for i, r := range res.Runs {
		resu := &res.Results[i]
		if resu.Status != checks.StatusWarn || resu.Class != checks.LowBandwidth {
			continue
		}
		p := schedule.Pair{Server: r.Server.Host, Client: r.Client.Host}
		var confirmed bool
		var lines []string
		for _, h := range []string{p.Server, p.Client} {
			if t := byHost[h]; suspect[h] && t != nil {
				lines = append(lines, t.lines...)
				confirmed = confirmed || (t.low > 0 && t.ok == 0)
			}
		}
		if t := byPair[p]; t != nil && !suspect[p.Server] && !suspect[p.Client] {
			lines = append(lines, t.lines...)
			confirmed = confirmed || t.low > 0
		}
		resu.Evidence = append(resu.Evidence, lines...)
		if confirmed {
			resu.Status = checks.StatusFail
			resu.Summary += "; confirmed by re-tests against known-good partners"
		} else if len(lines) > 0 {
			resu.Summary += "; re-tests against known-good partners were healthy"
		}
	}
}
