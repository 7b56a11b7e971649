package main

import (
	"context"
	"fmt"
	"os"
	"slices"
	"sync"

	"github.com/spf13/cobra"

	"github.com/fabricctl/fabricctl/action/check"
	"github.com/fabricctl/fabricctl/action/launch/slurm"
	"github.com/fabricctl/fabricctl/checks/report"
	"github.com/fabricctl/fabricctl/fabric"
)

// launcherFlags are check's flags for running through a workload manager.
type launcherFlags struct {
	launcher    string
	partition   string
	reservation string
	job         string
	nodeBin     string
	drain       bool
}

func (lf *launcherFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&lf.launcher, "launcher", "ssh", "how the hosts are reached: ssh (the agent over SSH) or slurm (srun steps)")
	fl.StringVar(&lf.partition, "partition", "", "with --launcher slurm: the partition (srun --partition)")
	fl.StringVar(&lf.reservation, "reservation", "", "with --launcher slurm: the reservation (srun --reservation)")
	fl.StringVar(&lf.job, "slurm-job", os.Getenv("SLURM_JOB_ID"), "with --launcher slurm: run the steps inside this allocation (default $SLURM_JOB_ID); without one every step is an exclusive job")
	fl.StringVar(&lf.nodeBin, "node-bin", "fabricctl", "with --launcher slurm: the fabricctl binary on the nodes")
	fl.BoolVar(&lf.drain, "drain", false, "with --launcher slurm: drain the nodes of failed hosts (reason \"fabricctl: …\") and resume those fabricctl drained that pass now; with --local -o nhc: the same for this host's own node ($SLURMD_NODENAME)")
}

// runCheckSlurm is `fabricctl check --launcher slurm`: the runner with the Slurm launcher, then
// the drains.
func runCheckSlurm(cmd *cobra.Command, g *globals, cf checkFlags, lf launcherFlags) error {
	write, ok := checkWriters[g.output]
	if !ok {
		return fmt.Errorf("output %q is not one of table, json, junit, html", g.output)
	}
	suites, err := parseSuites(cf.suites)
	if err != nil {
		return err
	}
	f, err := g.loadFabric(cmd.Context(), cf.file)
	if err != nil {
		return err
	}
	var mu sync.Mutex
	logf := func(format string, a ...any) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(g.stderr, "fabricctl: "+format+"\n", a...)
	}
	l := &slurm.Launcher{Run: slurm.Exec{}, Bin: lf.nodeBin, Partition: lf.partition, Reservation: lf.reservation,
		Allocation: lf.job, Log: logf}
	opts := check.Options{Suites: suites, Checks: f.Spec.Checks,
		RelativeFloor: cf.relFloor, Parallel: g.parallel, Launcher: l, Progress: logf, NCCLLogDir: cf.ncclLogs}
	// The hosts slurm.Sweep selects: the fabric's, narrowed by --target.
	var selected []fabric.HostIntent
	for _, h := range f.Resolve().Hosts {
		if len(cf.only) == 0 || slices.Contains(cf.only, h.Host) {
			selected = append(selected, h)
		}
	}
	ctx, cancel := checkContext(cmd, g, check.EstimateRun(selected, opts))
	defer cancel()
	rep, err := slurm.Sweep(ctx, f, fabricSource(cf.file), l, cf.only, lf.drain, func(ctx context.Context, hs []fabric.HostIntent) (*report.Report, error) {
		hosts := make([]check.Host, len(hs))
		for i, h := range hs {
			hosts[i] = check.Host{Intent: h}
		}
		return check.Run(ctx, f.Metadata.Name, hosts, opts)
	})
	if err != nil {
		return err
	}
	return emitReport(g, cf, rep, write)
}
