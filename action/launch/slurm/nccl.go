package slurm

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/fabricctl/fabricctl/action/launch/task"
	"github.com/fabricctl/fabricctl/checks/collective"
)

// NCCL is the Launcher as the NCCL suite's executor (check --launcher slurm --suite nccl): the
// probe as one step on every node, the all-reduce as one step of one task per node. Safe for
// use by one sweep at a time, as the Launcher.
func (l *Launcher) NCCL() collective.Executor { return ncclSteps{l} }

// ncclSteps runs the NCCL suite's node side as srun steps.
type ncclSteps struct{ l *Launcher }

// Probe asks every host's node what it can run for the NCCL suite (GPUs, PyTorch, nccl-tests),
// in one srun step on the nodes Slurm will run it on; a host on any other node gets the reason
// as its error. A node without GPUs answers with a probe that says so (the suite's skip).
func (e ncclSteps) Probe(ctx context.Context, hosts []string, args collective.ProbeArgs) ([]collective.Probe, []error) {
	l := e.l
	probes := make([]collective.Probe, len(hosts))
	at, errs := l.usable(ctx, hosts)
	for i, err := range errs {
		if err != nil {
			errs[i] = fmt.Errorf("probing %s for the NCCL check: %w", hosts[i], err)
		}
	}
	run := make([]string, len(at))
	for k, i := range at {
		run[k] = hosts[i]
	}
	if len(run) == 0 {
		return probes, errs
	}
	c, stepErr := l.step(ctx, "nccl-probe", task.NCCLProbeSpec(run, l.node, args), l.preflightBound())
	got, gotErrs := task.NCCLProbes(run, l.node, c, stepErr)
	for k, i := range at {
		probes[i], errs[i] = got[k], gotErrs[k]
	}
	return probes, errs
}

// Run runs the all-reduce as one srun step, one task per node: each task runs its host's part
// (torchrun with --nproc-per-node of its GPUs, or all_reduce_perf -g on a single node) and
// returns every rank's NCCL log. A torchrun job over several nodes meets through torchrun's c10d
// rendezvous at the first node of the job, by its Slurm node name (the standard multi-node
// recipe), so every node gets the same argv: slurmd runs only where the node name is the host
// name (or its NodeHostname), and c10d hosts the store on the node whose host name is the
// endpoint's, where an IP address is recognised only if the host name resolves to it. A node
// whose task died or never started gets an error naming the node.
func (e ncclSteps) Run(ctx context.Context, specs []collective.Spec) ([]collective.NodeResult, []error) {
	l := e.l
	specs = slices.Clone(specs)
	bound := time.Duration(0)
	first := ""
	for _, s := range specs {
		if s.NodeRank == 0 && first == "" {
			first = l.node(s.Host)
		}
	}
	for i, s := range specs {
		if s.Tool == collective.ToolTorch && s.NNodes > 1 {
			specs[i].Rendezvous = collective.RendezvousC10d
			if first != "" {
				specs[i].MasterAddr = first
			}
		}
		bound = max(bound, s.Timeout)
	}
	c, err := l.step(ctx, "nccl-run", task.NCCLRunSpec(specs, l.node), bound)
	return task.NCCLResults(specs, l.node, c, err)
}

// CancelStep cancels the running step named name (the --job-name of SrunArgs) with scancel: its
// steps in the allocation (JOBID.STEPID from squeue --steps), or the job of that name without
// one. srun forwards the SIGTERM of a cancelled context to its tasks, but a step whose srun is
// killed before it could may keep its nodes busy: scancel ends it on Slurm's side.
func (l *Launcher) CancelStep(ctx context.Context, name string) error {
	jobName := "fabricctl-" + name
	args := []string{"--noheader", "--format=%i %j", "--name=" + jobName}
	if l.Allocation != "" {
		args = append(args, "--steps", "--jobs="+l.Allocation)
	} else {
		args = append(args, "--me")
	}
	var out bytes.Buffer
	if err := l.Run.Run(ctx, "squeue", args, nil, &out, nil); err != nil {
		return fmt.Errorf("cancelling step %s: %w", name, err)
	}
	var ids []string
	for _, line := range strings.Split(out.String(), "\n") {
		f := strings.Fields(line)
		if len(f) == 2 && f[1] == jobName && !strings.HasPrefix(f[0], "-") {
			ids = append(ids, f[0])
		}
	}
	if len(ids) == 0 {
		return nil // it ended by itself
	}
	if err := l.Run.Run(ctx, "scancel", ids, nil, io.Discard, nil); err != nil {
		return fmt.Errorf("cancelling step %s (%s): %w", name, strings.Join(ids, " "), err)
	}
	l.log("step %s: cancelled (scancel %s)", name, strings.Join(ids, " "))
	return nil
}

// cancelled runs CancelStep for a step whose context ended (cancelled, or past the step's
// bound), with a bound of its own.
func (l *Launcher) cancelled(ctx context.Context, name string) {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	if err := l.CancelStep(cctx, name); err != nil {
		l.log("%v", err)
	}
}
