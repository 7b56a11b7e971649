package check

import (
	"context"
	"fmt"
	"net/netip"
	"slices"
	"sync"
	"time"

	"github.com/fabricctl/fabricctl/agent/agentclient"
	"github.com/fabricctl/fabricctl/checks"
	"github.com/fabricctl/fabricctl/checks/collective"
	"github.com/fabricctl/fabricctl/checks/evaluate"
	"github.com/fabricctl/fabricctl/checks/localize"
	"github.com/fabricctl/fabricctl/checks/perftest"
	"github.com/fabricctl/fabricctl/checks/preflight"
	"github.com/fabricctl/fabricctl/checks/rdma"
	"github.com/fabricctl/fabricctl/checks/report"
	"github.com/fabricctl/fabricctl/checks/schedule"
	"github.com/fabricctl/fabricctl/checks/topology"
	"github.com/fabricctl/fabricctl/fabric"
)

// Host is one host under test and the way to reach its agent.
type Host struct {
	Intent fabric.HostIntent
	Agent  agentclient.Agent
}

// Options say what to run.
type Options struct {
	// Suites to run (default preflight, loopback, pairwise).
	Suites []report.Suite
	// Checks are the fabric's spec.checks; nil or missing suites use defaults
	// (write_bw for 5 s, all-pairs, no absolute floor).
	Checks *fabric.Checks
	// Parallel bounds how many hosts preflight talks to at once (default 32).
	Parallel int
	// Timeout overrides the per-side perftest bound (0: twice the duration + 30 s).
	Timeout time.Duration
	// Bidirectional runs pairwise tests both ways at once (perftest -b)
	// even when the fabric's pairwise.bidirectional is off.
	Bidirectional bool
	// Baseline is the healthy counter spread to judge every test by (the
	// Baseline of a healthy run). Nil judges each side against the runs of
	// the same sweep its host took no part in. Non-nil without samples:
	// Run fills it with the pairwise sweep's spread of passing runs, to
	// hand to a later run.
	Baseline *evaluate.Spreads
	// RelativeFloor, when set, overrides the fabric's minPercentOfBest
	// (a fraction of the fleet's best).
	RelativeFloor float64
	// BasePort is the first perftest TCP port (default rdma.DefaultBasePort).
	BasePort int
	// Progress, when set, receives one line per finished step. Steps finish
	// on many goroutines, but Run calls Progress from one at a time, so it
	// needs no lock of its own.
	Progress func(format string, args ...any)
	// NCCLExecutor runs the NCCL suite's host side (nil: each host's agent).
	// A workload manager's launcher that implements collective.Executor goes here.
	NCCLExecutor collective.Executor
	// NCCLLogDir, when set, keeps every rank's NCCL log as DIR/<host>/<log>.
	NCCLLogDir string
	// Topology is the fabric's declared cabling (topology.Declared); when
	// it cables the hosts, the pairwise results are localised over it and
	// the ranked suspects and the topology go into the report.
	Topology *topology.Topology
	// Neighbors, when set with a Topology, reads the switches' LLDP
	// neighbours for the cabling comparison (the hosts' come from their
	// agents' lldp op).
	Neighbors NeighborSource
	// SwitchCounters, when set with a Topology, reads the switches' port
	// error counters before the pairwise sweep and again for the
	// localiser, whose counter evidence they become.
	SwitchCounters SwitchCounterSource
	IBLocalize     IBSource // with an InfiniBand Topology: the localiser's routes and port counters (WithIBLocalize)
	// SwitchAddrs are the addresses the fabric declares for its switches
	// (rdma.SwitchAddrs), which name the hops of the traced paths of
	// spec.checks.pairwise.flowLabel: auto (docs/pinned-paths.md).
	SwitchAddrs map[netip.Addr]string
	// Launcher, when set, runs the host side through a workload manager (Slurm's srun) instead
	// of each host's agent: Hosts' Agents are not used, and nothing is left to clean up.
	Launcher Launcher
	// IBSuite configures the ib suite (report.SuiteIB): the InfiniBand
	// fabric read through one vantage host's agent.
	IBSuite IBSuiteOptions
	// Incast configures the incast suite (report.SuiteIncast) beyond
	// spec.checks.incast: the switches' counters and their families
	// (FabricIncast fills them from a fabric).
	Incast IncastOptions
}

// Launcher runs the checks' host side on many hosts at once, through a workload manager: the
// preflight as one step, and every round of RDMA tests as one step (rdma.Executor).
// action/launch/slurm's Launcher is one.
type Launcher interface {
	// Preflight gathers the facts of every host of intents, each with the others as the peers
	// whose names must resolve; errs[i] is set when host i reported none.
	Preflight(ctx context.Context, intents []fabric.HostIntent) (facts []preflight.Facts, errs []error)
	rdma.Executor
}

// NCCLLauncher is a Launcher that also runs the NCCL suite's node side (action/launch/slurm's: the
// probe and the all-reduce as srun steps); under another Launcher the suite is a skip.
type NCCLLauncher interface {
	NCCL() collective.Executor
}

// ErrNoHosts: the fabric has no hosts to check (checks.ErrNoHosts, which launchers return too).
var ErrNoHosts = checks.ErrNoHosts

func (o Options) suites() []report.Suite {
	if len(o.Suites) == 0 {
		return []report.Suite{report.SuitePreflight, report.SuiteLoopback, report.SuitePairwise}
	}
	return o.Suites
}

func (o Options) progress(format string, args ...any) {
	if o.Progress != nil {
		o.Progress(format, args...)
	}
}

// Run checks the hosts and returns the report. Preflight facts are always
// gathered (the RDMA tests need each host's device and GID index) but their
// results are reported only with the preflight suite. Every host's agent is
// asked to clean up stray perftest processes at the end, even when ctx was
// cancelled. Run returns an error only when nothing could be checked.
func Run(ctx context.Context, fabricName string, hosts []Host, o Options) (*report.Report, error) {
	if len(hosts) == 0 {
		return nil, ErrNoHosts
	}
	if p := o.Progress; p != nil {
		var mu sync.Mutex // the hosts' steps finish concurrently
		o.Progress = func(format string, args ...any) {
			mu.Lock()
			defer mu.Unlock()
			p(format, args...)
		}
	}
	rep := report.New(fabricName, time.Now(), o.suites()...)
	rep.Criteria = Criteria(o)
	ib := startIB(ctx, hosts, o)
	if ibOnly(o) {
		ib.finish(ctx, rep)
		rep.Finished = time.Now()
		return rep, nil
	}
	var facts []hostFacts
	if o.Launcher != nil {
		facts = launch(ctx, hosts, o)
	} else {
		defer cleanup(ctx, hosts, o)
		facts = gather(ctx, hosts, o)
	}
	eps := make([]rdma.Endpoint, len(hosts))
	for i, h := range hosts {
		eps[i] = endpoint(h, facts[i])
	}
	if slices.Contains(o.suites(), report.SuitePreflight) {
		var ok []preflight.Facts
		for i, f := range facts {
			if f.err != nil {
				rep.Add(checks.ErrorResult(preflight.IDAgent, hosts[i].Intent.Host, "", f.err))
				continue
			}
			rep.Add(preflight.Evaluate(f.Facts, preflight.Options{ExpectedRate: ExpectedRate(o.Checks)})...)
			ok = append(ok, f.Facts)
		}
		if len(ok) > 1 {
			rep.Add(preflight.Fleet(ok)...)
		}
	}
	if cabled(o.Topology, hosts) && slices.Contains(o.suites(), report.SuitePreflight) && ctx.Err() == nil {
		rep.Cabling = discoverCabling(ctx, hosts, o.Topology, o.Neighbors, func(format string, a ...any) { o.progress(format, a...) })
	}
	if slices.Contains(o.suites(), report.SuiteLoopback) && ctx.Err() == nil {
		sw := loopbackSweep(o)
		sw.Executor = executor(o)
		sw.Note = func(format string, a ...any) { o.progress("loopback: "+format, a...) }
		sw.Progress = func(done, total int, r rdma.PairRun) {
			o.progress("loopback %d/%d %s: %s", done, total, r.Target(), short(rdma.Judge(r, sw.Thresholds)))
		}
		res := sw.Loopback(ctx, eps)
		rep.Add(res.Results...)
	}
	var rt Retester // the pairwise sweep's runner, for the localiser's re-tests
	var sc *SwitchCounters
	var routes *localize.Routes // an InfiniBand fabric's forwarding (o.IBLocalize)
	if slices.Contains(o.suites(), report.SuitePairwise) && ctx.Err() == nil && len(eps) > 1 {
		if cabled(o.Topology, hosts) {
			sc, routes = o.startCounters(ctx)
		}
		sw := pairwiseSweep(o)
		sw.Executor = executor(o)
		sw.Note = func(format string, a ...any) { o.progress("pairwise: "+format, a...) }
		sw.Progress = func(done, total int, r rdma.PairRun) {
			o.progress("pairwise %d/%d %s: %s", done, total, r.Target(), short(rdma.Judge(r, sw.Thresholds)))
		}
		res, err := sw.Pairwise(ctx, eps)
		if o.Baseline != nil && o.Baseline.Samples == 0 {
			*o.Baseline = res.Baseline
		}
		rep.Add(res.Hosts...)
		if err != nil {
			rep.Add(checks.Result{ID: "pairwise/schedule", Target: "fleet", Status: checks.StatusError, Summary: err.Error()})
		}
		meas := rdma.MeasBWAverage
		if sw.Test.Test.Kind == perftest.Lat {
			meas = rdma.MeasLatency
		}
		rt = &sweepRetester{sw: sw, eps: eps, res: res, meas: meas, progress: o.progress}
		for _, r := range res.Results {
			p, err := report.PairOf(r, meas)
			if err != nil {
				rep.Add(r)
				continue
			}
			rep.AddPairs(p)
		}
		if len(res.Retests) > 0 { // every test with its own verdict, for the localiser
			for _, r := range slices.Concat(res.First, res.RetestResults) {
				if p, err := report.PairOf(r, meas); err == nil {
					rep.Runs = append(rep.Runs, p)
				}
			}
		}
		routes = o.pinnedPaths(ctx, rep, hosts, facts, res.Runs, routes) // spec.checks.pairwise.flowLabel: auto
	}
	if cabled(o.Topology, hosts) && len(rep.Pairs) > 0 {
		// The localiser reads a test as slow by the fabric's own relative
		// floor (minPercentOfBest; 93 % by default, as its own default), so
		// that a fabric declaring a wide healthy spread (the lab's 2 %) is
		// not taken for slow NICs.
		// Its re-test rounds also pair the hosts no re-test uses
		// (Screen): a fault that spoils only some tests or rounds shows
		// with more of them, and a round costs the same.
		lo := localize.Options{RelativeFloor: pairwiseSweep(o).Thresholds.RelativeFloor, Screen: true}
		if err := LocalizeRouted(ctx, rep, o.Topology, routes, o.endpoint(), rt, LocalizeRounds(o.Checks), sc, lo); err != nil {
			rep.Add(checks.Result{ID: "pairwise/localise", Target: "fleet", Status: checks.StatusError, Summary: err.Error()})
		}
		o.progress("localise: %d suspect(s) after %d re-test round(s)%s", len(rep.Suspects), len(rep.Retests), stopped(rep.RetestStop))
	}
	if slices.Contains(o.suites(), report.SuiteIncast) && ctx.Err() == nil {
		runIncast(ctx, hosts, eps, rep, o)
	}
	if slices.Contains(o.suites(), report.SuiteNCCL) && ctx.Err() == nil {
		runNCCL(ctx, hosts, facts, eps, rep, o)
	}
	ib.finish(ctx, rep)
	rep.Finished = time.Now()
	return rep, nil
}

// short says how a run ended, before the sweep judges it with the fleet
// (relative floor, counters, re-tests): the measurement, or why there is
// none.
func short(r checks.Result) string {
	if r.Status == checks.StatusPass {
		if m, ok := r.Measurement(rdma.MeasBWAverage); ok {
			return fmt.Sprintf("measured %.3f %s", m.Value, m.Unit)
		}
		if m, ok := r.Measurement(rdma.MeasLatency); ok {
			return fmt.Sprintf("measured %.2f %s", m.Value, m.Unit)
		}
	}
	s := string(r.Status)
	if r.Summary != "" {
		s += " " + r.Summary
	}
	return s
}

// ExpectedRate is spec.checks.preflight.expectedRate, the port rate every host must show (0: any).
func ExpectedRate(c *fabric.Checks) float64 {
	if c == nil || c.Preflight == nil {
		return 0
	}
	return c.Preflight.ExpectedRate
}

type hostFacts struct {
	preflight.Facts
	err error
}

// executor is the launcher as the sweeps' executor (nil: the agents).
func executor(o Options) rdma.Executor {
	if o.Launcher == nil {
		return nil
	}
	return o.Launcher
}

// peersOf lists every host but host i.
func peersOf(hosts []Host, i int) []preflight.Peer {
	var peers []preflight.Peer
	for k, p := range hosts {
		if k != i {
			peers = append(peers, preflight.Peer{Name: p.Intent.Host, Address: p.Intent.Address})
		}
	}
	return peers
}

// launch gathers every host's facts through the launcher.
func launch(ctx context.Context, hosts []Host, o Options) []hostFacts {
	intents := make([]fabric.HostIntent, len(hosts))
	for i, h := range hosts {
		intents[i] = h.Intent
	}
	facts, errs := o.Launcher.Preflight(ctx, intents)
	out := make([]hostFacts, len(hosts))
	for i, h := range hosts {
		if i < len(facts) {
			out[i].Facts = facts[i]
		}
		if i < len(errs) && errs[i] != nil {
			out[i].err = fmt.Errorf("running preflight on %s: %w", h.Intent.Host, errs[i])
		}
		out[i].Host = h.Intent.Host
		o.progress("preflight %s: %s", h.Intent.Host, errOr(out[i].err, "facts gathered"))
	}
	return out
}

// Bounds of the preflight op on one host and of the clean-up at the end.
const (
	preflightBound = 2 * time.Minute
	cleanupBound   = 30 * time.Second
)

// gather runs the preflight op on every host, Parallel at a time.
func gather(ctx context.Context, hosts []Host, o Options) []hostFacts {
	out := make([]hostFacts, len(hosts))
	par := o.Parallel
	if par <= 0 {
		par = 32
	}
	sem := make(chan struct{}, par)
	var wg sync.WaitGroup
	for i, h := range hosts {
		peers := peersOf(hosts, i)
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			cctx, cancel := context.WithTimeout(ctx, preflightBound)
			defer cancel()
			var f preflight.Facts
			err := agentclient.Call(cctx, h.Agent, preflight.Op, preflight.Args{Intent: h.Intent, Peers: peers}, &f)
			if err != nil {
				err = fmt.Errorf("running preflight on %s: %w", h.Intent.Host, err)
			}
			f.Host = h.Intent.Host
			out[i] = hostFacts{f, err}
			o.progress("preflight %s: %s", h.Intent.Host, errOr(err, "facts gathered"))
		})
	}
	wg.Wait()
	return out
}

func errOr(err error, ok string) string {
	if err != nil {
		return err.Error()
	}
	return ok
}

// endpoint picks the host's first RoCE/IB port and says why it is unusable
// when it is.
func endpoint(h Host, f hostFacts) rdma.Endpoint {
	e := rdma.EndpointOf(h.Intent, f.Facts, f.err)
	e.Agent = h.Agent
	return e
}

func test(name string, size fabric.Bytes, dur fabric.Duration, retries *int, qpTimeout int) rdma.Test {
	t, err := perftest.ParseTest(name)
	if err != nil || name == "" {
		t = perftest.WriteBW
	}
	d := time.Duration(dur)
	if d == 0 {
		d = 5 * time.Second
	}
	return rdma.Test{Test: t, Size: int64(size), Duration: d.Round(time.Second), Retries: fabric.RetriesOr(retries), QPTimeout: qpTimeout}
}

// relative is the outlier fraction: Options.RelativeFloor, else the
// fabric's minPercentOfBest, else the default.
func (o Options) relative(minPercentOfBest int) float64 {
	switch {
	case o.RelativeFloor > 0:
		return o.RelativeFloor
	case minPercentOfBest > 0:
		return float64(minPercentOfBest) / 100
	}
	return float64(fabric.DefaultMinPercentOfBest) / 100
}

// counterRules are the fabric's counter-evidence rules with their defaults.
func counterRules(c *fabric.Checks) evaluate.Rules {
	r := evaluate.Rules{Sigma: fabric.DefaultSigma, MinEvents: fabric.DefaultMinEvents}
	if c == nil || c.Counters == nil {
		return r
	}
	if c.Counters.Sigma > 0 {
		r.Sigma = c.Counters.Sigma
	}
	if c.Counters.MinEvents > 0 {
		r.MinEvents = uint64(c.Counters.MinEvents)
	}
	r.MinPerGB, r.Ignore = c.Counters.MinPerGB, c.Counters.Ignore
	if c.Counters.MaxHealthyPerTest > 0 {
		r.MaxHealthyPerTest = uint64(c.Counters.MaxHealthyPerTest)
	}
	return r
}

// LoopbackTest is the test and thresholds of the fabric's spec.checks.loopback (defaults:
// write_bw for 5 s, no absolute floor).
func LoopbackTest(c *fabric.Checks) (rdma.Test, rdma.Thresholds) {
	sw := loopbackSweep(Options{Checks: c})
	return sw.Test, sw.Thresholds
}

func loopbackSweep(o Options) rdma.Sweep {
	var l fabric.Loopback
	if o.Checks != nil && o.Checks.Loopback != nil {
		l = *o.Checks.Loopback
	}
	t := test(l.Test, l.MessageSize, l.Duration, l.Retries, l.QPTimeout)
	t.Timeout = o.Timeout
	return rdma.Sweep{Test: t, BasePort: o.BasePort, Retest: l.RetestOutliers, Counters: counterRules(o.Checks), Baseline: o.given(),
		Thresholds: rdma.Thresholds{MinPercentOfPortRate: float64(l.MinPercentOfPortRate), PortRateGbps: float64(l.PortRate),
			MaxLatency: time.Duration(l.MaxLatency), RelativeFloor: o.relative(l.MinPercentOfBest)}}
}

// PairwiseTest is the test and schedule of the fabric's spec.checks.pairwise (defaults: write_bw
// for 5 s, all-pairs).
func PairwiseTest(c *fabric.Checks) (rdma.Test, schedule.Kind) {
	var p fabric.Pairwise
	if c != nil && c.Pairwise != nil {
		p = *c.Pairwise
	}
	kind := schedule.Kind(p.Schedule)
	if kind == "" {
		kind = schedule.KindAllPairs
	}
	return test(p.Test, p.MessageSize, p.Duration, p.Retries, p.QPTimeout), kind
}

func pairwiseSweep(o Options) rdma.Sweep {
	var p fabric.Pairwise
	if o.Checks != nil && o.Checks.Pairwise != nil {
		p = *o.Checks.Pairwise
	}
	t := test(p.Test, p.MessageSize, p.Duration, p.Retries, p.QPTimeout)
	t.Timeout, t.Bidirectional = o.Timeout, (o.Bidirectional || p.Bidirectional) && t.Test.Kind == perftest.BW
	t.FlowLabel = pinnedFlowLabel(o.Checks)
	return rdma.Sweep{Test: t, BasePort: o.BasePort, Schedule: schedule.Kind(p.Schedule), Retest: p.RetestOutliers, Partners: p.Partners,
		Counters: counterRules(o.Checks), Baseline: o.given(),
		Thresholds: rdma.Thresholds{MinPercentOfPortRate: float64(p.MinPercentOfPortRate), PortRateGbps: float64(p.PortRate),
			MaxLatency: time.Duration(p.MaxLatency), RelativeFloor: o.relative(p.MinPercentOfBest)}}
}

// given is the baseline to judge by, when Options carries one.
func (o Options) given() *evaluate.Spreads {
	if o.Baseline != nil && o.Baseline.Samples > 0 {
		return o.Baseline
	}
	return nil
}

// cleanup asks every agent to kill perftest processes left behind.
func cleanup(ctx context.Context, hosts []Host, o Options) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupBound)
	defer cancel()
	var wg sync.WaitGroup
	for _, h := range hosts {
		wg.Go(func() {
			var c rdma.Cleaned
			if err := agentclient.Call(ctx, h.Agent, rdma.OpCleanup, rdma.CleanupArgs{}, &c); err != nil {
				o.progress("cleanup %s: %v", h.Intent.Host, err)
				return
			}
			if len(c.Killed) > 0 {
				o.progress("cleanup %s: killed stray perftest pids %v", h.Intent.Host, c.Killed)
			}
		})
	}
	wg.Wait()
}
