package collective

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/fabricctl/fabricctl/agent/agentclient"
)

// Executor runs the node side on many hosts at once: the probe, then every
// host's part of one job together (torchrun's rendezvous waits until every
// node has joined). It is the launcher seam: Agents reaches each host's agent
// over SSH, InProcess is the local host (check --local), and a workload
// manager's launcher (Slurm's srun running `fabricctl task` on the nodes)
// implements the same two calls with Node on the far side.
//
// Both calls return one entry per host or spec, in order; errs[i] is set when
// host i could not be asked at all (unreachable agent), never for what the
// host reports (a missing GPU is in the Probe, a failed job in the NodeResult).
type Executor interface {
	Probe(ctx context.Context, hosts []string, args ProbeArgs) (probes []Probe, errs []error)
	Run(ctx context.Context, specs []Spec) (results []NodeResult, errs []error)
}

// Agents runs the node side through each host's `fabricctl agent` (OpProbe,
// OpRun). Safe for concurrent use.
type Agents map[string]agentclient.Agent

// Probe asks every host's agent at once.
func (a Agents) Probe(ctx context.Context, hosts []string, args ProbeArgs) ([]Probe, []error) {
	probes, errs := make([]Probe, len(hosts)), make([]error, len(hosts))
	var wg sync.WaitGroup
	for i, h := range hosts {
		wg.Go(func() {
			ag, ok := a[h]
			if !ok || ag == nil {
				errs[i] = fmt.Errorf("probing %s: no agent for this host", h)
				return
			}
			cctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
			defer cancel()
			if err := agentclient.Call(cctx, ag, OpProbe, args, &probes[i]); err != nil {
				errs[i] = fmt.Errorf("probing %s for the NCCL check: %w", h, err)
			}
		})
	}
	wg.Wait()
	return probes, errs
}

// Run starts every spec's part at once and waits for all of them.
func (a Agents) Run(ctx context.Context, specs []Spec) ([]NodeResult, []error) {
	results, errs := make([]NodeResult, len(specs)), make([]error, len(specs))
	var wg sync.WaitGroup
	for i, s := range specs {
		wg.Go(func() {
			ag, ok := a[s.Host]
			if !ok || ag == nil {
				errs[i] = fmt.Errorf("running the all-reduce on %s: no agent for this host", s.Host)
				return
			}
			// The node kills its job at s.Timeout; the call gets a minute more.
			cctx, cancel := context.WithTimeout(ctx, s.Timeout+time.Minute)
			defer cancel()
			if err := agentclient.Call(cctx, ag, OpRun, s, &results[i]); err != nil {
				errs[i] = fmt.Errorf("running the all-reduce on %s: %w", s.Host, err)
			}
		})
	}
	wg.Wait()
	return results, errs
}

// InProcess runs the node side in this process, for every host name given:
// the local host of `fabricctl check --local`. Safe for concurrent use.
type InProcess struct{ Node *Node }

func (l InProcess) node() *Node {
	if l.Node == nil {
		return &Node{}
	}
	return l.Node
}

// Probe probes this host once per name.
func (l InProcess) Probe(ctx context.Context, hosts []string, args ProbeArgs) ([]Probe, []error) {
	out := make([]Probe, len(hosts))
	for i := range hosts {
		out[i] = l.node().Probe(ctx, args)
	}
	return out, make([]error, len(hosts))
}

// Run runs every spec here, at once.
func (l InProcess) Run(ctx context.Context, specs []Spec) ([]NodeResult, []error) {
	out := make([]NodeResult, len(specs))
	var wg sync.WaitGroup
	for i, s := range specs {
		wg.Go(func() { out[i] = l.node().Run(ctx, s) })
	}
	wg.Wait()
	return out, make([]error, len(specs))
}
