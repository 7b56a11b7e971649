package task

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/fabricctl/fabricctl/checks"
	"github.com/fabricctl/fabricctl/checks/collective"
	"github.com/fabricctl/fabricctl/checks/preflight"
	"github.com/fabricctl/fabricctl/checks/rdma"
	"github.com/fabricctl/fabricctl/fabric"
)

// Env is what a task needs on its node.
type Env struct {
	// Node is this node's name as the launcher knows it (SLURMD_NODENAME, the pod's NODE_NAME).
	Node string
	// Gatherer gathers preflight facts here; Agent runs perftest here.
	Gatherer *preflight.Gatherer
	Agent    *rdma.Agent
	// NCCL runs the NCCL suite's node side here.
	NCCL *collective.Node
}

// Run does this node's part of the step. It never fails: what went wrong is in the Result.
func Run(ctx context.Context, s Spec, env Env) Result {
	r := Result{Version: Version, Node: env.Node, Kind: s.Kind}
	switch s.Kind {
	case KindPreflight:
		runPreflight(ctx, s, env, &r)
	case KindRound:
		runRound(ctx, s, env, &r)
	case KindNCCLProbe, KindNCCLRun:
		runNCCL(ctx, s, env, &r)
	default:
		r.Error = fmt.Sprintf("unknown step kind %q", s.Kind)
	}
	return r
}

func runPreflight(ctx context.Context, s Spec, env Env, r *Result) {
	if env.Gatherer == nil {
		r.Error = "no preflight gatherer"
		return
	}
	for _, h := range s.Hosts {
		if h.Node != env.Node {
			continue
		}
		var peers []preflight.Peer
		for _, p := range s.Peers {
			if p.Name != h.Intent.Host {
				peers = append(peers, p)
			}
		}
		f := env.Gatherer.Gather(ctx, preflight.Args{Intent: h.Intent, Peers: peers})
		f.Host = h.Intent.Host
		r.Facts = &f
		return
	}
	r.Error = fmt.Sprintf("node %s is not in this preflight step (%d nodes)", env.Node, len(s.Hosts))
}

// runNCCL probes this node, or runs its part of the all-reduce.
func runNCCL(ctx context.Context, s Spec, env Env, r *Result) {
	if env.NCCL == nil || s.NCCL == nil {
		r.Error = "no NCCL node side"
		return
	}
	for _, n := range s.NCCL.Nodes {
		if n.Node != env.Node {
			continue
		}
		switch {
		case s.Kind == KindNCCLProbe:
			p := env.NCCL.Probe(ctx, s.NCCL.Probe)
			r.NCCLProbe = &p
		case n.Spec != nil:
			res := env.NCCL.Run(ctx, *n.Spec)
			r.NCCLRun = &res
		default:
			r.Error = fmt.Sprintf("node %s has no part in this %s step", env.Node, s.Kind)
		}
		return
	}
	r.Error = fmt.Sprintf("node %s is not in this %s step (%d nodes)", env.Node, s.Kind, len(s.NCCL.Nodes))
}

// resolve finds this node's side of a job from its own preflight facts.
func resolve(ctx context.Context, env Env, s Side) rdma.Endpoint {
	iface := s.Interface
	if iface == "" {
		iface = fabric.AllRDMANetdevs
	}
	in := fabric.HostIntent{APIVersion: fabric.APIVersion, Host: s.Host, Address: s.Address, Interfaces: []fabric.InterfaceIntent{{Name: iface}}}
	if env.Gatherer == nil {
		return rdma.EndpointOf(in, preflight.Facts{}, fmt.Errorf("no preflight gatherer to find the RDMA device of %s", iface))
	}
	return rdma.EndpointOf(in, env.Gatherer.Gather(ctx, preflight.Args{Intent: in}), nil)
}

// problemHere is the problem of the side(s) on this node that keeps the job from running.
func problemHere(j rdma.Job, srvHere, cliHere bool) *checks.Result {
	if srvHere && j.Server.Problem != nil {
		return j.Server.Problem
	}
	if cliHere && j.Client.Problem != nil {
		return j.Client.Problem
	}
	return nil
}

func runRound(ctx context.Context, s Spec, env Env, r *Result) {
	if env.Agent == nil {
		r.Error = "no perftest agent"
		return
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	add := func(sr SideResult) {
		mu.Lock()
		defer mu.Unlock()
		r.Sides = append(r.Sides, sr)
	}
	for i, j := range s.Jobs {
		srvHere, cliHere := j.Server.Node == env.Node, j.Client.Node == env.Node
		if !srvHere && !cliHere {
			continue
		}
		job := rdma.Job{Server: j.Server.Endpoint(), Client: j.Client.Endpoint(), Test: s.Test, TCPPort: j.TCPPort}
		id := fmt.Sprintf("task-%d-%d", i, j.TCPPort)
		if srvHere && j.Server.Device == "" {
			job.Server = resolve(ctx, env, j.Server)
		}
		if cliHere && j.Client.Device == "" {
			job.Client = resolve(ctx, env, j.Client)
		}
		if p := problemHere(job, srvHere, cliHere); p != nil {
			for _, side := range []struct {
				here bool
				role rdma.Role
			}{{srvHere, rdma.Server}, {cliHere, rdma.Client}} {
				if side.here {
					add(SideResult{Job: i, Role: side.role, Outcome: rdma.Outcome{ID: id + "-" + string(side.role), Role: side.role, ExitCode: -1,
						Class: p.Class, Error: fmt.Sprintf("not run: %s %s: %s", p.ID, p.Target, p.Summary)}})
				}
			}
			continue
		}
		switch {
		case srvHere && cliHere:
			wg.Go(func() {
				so, co := env.Agent.RunLoopback(ctx, job, id)
				add(SideResult{Job: i, Role: rdma.Server, Outcome: so})
				add(SideResult{Job: i, Role: rdma.Client, Outcome: co})
			})
		case srvHere:
			wg.Go(func() {
				add(SideResult{Job: i, Role: rdma.Server, Outcome: env.Agent.RunSide(ctx, job, rdma.Server, id+"-server")})
			})
		default:
			wg.Go(func() {
				add(SideResult{Job: i, Role: rdma.Client, Outcome: env.Agent.RunSide(ctx, job, rdma.Client, id+"-client")})
			})
		}
	}
	wg.Wait()
	slices.SortFunc(r.Sides, func(a, b SideResult) int {
		if a.Job != b.Job {
			return a.Job - b.Job
		}
		return strings.Compare(string(a.Role), string(b.Role))
	})
	if len(r.Sides) == 0 {
		r.Error = fmt.Sprintf("node %s has no side in this round (%d jobs)", env.Node, len(s.Jobs))
	}
}

// NodeEnvs are where a task learns its node's name: Slurm's slurmstepd sets SLURMD_NODENAME,
// the Kubernetes manifests of `fabricctl k8s render` set NODE_NAME from spec.nodeName.
var NodeEnvs = []string{"SLURMD_NODENAME", "NODE_NAME"}

// NodeName is this node's name for Env.Node: flag (--node) when set, else the first of NodeEnvs
// that getenv finds set, else hostname's answer.
func NodeName(flag string, getenv func(string) string, hostname func() (string, error)) string {
	if flag != "" {
		return flag
	}
	for _, e := range NodeEnvs {
		if v := getenv(e); v != "" {
			return v
		}
	}
	h, _ := hostname()
	return h
}
