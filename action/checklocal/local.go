package checklocal

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/fabricctl/fabricctl/action/check"
	"github.com/fabricctl/fabricctl/action/ibcheck"
	"github.com/fabricctl/fabricctl/checks"
	"github.com/fabricctl/fabricctl/checks/collective"
	"github.com/fabricctl/fabricctl/checks/preflight"
	"github.com/fabricctl/fabricctl/checks/rdma"
	"github.com/fabricctl/fabricctl/checks/report"
	"github.com/fabricctl/fabricctl/fabric"
)

// ErrSuite: a suite this host cannot run on itself.
var ErrSuite = errors.New("suite not available for --local")

// Suites lists the suites Run can run, in order.
var Suites = []report.Suite{report.SuitePreflight, report.SuiteLoopback, report.SuiteNCCL, report.SuiteIB}

// Options say what to check.
type Options struct {
	// Suites to run (default: preflight).
	Suites []report.Suite
	// Intent is the host's desired state; zero: every RDMA netdev of the
	// host, named after its hostname.
	Intent fabric.HostIntent
	// Peers are the other hosts, whose names and addresses must resolve here.
	Peers []preflight.Peer
	// ExpectedRate is the port rate every RoCE port must show, Gb/s (0 = any).
	ExpectedRate float64
	// Gatherer gathers the facts (its Open opens this host's backends).
	Gatherer *preflight.Gatherer
	// Name names the report (default "local").
	Name string
	// Agent runs the loopback suite's perftest (both sides on this host); Loopback is the test
	// (spec.checks.loopback; check.LoopbackTest) and LoopbackThresholds its floors.
	Agent              *rdma.Agent
	Loopback           rdma.Test
	LoopbackThresholds rdma.Thresholds
	// NCCL configures the NCCL suite (the fabric's spec.checks.nccl), NCCLNode
	// runs it on this host (a zero Node when nil), NCCLLogDir keeps its logs.
	NCCL       fabric.NCCL
	NCCLNode   *collective.Node
	NCCLLogDir string
	// Progress, when set, receives one line per step of the NCCL suite.
	Progress func(format string, args ...any)
	// Fabric is the fabric the ib suite judges the InfiniBand fabric
	// against (ForFabric or ForIB sets it); IB says how its diagnostics
	// run here (action/ibcheck).
	Fabric *fabric.Fabric
	IB     ibcheck.Options
}

// ForIB sets what the ib suite alone needs: the fabric. Unlike ForFabric
// it does not need this machine to be one of the fabric's hosts: any node
// of the subnet is a vantage point.
func (o *Options) ForIB(f *fabric.Fabric) {
	o.Fabric = f
	o.Name = f.Metadata.Name
}

// DefaultIntent is what a host without a fabric checks: every netdev that
// has an RDMA device.
func DefaultIntent() fabric.HostIntent {
	name, _ := os.Hostname()
	return fabric.HostIntent{APIVersion: fabric.APIVersion, Host: name,
		Interfaces: []fabric.InterfaceIntent{{Name: fabric.AllRDMANetdevs}}}
}

// Run checks the host it runs on and returns the report.
func Run(ctx context.Context, o Options) (*report.Report, error) {
	suites := o.Suites
	if len(suites) == 0 {
		suites = []report.Suite{report.SuitePreflight}
	}
	for _, s := range suites {
		if !slices.Contains(Suites, s) {
			var valid []string
			for _, v := range Suites {
				valid = append(valid, string(v))
			}
			return nil, fmt.Errorf("running %s on this host: %w (available: %s)", s, ErrSuite, strings.Join(valid, ", "))
		}
	}
	if slices.Equal(suites, []report.Suite{report.SuiteIB}) {
		return runIB(ctx, o)
	}
	if o.Gatherer == nil {
		return nil, errors.New("running local checks: no gatherer")
	}
	in := o.Intent
	noFabric := in.Host == "" && len(in.Interfaces) == 0
	if noFabric {
		in = DefaultIntent()
	}
	name := o.Name
	if name == "" {
		name = "local"
	}
	rep := report.New(name, time.Now(), suites...)
	if slices.Contains(suites, report.SuiteIB) && o.Fabric != nil {
		// the error counters before the other suites: the ib suite then
		// judges what grew while they ran
		o.IB = o.IB.WithBaseline(ctx, o.Progress)
	}
	facts := o.Gatherer.Gather(ctx, preflight.Args{Intent: in, Peers: o.Peers})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if slices.Contains(suites, report.SuiteNCCL) {
		// One host, one rank per GPU; its facts judge NCCL's environment.
		h := collective.Host{Name: in.Host, Intent: in, Facts: &facts}
		out, err := collective.Run(ctx, []collective.Host{h}, collective.Options{Config: o.NCCL, Executor: collective.InProcess{Node: o.NCCLNode},
			ExpectedRate: o.ExpectedRate, LogDir: o.NCCLLogDir, Progress: o.Progress})
		if err != nil {
			return nil, err
		}
		rep.Add(out.Results...)
	}
	if !slices.Contains(suites, report.SuitePreflight) {
		rep.Finished = time.Now()
		return rep, nil
	}
	results := preflight.Evaluate(facts, preflight.Options{ExpectedRate: o.ExpectedRate})
	if noFabric {
		// Without a fabric nothing says what the lossless settings should be.
		for i, r := range results {
			if r.ID == preflight.IDLossless || r.ID == preflight.IDMTU {
				results[i].Status, results[i].Class, results[i].Evidence = checks.StatusSkip, "", nil
				results[i].Summary = "no fabric given (-f FABRIC --host NAME): the desired settings are unknown"
			}
		}
	}
	if !slices.Contains(suites, report.SuiteLoopback) {
		// without the loopback suite nothing here runs perftest: its absence is worth a word,
		// not an undecided check (the node-problem-detector container has no perftest)
		for i, r := range results {
			if r.ID == preflight.IDPerftest && r.Status == checks.StatusError {
				results[i].Status = checks.StatusWarn
				results[i].Summary += " (needed by the loopback and pairwise suites, not run here)"
			}
		}
	}
	rep.Add(results...)
	if slices.Contains(suites, report.SuiteLoopback) {
		rep.Add(loopback(ctx, in, facts, o)...)
	}
	if slices.Contains(suites, report.SuiteIB) {
		if err := addIB(ctx, rep, o); err != nil {
			return nil, err
		}
	}
	rep.Finished = time.Now()
	return rep, nil
}

// runIB is the ib suite alone: no host facts are gathered.
func runIB(ctx context.Context, o Options) (*report.Report, error) {
	rep := report.New(cmp.Or(o.Name, "local"), time.Now(), report.SuiteIB)
	if err := addIB(ctx, rep, o); err != nil {
		return nil, err
	}
	rep.Finished = time.Now()
	return rep, nil
}

// addIB runs the InfiniBand fabric checks from here and adds their results,
// the declared IB topology and its cabling findings to rep.
func addIB(ctx context.Context, rep *report.Report, o Options) error {
	if o.Fabric == nil {
		return fmt.Errorf("running the ib suite: %w: it judges the fabric against a fabric file (-f FABRIC)", ErrSuite)
	}
	if o.IB.Progress == nil {
		o.IB.Progress = o.Progress
	}
	out, err := ibcheck.Run(ctx, o.Fabric, o.IB)
	if err != nil {
		return fmt.Errorf("running the ib suite: %w", err)
	}
	rep.Add(out.Results...)
	if rep.Topology == nil {
		rep.Topology, rep.Cabling = out.Topology, out.Cabling
	}
	return nil
}

// loopback runs the loopback test on the host's first usable port, both sides here; a host
// without one fails it with preflight's reason.
func loopback(ctx context.Context, in fabric.HostIntent, facts preflight.Facts, o Options) []checks.Result {
	e := rdma.EndpointOf(in, facts, nil)
	t := o.Loopback
	if t.Test.Verb == "" {
		t, _ = check.LoopbackTest(nil)
	}
	j := rdma.Job{Server: e, Client: e, Test: t, TCPPort: rdma.DefaultBasePort}
	if p := j.Blocked(); p != nil {
		target := in.Host
		if e.Device != "" {
			target = e.Name()
		}
		return []checks.Result{{ID: "loopback/" + t.Test.String(), Target: target, Status: checks.StatusFail, Class: p.Class,
			Summary: fmt.Sprintf("not run: %s: %s", p.ID, p.Summary)}}
	}
	run := rdma.PairRun{Server: e, Client: e, Test: t, TCPPort: j.TCPPort, Attempts: 1}
	if o.Agent == nil {
		return []checks.Result{checks.ErrorResult("loopback/"+t.Test.String(), in.Host, "", errors.New("no perftest agent"))}
	}
	t0 := time.Now()
	for attempt := 1; attempt <= 2; attempt++ {
		so, co := o.Agent.RunLoopback(ctx, j, fmt.Sprintf("local-loopback-%d", attempt))
		run.ServerOut, run.ClientOut, run.Attempts = &so, &co, attempt
		if co.ID == "" {
			run.ClientOut = nil
		}
		if !run.RetryCalibration() || ctx.Err() != nil {
			break
		}
	}
	run.Wall = time.Since(t0)
	return []checks.Result{rdma.Judge(run, o.LoopbackThresholds)}
}
