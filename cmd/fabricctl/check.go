package main

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/fabricctl/fabricctl/action/check"
	"github.com/fabricctl/fabricctl/action/fleet"
	"github.com/fabricctl/fabricctl/agent/agentclient"
	"github.com/fabricctl/fabricctl/checks"
	"github.com/fabricctl/fabricctl/checks/analyze"
	"github.com/fabricctl/fabricctl/checks/captured"
	"github.com/fabricctl/fabricctl/checks/report"
	"github.com/fabricctl/fabricctl/internal/atomicfile"
	"github.com/fabricctl/fabricctl/internal/infile"
)

// checkFlags are the flags of fabricctl check.
type checkFlags struct {
	file       string
	suites     []string
	reportFile string
	insecure   bool
	agentPath  string
	identity   string
	knownHosts string
	only       []string
	fromDir    string
	ncclLogs   string
	// vantage is the host whose agent reads the InfiniBand subnet (--suite ib).
	vantage string
	// relFloor is the outlier fraction of the fleet's best (0: 93%).
	relFloor float64
}

func newCheckCmd(g *globals) *cobra.Command {
	var cf checkFlags
	var lf localCheckFlags
	var lnf launcherFlags
	cmd := &cobra.Command{
		Use:   "check -f FABRIC [--suite preflight,loopback,pairwise,incast,nccl,ib] [--report FILE.html]",
		Short: "Prove the fabric works: host preflight, RDMA loopback and pairwise perftest sweeps",
		Long: `check reaches every host of the fabric over SSH, delivers the agent when needed,
gathers preflight facts (RDMA device and port, RoCE v2 GID, MTU, lossless settings,
PCIe links, GPU affinity, tool versions), runs ib_*_bw/lat loopback on every host and
the pairwise schedule of spec.checks, with --suite incast rounds of N senders writing to one
receiver on the RoCE class (spec.checks.incast) whose host and switch PFC, ECN and loss counters,
read before and after each round, must show a lossless class that held, with --suite nccl an
NCCL all-reduce across the hosts (its logs explained), and reports with the cause of every failure.
With --suite ib one vantage host (--vantage HOST, else spec.infiniband.vantage, else the first
host of the InfiniBand cabling) runs the infiniband-diags through its agent (ibnetdiscover,
iblinkinfo, sminfo, saquery, ibqueryerrors, smpquery; nothing else) and the subnet is judged
against spec.infiniband and the partitions: cabling, link width and speed, error counters,
subnet managers, P_Keys. Beside other suites its error counters are read before them and after.
Results go to stdout (-o table|json|junit|html), progress to stderr; --report writes the
self-contained HTML page. Exit 0 when everything passed, 2 on failures, 1 on errors.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if lf.local {
				return runCheckLocal(cmd, g, cf, lf, lnf)
			}
			switch lnf.launcher {
			case "slurm":
				return runCheckSlurm(cmd, g, cf, lnf)
			case "ssh", "":
				return runCheck(cmd, g, cf)
			}
			return fmt.Errorf("--launcher %q: want ssh or slurm", lnf.launcher)
		},
	}
	lf.register(cmd)
	lnf.register(cmd)
	fl := cmd.Flags()
	fl.StringVarP(&cf.file, "file", "f", "", "fabric file (- reads standard input)")
	fl.StringSliceVar(&cf.suites, "suite", []string{"preflight", "loopback", "pairwise"}, "suites to run (comma-separated)")
	fl.StringVar(&cf.reportFile, "report", "", "also write the HTML report to this file")
	fl.BoolVar(&cf.insecure, "insecure-ignore-host-key", false, "DANGEROUS: do not check SSH host keys")
	fl.StringVar(&cf.agentPath, "agent-path", agentclient.RemotePath, "where the agent is kept on hosts (relative to the login home)")
	fl.Float64Var(&cf.relFloor, "relative-floor", 0, "a run below this fraction of the fleet's best bandwidth is an outlier (0: 0.93); emulated fabrics such as the soft-RoCE lab need about 0.3")
	fl.StringVar(&cf.identity, "identity-file", "", "SSH private key for every host (overrides the fabric's ssh settings)")
	fl.StringVar(&cf.knownHosts, "known-hosts", "", "known_hosts file for every host (overrides the fabric's ssh settings)")
	fl.StringSliceVar(&cf.only, "target", nil, "only these hosts (repeat or comma-separate)")
	fl.StringVar(&cf.vantage, "vantage", "", "with --suite ib: the host whose agent reads the InfiniBand subnet (default spec.infiniband.vantage, else the first cabled host)")
	fl.StringVar(&cf.ncclLogs, "nccl-logs", "", "with --suite nccl: keep every rank's NCCL log as DIR/<host>/<log>")
	fl.StringVar(&cf.fromDir, "from-dir", "", "evaluate captured tool outputs (DIR/<host>/ibstat.txt, show_gids, topo, lspci, ib_write_bw, nccl logs …) instead of connecting; -f is then optional")
	return cmd
}

// writers of the check report by -o value.
var checkWriters = map[string]func(io.Writer, *report.Report) error{
	"table": report.WriteTable, "json": report.WriteJSON, "junit": report.WriteJUnit, "html": report.WriteHTML,
}

func runCheck(cmd *cobra.Command, g *globals, cf checkFlags) error {
	write, ok := checkWriters[g.output]
	if !ok {
		return fmt.Errorf("output %q is not one of table, json, junit, html", g.output)
	}
	if cf.fromDir != "" {
		return checkFromDir(cmd, g, cf, write)
	}
	suites, err := parseSuites(cf.suites)
	if err != nil {
		return err
	}
	f, err := g.loadFabric(cmd.Context(), cf.file)
	if err != nil {
		return err
	}
	if cf.insecure {
		fmt.Fprintln(g.stderr, "fabricctl: WARNING: --insecure-ignore-host-key: SSH host keys are NOT checked")
	}
	var mu sync.Mutex
	opts := check.Options{Suites: suites, Parallel: g.parallel, RelativeFloor: cf.relFloor, NCCLLogDir: cf.ncclLogs,
		Progress: func(format string, a ...any) {
			mu.Lock()
			defer mu.Unlock()
			fmt.Fprintf(g.stderr, "fabricctl: "+format+"\n", a...)
		}}
	opts.IBSuite.Vantage = cf.vantage
	ctx, cancel := checkContext(cmd, g, check.EstimateFabric(f, cf.only, opts))
	defer cancel()

	d := agentclient.Self()
	d.RemotePath = cf.agentPath
	rep, err := check.RunFabric(ctx, f, fleet.Options{Registry: switchRegistry(), InsecureIgnoreHostKey: cf.insecure, Only: cf.only, Deployer: d,
		IdentityFile: cf.identity, KnownHostsFile: cf.knownHosts, Log: g.log, Dial: g.dial}, opts)
	if err != nil {
		return err
	}
	return emitReport(g, cf, rep, write)
}

// checkFromDir evaluates captured outputs offline (no SSH, no fabric needed).
func checkFromDir(cmd *cobra.Command, g *globals, cf checkFlags, write func(io.Writer, *report.Report) error) error {
	ctx, cancel := commandContext(cmd, g)
	defer cancel()
	dir, err := infile.OpenDir(ctx, cf.fromDir, captured.MaxFileSize)
	if err != nil {
		return fmt.Errorf("--from-dir %w", err)
	}
	name := filepath.Base(filepath.Clean(cf.fromDir))
	opt := captured.Options{Host: name}
	if cf.file != "" {
		f, err := g.loadFabric(ctx, cf.file)
		if err != nil {
			return err
		}
		name = f.Metadata.Name
		opt.Analyze.Expect = analyze.FabricExpect(f)
	}
	started := time.Now()
	results, err := captured.Evaluate(dir, opt)
	if err != nil {
		return err
	}
	rep := report.New(name, started, report.SuitePreflight)
	rep.Add(results...)
	rep.Finished = time.Now()
	return emitReport(g, cf, rep, write)
}

func parseSuites(names []string) ([]report.Suite, error) {
	valid := []report.Suite{report.SuitePreflight, report.SuiteLoopback, report.SuitePairwise, report.SuiteIncast, report.SuiteNCCL, report.SuiteIB}
	var out []report.Suite
	for _, n := range names {
		s := report.Suite(strings.TrimSpace(n))
		if !slices.Contains(valid, s) {
			return nil, fmt.Errorf("unknown suite %q (valid: preflight, loopback, pairwise, incast, nccl, ib)", n)
		}
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out, nil
}

// checkExit maps the worst verdict to the exit code: 0 pass (warnings and
// skips included), 2 failures, 1 when any check could not decide.
func checkExit(rep *report.Report) error {
	all := slices.Clone(rep.Results)
	for _, p := range rep.Pairs {
		all = append(all, checks.Result{Status: p.Status})
	}
	switch checks.Worst(all) {
	case checks.StatusError:
		return exitCodeError{exitError}
	case checks.StatusFail:
		return exitCodeError{exitChanges}
	}
	return nil
}

// emitReport records which fabricctl wrote rep, writes the HTML report file
// when asked, prints rep with write and turns its outcome into the exit code.
func emitReport(g *globals, cf checkFlags, rep *report.Report, write func(io.Writer, *report.Report) error) error {
	if rep.Generator == nil {
		b := build()
		rep.Generator = &report.Generator{Version: b.Version, Revision: b.Revision, Modified: b.Modified}
	}
	if cf.reportFile != "" {
		var html bytes.Buffer
		if err := report.WriteHTML(&html, rep); err != nil {
			return fmt.Errorf("writing the report: %w", err)
		}
		if err := atomicfile.WriteFile(cf.reportFile, html.Bytes(), 0o644); err != nil {
			return err
		}
		fmt.Fprintf(g.stderr, "fabricctl: report written to %s\n", cf.reportFile)
	}
	if err := write(g.stdout, rep); err != nil {
		return fmt.Errorf("writing the report: %w", err)
	}
	return checkExit(rep)
}
