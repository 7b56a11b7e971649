package check

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/fabricctl/fabricctl/action/fleet"
	"github.com/fabricctl/fabricctl/action/ibcheck"
	"github.com/fabricctl/fabricctl/checks"
	"github.com/fabricctl/fabricctl/checks/report"
	"github.com/fabricctl/fabricctl/fabric"
)

// IDIBVantage is the ib suite's result when it could not run at all: no
// vantage host, or one Run cannot reach.
const IDIBVantage = "ib/vantage"

// IBSuiteOptions configure the ib suite of Run: the InfiniBand fabric read from
// one vantage host (in InfiniBand one node reads the whole subnet) and
// judged against the fabric's declared cabling, subnet managers and
// partitions (action/ibcheck, checks/ibfabric).
type IBSuiteOptions struct {
	// Fabric is the fabric judged (RunFabric sets it).
	Fabric *fabric.Fabric
	// Vantage names the host whose agent runs the diagnostics; RunFabric
	// fills it from --vantage, spec.infiniband.vantage or the first host
	// of the IB cabling (fabric.Fabric.IBVantage).
	Vantage string
	// Host is the vantage host and its agent; nil: the host named Vantage
	// among Run's hosts.
	Host *Host
	// Options are ibcheck's; a nil Runner is an ibcheck.AgentRunner on the
	// vantage host's agent, and an empty Vantage its name.
	Options ibcheck.Options
}

// ibRun is the ib suite of one Run.
type ibRun struct {
	o   ibcheck.Options
	f   *fabric.Fabric
	err error // why the suite cannot run
}

// startIB prepares the ib suite when o asks for it (nil otherwise) and,
// when other suites run beside it, reads the error counters before them
// (ibcheck.Baseline): the suite then judges what grew while they ran, as
// check --local does.
func startIB(ctx context.Context, hosts []Host, o Options) *ibRun {
	if !slices.Contains(o.suites(), report.SuiteIB) {
		return nil
	}
	ib := &ibRun{o: o.IBSuite.Options, f: o.IBSuite.Fabric}
	h := o.IBSuite.Host
	if h == nil {
		for i := range hosts {
			if hosts[i].Intent.Host == o.IBSuite.Vantage {
				h = &hosts[i]
				break
			}
		}
	}
	switch {
	case ib.f == nil:
		ib.err = errors.New("no fabric to judge the InfiniBand fabric against")
	case ib.o.Runner != nil:
	case o.Launcher != nil:
		ib.err = errors.New("the ib suite runs through the vantage host's agent (--launcher ssh), not under a workload manager")
	case o.IBSuite.Vantage == "" && h == nil:
		ib.err = errors.New("no vantage host: set spec.infiniband.vantage or --vantage, or cable a host in spec.infiniband.links")
	case h == nil || h.Agent == nil:
		ib.err = fmt.Errorf("vantage %s is not among the hosts checked", o.IBSuite.Vantage)
	default:
		ib.o.Runner = ibcheck.AgentRunner{Agent: h.Agent, Host: h.Intent.Host}
		if ib.o.Vantage == "" {
			ib.o.Vantage = h.Intent.Host
		}
	}
	if ib.o.Progress == nil {
		ib.o.Progress = o.Progress
	}
	if ib.err == nil && !ibOnly(o) {
		ib.o = ib.o.WithBaseline(ctx, o.progress)
	}
	return ib
}

// finish runs the ib suite and adds its results, the declared IB topology
// and its cabling findings to rep.
func (ib *ibRun) finish(ctx context.Context, rep *report.Report) {
	if ib == nil || ctx.Err() != nil {
		return
	}
	target := ib.o.Vantage
	if target == "" {
		target = "fabric"
	}
	if ib.err != nil {
		rep.Add(checks.ErrorResult(IDIBVantage, target, "", fmt.Errorf("running the ib suite: %w", ib.err)))
		return
	}
	out, err := ibcheck.Run(ctx, ib.f, ib.o)
	if err != nil {
		rep.Add(checks.ErrorResult(IDIBVantage, target, "", fmt.Errorf("running the ib suite: %w", err)))
		return
	}
	rep.Add(out.Results...)
	if rep.Topology == nil {
		rep.Topology, rep.Cabling = out.Topology, out.Cabling
	}
}

// ibOnly says whether o runs the ib suite alone: no host facts are then
// gathered, and nothing is left on the hosts to clean up.
func ibOnly(o Options) bool {
	return slices.Equal(o.suites(), []report.Suite{report.SuiteIB})
}

// ibVantage sets o.IBSuite for RunFabric: the fabric, the vantage's name
// (o.IBSuite.Vantage, else spec.infiniband.vantage, else the first cabled
// host) and, when --target left it out of hosts, the vantage's own agent
// over SSH (closed by the returned func).
func ibVantage(f *fabric.Fabric, hosts []Host, reach fleet.Options, o Options) (Options, func(), error) {
	if !slices.Contains(o.suites(), report.SuiteIB) {
		return o, func() {}, nil
	}
	o.IBSuite.Fabric = f
	if o.IBSuite.Vantage == "" {
		o.IBSuite.Vantage = f.IBVantage()
	}
	if o.IBSuite.Vantage == "" || o.IBSuite.Host != nil || o.IBSuite.Options.Runner != nil {
		return o, func() {}, nil
	}
	if !slices.ContainsFunc(f.Spec.Hosts, func(h fabric.Host) bool { return h.Name == o.IBSuite.Vantage }) {
		return o, nil, fmt.Errorf("--vantage %s: no such host in %s", o.IBSuite.Vantage, f.Source.File)
	}
	if slices.ContainsFunc(hosts, func(h Host) bool { return h.Intent.Host == o.IBSuite.Vantage }) {
		return o, func() {}, nil
	}
	reach.Only = []string{o.IBSuite.Vantage}
	fl, closeAll := fleet.Hosts(f, reach)
	if len(fl) == 1 {
		o.IBSuite.Host = &Host{Intent: fl[0].Intent, Agent: fl[0].Agent}
	}
	return o, closeAll, nil
}
