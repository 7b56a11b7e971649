package check

import (
	"context"
	"fmt"
	"net/netip"
	"sync"
	"time"

	"github.com/fabricctl/fabricctl/agent/agentclient"
	"github.com/fabricctl/fabricctl/checks/localize"
	"github.com/fabricctl/fabricctl/checks/preflight"
	"github.com/fabricctl/fabricctl/checks/rdma"
	"github.com/fabricctl/fabricctl/checks/report"
	"github.com/fabricctl/fabricctl/fabric"
)

// pinnedFlowLabel is the sweep's rdma.Test.FlowLabel for the fabric's
// spec.checks.pairwise.flowLabel: rdma.FlowLabelAuto for auto, else none.
func pinnedFlowLabel(c *fabric.Checks) int {
	if c != nil && c.Pairwise != nil && c.Pairwise.FlowLabel == "auto" {
		return rdma.FlowLabelAuto
	}
	return 0
}

// PinPairs writes each pair's flow label and the UDP source port it
// implies (rdma.PairRun.FlowLabel) into the report's pairs, matched by
// target: the JSON then says "gpu-02 → gpu-01: flowLabel 6699,
// udpSourcePort 55851".
func PinPairs(pairs []report.Pair, runs []rdma.PairRun) {
	byTarget := map[string]rdma.PairRun{}
	for _, r := range runs {
		byTarget[r.Target()] = r
	}
	for i, p := range pairs {
		r, ok := byTarget[p.Target()]
		if !ok {
			continue
		}
		if fl, sport, ok := r.FlowLabel(); ok {
			pairs[i].FlowLabel, pairs[i].UDPSourcePort = fl, sport
		}
	}
}

// RoCEEnd is where a test endpoint's RoCE v2 traffic leaves: the IPv4
// address of its RoCE v2 GID and its netdev.
type RoCEEnd struct {
	Addr   netip.Addr
	Netdev string
}

// RoCEEndOf reads a host's preflight facts for the RDMA device's RoCE v2
// IPv4 GID; ok is false on InfiniBand or without that GID.
func RoCEEndOf(f preflight.Facts, device string) (RoCEEnd, bool) {
	if f.Observed == nil {
		return RoCEEnd{}, false
	}
	for _, in := range f.Observed.Interfaces {
		r := in.RDMA
		if r == nil || r.Device != device || r.RoCEv2IPv4GIDIndex < 0 {
			continue
		}
		for _, g := range r.GIDs {
			if g.Index == r.RoCEv2IPv4GIDIndex {
				if a, ok := g.IPv4(); ok {
					return RoCEEnd{Addr: a, Netdev: in.Name}, true
				}
			}
		}
	}
	return RoCEEnd{}, false
}

// traceParallel bounds the traces at once; traceBound each call (the
// op's own bound for 8 hops twice, and room for SSH).
const (
	traceParallel = 16
	traceBound    = 2*(rdma.DefaultTraceHops*time.Second+5*time.Second) + 30*time.Second
)

// LearnPaths traces both directions of every run that carried a flow
// label (rdma.OpTracePath with the label's UDP source port, twice, from
// the client to the server's RoCE address and back), and reads them
// against the switches' addresses (rdma.ReadTraced). ends names each
// endpoint's RoCE address and netdev by rdma.Endpoint.Name; a run whose
// ends are not there is left out. A trace that fails is a direction not
// known, saying why.
func LearnPaths(ctx context.Context, runs []rdma.PairRun, ends map[string]RoCEEnd, owners map[netip.Addr]string) []PairPath {
	type job struct {
		run      rdma.PairRun
		cli, srv RoCEEnd
		sport    int
	}
	var jobs []job
	for _, r := range runs {
		_, sport, ok := r.FlowLabel()
		cli, okC := ends[r.Client.Name()]
		srv, okS := ends[r.Server.Name()]
		if ok && okC && okS && !r.Loopback() {
			jobs = append(jobs, job{r, cli, srv, int(sport)})
		}
	}
	out := make([]PairPath, len(jobs))
	sem := make(chan struct{}, traceParallel)
	var wg sync.WaitGroup
	trace := func(a agentclient.Agent, from, to RoCEEnd, sport int) rdma.LearnedPath {
		if a == nil {
			return rdma.LearnedPath{Why: "no agent to trace from", Deterministic: true}
		}
		sem <- struct{}{}
		defer func() { <-sem }()
		cctx, cancel := context.WithTimeout(ctx, traceBound)
		defer cancel()
		var t rdma.Traced
		args := rdma.TraceArgs{Dest: to.Addr.String(), Source: from.Addr.String(), SourcePort: sport, Repeat: 2}
		if err := agentclient.Call(cctx, a, rdma.OpTracePath, args, &t); err != nil {
			return rdma.LearnedPath{Why: fmt.Sprintf("tracing: %v", err), Deterministic: true}
		}
		return rdma.ReadTraced(t, owners)
	}
	for i, j := range jobs {
		fl, _, _ := j.run.FlowLabel()
		out[i] = PairPath{Client: j.run.Client.Host, Server: j.run.Server.Host, ClientPort: j.cli.Netdev, ServerPort: j.srv.Netdev, FlowLabel: fl}
		wg.Go(func() { out[i].There = trace(j.run.Client.Agent, j.cli, j.srv, j.sport) })
		wg.Go(func() { out[i].Back = trace(j.run.Server.Agent, j.srv, j.cli, j.sport) })
	}
	wg.Wait()
	return out
}

// pinnedPaths is Run's hook for spec.checks.pairwise.flowLabel: auto,
// after the pairwise sweep: it writes every pair's flow label and source
// port into the report, then, on an Ethernet fabric with declared cabling
// (routes nil: no InfiniBand tables), learns the runs' paths (LearnPaths)
// and returns them as the localiser's routes (PathRoutes), saying in the
// progress how many directions were learned and why the others were not.
// Without auto it returns routes untouched.
func (o Options) pinnedPaths(ctx context.Context, rep *report.Report, hosts []Host, facts []hostFacts, runs []rdma.PairRun, routes *localize.Routes) *localize.Routes {
	if pinnedFlowLabel(o.Checks) != rdma.FlowLabelAuto {
		return routes
	}
	PinPairs(rep.Pairs, runs)
	if routes != nil || !cabled(o.Topology, hosts) || ctx.Err() != nil {
		return routes
	}
	ends := map[string]RoCEEnd{}
	for i, h := range hosts {
		for _, r := range runs {
			for _, e := range []rdma.Endpoint{r.Client, r.Server} {
				if e.Host == h.Intent.Host {
					if end, ok := RoCEEndOf(facts[i].Facts, e.Device); ok {
						ends[e.Name()] = end
					}
				}
			}
		}
	}
	learned := LearnPaths(ctx, runs, ends, o.SwitchAddrs)
	learnedRoutes, notes := PathRoutes(o.Topology, learned)
	traced := 0
	if learnedRoutes != nil {
		_, traced = learnedRoutes.Len()
	}
	o.progress("pinned paths: %d of %d directions learned", traced, 2*len(learned))
	for i, n := range notes {
		if i == 5 {
			o.progress("pinned paths: … and %d more", len(notes)-5)
			break
		}
		o.progress("pinned paths: %s", n)
	}
	return learnedRoutes
}
