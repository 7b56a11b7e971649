package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/fabricctl/fabricctl/action/fleet"
	"github.com/fabricctl/fabricctl/action/view"
	"github.com/fabricctl/fabricctl/agent/agentclient"
	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/internal/atomicfile"
	"github.com/fabricctl/fabricctl/internal/ctxio"
	"github.com/fabricctl/fabricctl/internal/output"
	"github.com/spf13/cobra"
)

// orchestrateFlags are shared by plan, apply and drift.
type orchestrateFlags struct {
	file           string
	targets        []string
	insecure       bool
	confirmTimeout time.Duration
	agentPath      string
	ibLab          string
	allowUnparsed  bool
	build          func(*globals) (*fabric.Fabric, []fabric.Target, func(), error) // prepare, unless set (drift --from-dir)
}

func (of *orchestrateFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVarP(&of.file, "file", "f", "", "fabric file")
	fl.StringSliceVar(&of.targets, "target", nil, "only these targets (repeat or comma-separate)")
	fl.BoolVar(&of.insecure, "insecure-ignore-host-key", false, "DANGEROUS: do not check SSH host keys of hosts and subnet managers")
	fl.DurationVar(&of.confirmTimeout, "confirm-timeout", 2*time.Minute, "confirmed-commit window on switches that support it")
	fl.StringVar(&of.agentPath, "agent-path", agentclient.RemotePath, "where the agent is kept on hosts (relative to the login home)")
	fl.BoolVar(&of.allowUnparsed, "allow-unparsed", false, "judge switch readings that hold QoS input fabricctl did not understand, instead of calling them unknown (exit 1)")
	fl.StringVar(&of.ibLab, "ib-lab", "", "reach the subnet manager the InfiniBand lab in this directory runs (lab up --ib) on this machine, not over SSH")
}

// prepare loads the fabric and builds its targets.
func (of *orchestrateFlags) prepare(g *globals) (*fabric.Fabric, []fabric.Target, func(), error) {
	f, err := loadFabric(g.stderr, of.file)
	if err != nil {
		return nil, nil, func() {}, err
	}
	if of.insecure {
		fmt.Fprintln(g.stderr, "fabricctl: WARNING: --insecure-ignore-host-key: SSH host keys are NOT checked; anyone on the path can impersonate a target")
	}
	d := agentclient.Self()
	d.RemotePath = of.agentPath
	o := fleet.Options{Registry: switchRegistry(), InsecureIgnoreHostKey: of.insecure, AllowUnparsed: of.allowUnparsed,
		Only: of.targets, ConfirmTimeout: of.confirmTimeout, Deployer: d, Log: g.log, Dial: g.dial}
	if of.ibLab != "" {
		l, err := runningIBLab(of.ibLab)
		if err != nil {
			return nil, nil, func() {}, err
		}
		o.SubnetManagerAt = l.At
	}
	targets, closeAll, err := fleet.Targets(f, o)
	if err != nil {
		closeAll()
		return nil, nil, func() {}, err
	}
	g.log.Debug("loaded fabric", "file", of.file, "fabric", f.Metadata.Name, "targets", len(targets))
	return f, targets, closeAll, nil
}

// run checks the output format, loads the fabric, builds its targets and
// calls fn with them under the command's timeout; connections close after.
func (of *orchestrateFlags) run(cmd *cobra.Command, g *globals, formats []string, fn func(context.Context, []fabric.Target) error) error {
	if err := output.Check(g.output, formats...); err != nil {
		return err
	}
	if of.build == nil {
		of.build = of.prepare
	}
	_, targets, closeAll, err := of.build(g)
	if err != nil {
		return err
	}
	defer closeAll()
	ctx, cancel := g.withTimeout(cmd.Context())
	defer cancel()
	return fn(ctx, targets)
}

func (g *globals) engine() *fabric.Engine {
	e := &fabric.Engine{Parallel: g.parallel, Log: g.log}
	if ctxio.IsTerminal(g.stderr) {
		e.Progress = func(ev fabric.Event) {
			fmt.Fprintf(g.stderr, "\r\033[K%s %d/%d %s", ev.Phase, ev.Done, ev.Total, ev.Target)
			if ev.Done == ev.Total {
				fmt.Fprintln(g.stderr)
			}
		}
	}
	return e
}

func (g *globals) withTimeout(ctx context.Context) (context.Context, context.CancelFunc) {
	if g.timeout > 0 {
		return context.WithTimeout(ctx, g.timeout)
	}
	return context.WithCancel(ctx)
}

func writePlan(g *globals, p *fabric.Plan) error {
	return output.Write(g.stdout, g.output, p, func(t *output.TableWriter) { view.PlanTable(t, g.stdout, p) })
}

func newPlanCmd(g *globals) *cobra.Command {
	var of orchestrateFlags
	cmd := &cobra.Command{
		Use:   "plan -f FABRIC",
		Short: "Observe every target and show what apply would change",
		Long: `Observe every host (through the agent over SSH), switch and subnet manager
concurrently and print, per target and setting, the live value and the desired
one. Disruptive changes (a PFC change flaps an mlx5 link) are marked. Nothing is
changed. Exit 0 when nothing would change, 2 when something would, 1 on error.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return of.run(cmd, g, nil, func(ctx context.Context, targets []fabric.Target) error {
				p := g.engine().Plan(ctx, targets)
				if err := writePlan(g, p); err != nil {
					return err
				}
				return planExit(p)
			})
		},
	}
	of.register(cmd)
	return cmd
}

func planExit(p *fabric.Plan) error {
	if err := p.Err(); err != nil {
		return exitCodeError{exitError}
	}
	if p.HasChanges() {
		return exitCodeError{exitChanges}
	}
	return nil
}

func newDriftCmd(g *globals) *cobra.Command {
	var of orchestrateFlags
	var textfile, fromDir string
	cmd := &cobra.Command{
		Use:   "drift -f FABRIC [--from-dir DIR]",
		Short: "Compare the live fabric with the desired state (for cron and CI)",
		Long: `Observe every target and report settings that differ from the fabric file.
-o prometheus prints a node-exporter textfile-collector file (one gauge per
target and drifted setting); --textfile writes it atomically. Exit 0 when
nothing drifted, 2 on drift, 1 when a target could not be observed.
--from-dir DIR audits the switches and subnet managers offline: each one's
captured read-back is DIR/<name>.<ext> (show running-config, CONFIG_DB JSON,
nv config show, …; OpenSM's partitions.conf).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if fromDir != "" {
				of.build = func(g *globals) (*fabric.Fabric, []fabric.Target, func(), error) {
					f, err := loadFabric(g.stderr, of.file)
					if err != nil {
						return nil, nil, func() {}, err
					}
					t, err := captureTargets(cmd.Context(), f, of.targets, fromDir, of.allowUnparsed)
					return f, t, func() {}, err
				}
			}
			return of.run(cmd, g, []string{"prometheus"}, func(ctx context.Context, targets []fabric.Target) error {
				p := g.engine().Plan(ctx, targets)
				if textfile != "" {
					if err := writeTextfile(textfile, p, time.Now()); err != nil {
						return err
					}
				}
				if g.output == "prometheus" {
					view.WritePrometheus(g.stdout, p, time.Now())
				} else if err := writePlan(g, p); err != nil {
					return err
				}
				return planExit(p)
			})
		},
	}
	of.register(cmd)
	cmd.Flags().StringVar(&textfile, "textfile", "", "also write the Prometheus textfile to this path (atomically)")
	cmd.Flags().StringVar(&fromDir, "from-dir", "", "compare the switches and subnet managers with captured read-backs in DIR instead of connecting")
	return cmd
}

func writeTextfile(path string, p *fabric.Plan, now time.Time) error {
	var b bytes.Buffer
	view.WritePrometheus(&b, p, now)
	return atomicfile.WriteFile(path, b.Bytes(), 0o644)
}

func newApplyCmd(g *globals) *cobra.Command {
	var of orchestrateFlags
	var yes, dryRun bool
	cmd := &cobra.Command{
		Use:   "apply -f FABRIC [--dry-run] [--yes]",
		Short: "Plan, confirm, apply and verify; roll back a target whose apply fails",
		Long: `Plan every target, print the plan, ask for confirmation (unless --yes), then
apply subnet managers, then switches, then hosts — in parallel within each
tier — verifying each by observing it again. A target whose apply or verify
fails is restored to its state before the apply; the others continue, except
hosts behind a switch that failed. --dry-run never changes anything.
Exit 0 when every target ended as desired, 1 otherwise.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return of.run(cmd, g, nil, func(ctx context.Context, targets []fabric.Target) error {
				e := g.engine()
				p := e.Plan(ctx, targets)
				if g.output == output.Table {
					if err := writePlan(g, p); err != nil {
						return err
					}
				}
				if !p.HasChanges() && !dryRun {
					if p.Err() != nil {
						return exitCodeError{exitError}
					}
					fmt.Fprintln(g.stderr, "fabricctl: nothing to change")
					if g.output != output.Table {
						return output.Write(g.stdout, g.output, e.Apply(ctx, targets, p, fabric.ApplyOptions{DryRun: true}), nil)
					}
					return nil
				}
				if !dryRun && !yes {
					ok, err := confirm(ctx, g, p)
					if err != nil {
						return err
					}
					if !ok {
						fmt.Fprintln(g.stderr, "fabricctl: not applied")
						return exitCodeError{exitError}
					}
				}
				res := e.Apply(ctx, targets, p, fabric.ApplyOptions{DryRun: dryRun})
				if err := writeResult(g, res); err != nil {
					return err
				}
				if res.Failed() {
					return exitCodeError{exitError}
				}
				return nil
			})
		},
	}
	of.register(cmd)
	cmd.Flags().BoolVarP(&yes, "yes", "y", false, "apply without asking")
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "plan and report; change nothing")
	return cmd
}

func newRecoverCmd(g *globals) *cobra.Command {
	var of orchestrateFlags
	cmd := &cobra.Command{
		Use:   "recover -f FABRIC [--target NAME,...]",
		Short: "Roll back applies that were interrupted on the fabric's hosts",
		Long: `Every host apply is journaled on the host (each setting's previous value,
written before the setting) until the controller acknowledges it. An apply
interrupted anywhere — its reply lost, the agent killed, the SSH connection
dropped, the controller killed — leaves its journal behind, and plan and drift
report it ("journal interrupted-apply"). recover asks each host's agent to
restore every journaled setting and remove the journal; it waits for an apply
still running there. fabricctl apply does the same for the hosts it applies;
fabricctl host recover does it on a host itself. Switches recover within their
own push (confirmed commits, checkpoints) and are not contacted.
Exit 0 when every host had nothing pending or was restored, 1 otherwise.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return of.run(cmd, g, nil, func(ctx context.Context, targets []fabric.Target) error {
				results, errs := fleet.Recover(ctx, targets, g.parallel)
				out := view.FleetRecoverReport{APIVersion: fabric.APIVersion, Hosts: results, Errors: errs}
				if err := output.Write(g.stdout, g.output, out, out.Table); err != nil {
					return err
				}
				if err := errors.Join(errs...); err != nil {
					output.LogErrors(g.stderr, err)
					return exitCodeError{exitError}
				}
				return nil
			})
		},
	}
	of.register(cmd)
	return cmd
}

// confirm asks on stderr whether to apply p and reads the answer from stdin.
func confirm(ctx context.Context, g *globals, p *fabric.Plan) (bool, error) {
	n := 0
	for _, t := range p.Targets {
		if len(fabric.Actionable(t.Changes)) > 0 {
			n++
		}
	}
	return ctxio.Confirm(ctx, g.stdin, g.stderr, fmt.Sprintf("Apply these changes to %d target(s)?", n))
}

func writeResult(g *globals, r *fabric.Result) error {
	return output.Write(g.stdout, g.output, r, func(t *output.TableWriter) { view.ResultTable(t, g.stdout, r) })
}
