package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/spf13/cobra"

	"github.com/fabricctl/fabricctl/action/checklocal"
	"github.com/fabricctl/fabricctl/action/checklocal/nhc"
	"github.com/fabricctl/fabricctl/action/launch/k8s"
	"github.com/fabricctl/fabricctl/action/launch/slurm"
	"github.com/fabricctl/fabricctl/checks/report"
	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/hostcfg"
)

// localCheckFlags are check's flags for --local.
type localCheckFlags struct {
	local  bool
	host   string
	budget time.Duration
}

func (lf *localCheckFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.BoolVar(&lf.local, "local", false, "check this host in-process, without SSH (preflight, loopback; with -f FABRIC [--host NAME] against the fabric)")
	fl.StringVar(&lf.host, "host", "", "with --local -f FABRIC: the fabric host this machine is (default: the host whose Slurm node is $SLURMD_NODENAME, whose Kubernetes node is $NODE_NAME, or named as this machine)")
	fl.DurationVar(&lf.budget, "budget", nhc.DefaultBudget, "with --local -o nhc: answer within this (Slurm kills a health check after 60 s)")
}

// schedulers name the fabric hosts as workload managers name their nodes (checklocal.FindHost).
var schedulers = []checklocal.Scheduler{
	{Env: "SLURMD_NODENAME", Node: func(h fabric.HostIntent) string { return slurm.NodeOf(h.Host, h.Labels) }},
	{Env: "NODE_NAME", Node: k8s.NodeOf},
}

// localOptions turns the flags into the options of package local.
func localOptions(cmd *cobra.Command, g *globals, cf checkFlags, lf localCheckFlags) (checklocal.Options, fabric.HostIntent, error) {
	var lh fabric.HostIntent
	var suites []report.Suite
	if cmd.Flags().Changed("suite") {
		var err error
		if suites, err = parseLocalSuites(cf.suites); err != nil {
			return checklocal.Options{}, lh, err
		}
	}
	ibOnly := slices.Equal(suites, []report.Suite{report.SuiteIB})
	o := checklocal.Options{Suites: suites, NCCLLogDir: cf.ncclLogs, Progress: func(format string, a ...any) { fmt.Fprintf(g.stderr, "fabricctl: "+format+"\n", a...) }}
	if cf.file != "" {
		f, err := g.loadFabric(cmd.Context(), cf.file)
		if err != nil {
			return o, lh, err
		}
		if ibOnly && lf.host == "" {
			// any node of the subnet is a vantage point: this machine
			// need not be one of the fabric's hosts
			o.ForIB(f)
		} else {
			if lh, err = checklocal.FindHost(f, fabricSource(cf.file), lf.host, schedulers); err != nil {
				return o, lh, err
			}
			o.ForFabric(f, lh)
		}
	} else if lf.host != "" {
		return o, lh, errors.New("--host NAME needs -f FABRIC")
	}
	hf := hostFlags{sysRoot: hostcfg.DefaultSysRoot, configRoot: hostcfg.DefaultConfigRoot, debugRoot: hostcfg.DefaultDebugRoot, rdmamap: true}
	o.Gatherer, o.Agent = hf.checkers(g)
	return o, lh, nil
}

// parseLocalSuites is parseSuites with the ib suite, if asked for, last:
// its counters are read again after the other suites ran.
func parseLocalSuites(names []string) ([]report.Suite, error) {
	out, err := parseSuites(names)
	if err != nil {
		return nil, err
	}
	if i := slices.Index(out, report.SuiteIB); i >= 0 {
		out = append(slices.Delete(out, i, i+1), report.SuiteIB)
	}
	return out, nil
}

// runCheckLocal is check's RunE branch for --local.
func runCheckLocal(cmd *cobra.Command, g *globals, cf checkFlags, lf localCheckFlags, lnf launcherFlags) error {
	if g.output == "nhc" {
		return runCheckNHC(cmd, g, cf, lf, lnf)
	}
	write, ok := checkWriters[g.output]
	if !ok {
		return fmt.Errorf("output %q is not one of table, json, junit, html (nhc with --local)", g.output)
	}
	if cf.fromDir != "" {
		return fmt.Errorf("--local and --from-dir exclude each other")
	}
	if lnf.drain {
		return errors.New("--drain with --local needs -o nhc")
	}
	o, _, err := localOptions(cmd, g, cf, lf)
	if err != nil {
		return err
	}
	ctx, cancel := commandContext(cmd, g)
	defer cancel()
	rep, err := checklocal.Run(ctx, o)
	if err != nil {
		return err
	}
	return emitReport(g, cf, rep, write)
}

// runCheckNHC is `fabricctl check --local -o nhc`: nothing on stdout when the host is healthy,
// else one "ERROR: fabricctl: …" line; exit 0 healthy, 1 a check failed, 2 no check failed but
// the host could not be judged (checks undecided, the budget spent, bad flags or fabric). With
// --drain the host's Slurm node is drained or resumed as LBNL NHC does.
func runCheckNHC(cmd *cobra.Command, g *globals, cf checkFlags, lf localCheckFlags, lnf launcherFlags) error {
	var v nhc.Verdict
	o, lh, err := localOptions(cmd, g, cf, lf)
	if err == nil && cf.fromDir != "" {
		err = errors.New("--local and --from-dir exclude each other")
	}
	if err != nil {
		v = nhc.Verdict{Code: nhc.Unknown, Reason: "could not check: " + err.Error()}
	} else {
		ctx, cancel := commandContext(cmd, g)
		defer cancel()
		v = nhc.Run(ctx, lf.budget, func(ctx context.Context) (*report.Report, error) { return checklocal.Run(ctx, o) })
		if lnf.drain {
			node := ""
			if lh.Host != "" {
				node = slurm.NodeOf(lh.Host, lh.Labels)
			}
			slurm.DrainSelf(ctx, slurm.Client{Run: slurm.Exec{}}, lh.Host, slurm.SelfNode(os.Getenv, os.Hostname, node), v, func(format string, a ...any) {
				fmt.Fprintf(g.stderr, "fabricctl: "+format+"\n", a...)
			})
		}
	}
	if err := v.Write(g.stdout); err != nil {
		return err
	}
	if v.Code != nhc.Healthy {
		return exitCodeError{v.Code}
	}
	return nil
}
