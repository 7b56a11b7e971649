package check

import (
	"context"
	"fmt"

	"github.com/fabricctl/fabricctl/checks"
	"github.com/fabricctl/fabricctl/checks/collective"
	"github.com/fabricctl/fabricctl/checks/rdma"
	"github.com/fabricctl/fabricctl/checks/report"
	"github.com/fabricctl/fabricctl/fabric"
)

// ncclPort is the perftest TCP port of the NCCL suite's perftest rerun, off
// the sweeps' range.
const ncclPort = 18998

// runNCCL runs the NCCL suite on the hosts (collective.Run) with their
// preflight facts, the pairwise results of this run (for "NCCL is slow but
// perftest passed") and a perftest rerun with NCCL's GID index and traffic
// class through the hosts' agents.
func runNCCL(ctx context.Context, hosts []Host, facts []hostFacts, eps []rdma.Endpoint, rep *report.Report, o Options) {
	exec := o.NCCLExecutor
	if exec == nil && o.Launcher != nil {
		l, ok := o.Launcher.(NCCLLauncher)
		if !ok {
			// There are no agents to run the all-reduce through.
			for _, h := range hosts {
				rep.Add(checks.Result{ID: collective.IDRun, Target: h.Intent.Host, Status: checks.StatusSkip,
					Summary: "this launcher has no NCCL step: run fabricctl check --local --suite nccl on the node (e.g. in a job), or check over SSH"})
			}
			return
		}
		exec = l.NCCL()
	}
	if exec == nil {
		agents := collective.Agents{}
		for _, h := range hosts {
			agents[h.Intent.Host] = h.Agent
		}
		exec = agents
	}
	byName := map[string]rdma.Endpoint{}
	var chosts []collective.Host
	for i, h := range hosts {
		ch := collective.Host{Name: h.Intent.Host, Address: h.Intent.Address, Intent: h.Intent}
		if facts[i].err == nil {
			f := facts[i].Facts
			ch.Facts = &f
		}
		chosts = append(chosts, ch)
		byName[h.Intent.Host] = eps[i]
	}
	var cfg fabric.NCCL
	if o.Checks != nil && o.Checks.NCCL != nil {
		cfg = *o.Checks.NCCL
	}
	var perf []collective.PerftestRun
	for _, p := range rep.Pairs {
		if p.Value != nil && p.Unit == checks.UnitGbps {
			perf = append(perf, collective.PerftestRun{Target: p.Target(), Hosts: [2]string{p.A, p.B}, Gbps: *p.Value, Passed: p.Status == checks.StatusPass})
		}
	}
	rerun := func(ctx context.Context, a, b collective.Host, gid *int, tclass int) checks.Result {
		srv, cli := byName[a.Name], byName[b.Name]
		if srv.Problem != nil || cli.Problem != nil {
			return checks.Result{Target: a.Name + "->" + b.Name, Status: checks.StatusSkip, Summary: "no usable RDMA port on both hosts"}
		}
		if gid != nil && srv.GIDIndex != nil {
			srv.GIDIndex, cli.GIDIndex = gid, gid
		}
		t := pairwiseSweep(o).Test
		t.TClass = &tclass
		th := pairwiseSweep(o).Thresholds
		if ex := executor(o); ex != nil {
			if runs := ex.RunRound(ctx, []rdma.Job{{Server: srv, Client: cli, Test: t, TCPPort: ncclPort}}); len(runs) == 1 {
				return rdma.Judge(runs[0], th)
			}
			return checks.Result{Target: srv.Name() + "->" + cli.Name(), Status: checks.StatusError, Summary: "the launcher ran no perftest"}
		}
		return rdma.Judge(rdma.RunPair(ctx, srv, cli, t, ncclPort), th)
	}
	out, err := collective.Run(ctx, chosts, collective.Options{Config: cfg, Executor: exec, ExpectedRate: ExpectedRate(o.Checks),
		Perftest: perf, Rerun: rerun, LogDir: o.NCCLLogDir, Progress: o.progress})
	if err != nil {
		rep.Add(checks.Result{ID: collective.IDRun, Target: "fleet", Status: checks.StatusError, Summary: fmt.Sprintf("running the NCCL check: %v", err)})
		return
	}
	rep.Add(out.Results...)
}
