package main

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/fabricctl/fabricctl/checks/local"
	"github.com/fabricctl/fabricctl/checks/preflight"
	"github.com/fabricctl/fabricctl/checks/report"
	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/hostcfg"
)

// localCheckFlags are check's flags for --local.
type localCheckFlags struct {
	local bool
	host  string
}

func (lf *localCheckFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.BoolVar(&lf.local, "local", false, "check this host in-process, without SSH (preflight; with -f FABRIC --host NAME against the fabric)")
	fl.StringVar(&lf.host, "host", "", "with --local -f FABRIC: the fabric host this machine is")
}

// checkLocal runs `fabricctl check --local`: the checks of package local on
// this host, reported like any check run.
func checkLocal(cmd *cobra.Command, g *globals, cf checkFlags, lf localCheckFlags, write func(cmdOut *report.Report) error) error {
	var suites []report.Suite
	if cmd.Flags().Changed("suite") {
		var err error
		if suites, err = parseSuites(cf.suites); err != nil {
			return err
		}
	}
	o := local.Options{Suites: suites}
	if cf.file != "" {
		f, err := loadFabric(g.stderr, cf.file)
		if err != nil {
			return err
		}
		if lf.host == "" {
			return fmt.Errorf("--local -f %s needs --host NAME: which host of the fabric this is", cf.file)
		}
		var names []string
		found := false
		for _, h := range f.Resolve().Hosts {
			names = append(names, h.Host)
			if h.Host == lf.host {
				o.Intent, found = h, true
				continue
			}
			o.Peers = append(o.Peers, preflight.Peer{Name: h.Host, Address: h.Address})
		}
		if !found {
			slices.Sort(names)
			return fmt.Errorf("%s: no host %q (hosts: %s)", cf.file, lf.host, strings.Join(names, ", "))
		}
		o.Name = f.Metadata.Name
		o.ExpectedRate = expectedPortRate(f.Spec.Checks)
	} else if lf.host != "" {
		return fmt.Errorf("--host NAME needs -f FABRIC")
	}
	hf := hostFlags{sysRoot: hostcfg.DefaultSysRoot, configRoot: hostcfg.DefaultConfigRoot, debugRoot: hostcfg.DefaultDebugRoot, rdmamap: true}
	o.Gatherer = &preflight.Gatherer{Open: func(ctx context.Context) (*hostcfg.Host, error) { return openHost(ctx, hf.options(g)) }}
	ctx, cancel := commandContext(cmd, g)
	defer cancel()
	rep, err := local.Run(ctx, o)
	if err != nil {
		return err
	}
	return write(rep)
}

// expectedPortRate is the fabric's spec.checks.preflight.expectedRate (0: any).
func expectedPortRate(c *fabric.Checks) float64 {
	if c == nil || c.Preflight == nil {
		return 0
	}
	return c.Preflight.ExpectedRate
}

// runCheckLocal is check's RunE branch for --local.
func runCheckLocal(cmd *cobra.Command, g *globals, cf checkFlags, lf localCheckFlags) error {
	write, ok := checkWriters[g.output]
	if !ok {
		return fmt.Errorf("output %q is not one of table, json, junit, html", g.output)
	}
	if cf.fromDir != "" {
		return fmt.Errorf("--local and --from-dir exclude each other")
	}
	return checkLocal(cmd, g, cf, lf, func(rep *report.Report) error { return emitReport(g, cf, rep, write) })
}
