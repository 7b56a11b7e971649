package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/fabricctl/fabricctl/checks/local"
	"github.com/fabricctl/fabricctl/checks/nhc"
	"github.com/fabricctl/fabricctl/checks/preflight"
	"github.com/fabricctl/fabricctl/checks/rdma"
	"github.com/fabricctl/fabricctl/checks/report"
	checkrunner "github.com/fabricctl/fabricctl/checks/runner"
	"github.com/fabricctl/fabricctl/checks/slurm"
	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/hostcfg"
	"github.com/fabricctl/fabricctl/hostcfg/sysfs"
	"github.com/fabricctl/fabricctl/internal/kube"
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

// localHost is the fabric host this machine is, and its Slurm node name.
type localHost struct {
	intent fabric.HostIntent
	node   string
}

// findLocalHost picks the fabric host this machine is: --host, else the host whose Slurm node
// is $SLURMD_NODENAME (slurmd sets it for its health check), whose Kubernetes node is $NODE_NAME
// (the DaemonSet sets it), or whose name is this machine's host name.
func findLocalHost(f *fabric.Fabric, file, host string) (localHost, error) {
	hosts := f.Resolve().Hosts
	var names []string
	for _, h := range hosts {
		names = append(names, h.Host)
	}
	slices.Sort(names)
	pick := func(ok func(h fabric.HostIntent) bool) (localHost, bool) {
		for _, h := range hosts {
			if ok(h) {
				return localHost{intent: h, node: slurm.NodeOf(h.Host, h.Labels)}, true
			}
		}
		return localHost{}, false
	}
	if host != "" {
		if lh, ok := pick(func(h fabric.HostIntent) bool { return h.Host == host }); ok {
			return lh, nil
		}
		return localHost{}, fmt.Errorf("%s: no host %q (hosts: %s)", file, host, strings.Join(names, ", "))
	}
	var tried []string
	if n := os.Getenv("SLURMD_NODENAME"); n != "" {
		if lh, ok := pick(func(h fabric.HostIntent) bool { return slurm.NodeOf(h.Host, h.Labels) == n }); ok {
			return lh, nil
		}
		tried = append(tried, "SLURMD_NODENAME="+n)
	}
	if n := os.Getenv("NODE_NAME"); n != "" {
		if lh, ok := pick(func(h fabric.HostIntent) bool { return kube.NodeOf(h) == n }); ok {
			return lh, nil
		}
		tried = append(tried, "NODE_NAME="+n)
	}
	if hn, err := os.Hostname(); err == nil {
		short, _, _ := strings.Cut(hn, ".")
		if lh, ok := pick(func(h fabric.HostIntent) bool { return h.Host == hn || h.Host == short }); ok {
			return lh, nil
		}
		tried = append(tried, "host name "+hn)
	}
	return localHost{}, fmt.Errorf("%s: no host of the fabric is this machine (%s); give --host NAME", file, strings.Join(tried, ", "))
}

// localOptions turns the flags into the options of package local.
func localOptions(cmd *cobra.Command, g *globals, cf checkFlags, lf localCheckFlags) (local.Options, localHost, error) {
	var lh localHost
	var suites []report.Suite
	if cmd.Flags().Changed("suite") {
		var err error
		if suites, err = parseSuites(cf.suites); err != nil {
			return local.Options{}, lh, err
		}
	}
	o := local.Options{Suites: suites, NCCLLogDir: cf.ncclLogs, Progress: func(format string, a ...any) { fmt.Fprintf(g.stderr, "fabricctl: "+format+"\n", a...) }}
	if cf.file != "" {
		f, err := loadFabric(g.stderr, cf.file)
		if err != nil {
			return o, lh, err
		}
		if lh, err = findLocalHost(f, cf.file, lf.host); err != nil {
			return o, lh, err
		}
		o.Intent = lh.intent
		for _, h := range f.Resolve().Hosts {
			if h.Host != lh.intent.Host {
				o.Peers = append(o.Peers, preflight.Peer{Name: h.Host, Address: h.Address})
			}
		}
		o.Name = f.Metadata.Name
		o.ExpectedRate = expectedPortRate(f.Spec.Checks)
		if c := f.Spec.Checks; c != nil && c.NCCL != nil {
			o.NCCL = *c.NCCL
		}
		o.Loopback, o.LoopbackThresholds = checkrunner.LoopbackTest(f.Spec.Checks)
	} else if lf.host != "" {
		return o, lh, errors.New("--host NAME needs -f FABRIC")
	}
	hf := hostFlags{sysRoot: hostcfg.DefaultSysRoot, configRoot: hostcfg.DefaultConfigRoot, debugRoot: hostcfg.DefaultDebugRoot, rdmamap: true}
	o.Gatherer = &preflight.Gatherer{Open: func(ctx context.Context) (*hostcfg.Host, error) { return openHost(ctx, hf.options(g)) }}
	o.Agent = &rdma.Agent{Sys: sysfs.NewFS(hf.sysRoot), StateDir: rdma.DefaultStateDir()}
	return o, lh, nil
}

// expectedPortRate is the fabric's spec.checks.preflight.expectedRate (0: any).
func expectedPortRate(c *fabric.Checks) float64 {
	if c == nil || c.Preflight == nil {
		return 0
	}
	return c.Preflight.ExpectedRate
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
	rep, err := local.Run(ctx, o)
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
		v = nhc.Run(ctx, lf.budget, func(ctx context.Context) (*report.Report, error) { return local.Run(ctx, o) })
		if lnf.drain {
			drainSelf(ctx, g, lh, v)
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

// drainSelf drains this host's Slurm node when the check failed and resumes it when it passes
// and fabricctl drained it; an undecided check changes nothing. scontrol's trouble goes to stderr.
func drainSelf(ctx context.Context, g *globals, lh localHost, v nhc.Verdict) {
	host := lh.intent.Host
	node := os.Getenv("SLURMD_NODENAME")
	if node == "" {
		node = lh.node
	}
	if node == "" {
		node, _ = os.Hostname()
		node, _, _ = strings.Cut(node, ".")
	}
	if host == "" {
		host = node
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 8*time.Second)
	defer cancel()
	verdict := report.HostVerdict{Host: host, Failed: v.Code == nhc.Unhealthy, Undecided: v.Code == nhc.Unknown, Reason: v.Reason}
	actions, err := slurm.Reconcile(ctx, slurm.Client{Run: slurm.Exec{}}, []report.HostVerdict{verdict}, func(string) string { return node }, false)
	for _, a := range actions {
		if a.Do != "keep" {
			fmt.Fprintf(g.stderr, "fabricctl: slurm: %s\n", a)
		}
	}
	if err != nil {
		fmt.Fprintf(g.stderr, "fabricctl: %v\n", err)
	}
}
