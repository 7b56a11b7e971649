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
	build          func(context.Context, *globals) (*fabric.Fabric, []fabric.Target, func(), error) // prepare, unless set (drift --from-dir)
}

func (of *orchestrateFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVarP(&of.file, "file", "f", "", "fabric file (- reads standard input)")
	fl.StringSliceVar(&of.targets, "target", nil, "only these targets (repeat or comma-separate)")
	fl.BoolVar(&of.insecure, "insecure-ignore-host-key", false, "DANGEROUS: do not check SSH host keys of hosts and subnet managers")
	fl.DurationVar(&of.confirmTimeout, "confirm-timeout", 2*time.Minute, "confirmed-commit window on switches that support it")
	fl.StringVar(&of.agentPath, "agent-path", agentclient.RemotePath, "where the agent is kept on hosts (relative to the login home)")
	fl.BoolVar(&of.allowUnparsed, "allow-unparsed", false, "judge switch readings that hold QoS input fabricctl did not understand, instead of calling them unknown (exit 1)")
	fl.StringVar(&of.ibLab, "ib-lab", "", "reach the subnet manager the InfiniBand lab in this directory runs (lab up --ib) on this machine, not over SSH")
}

// prepare loads the fabric and builds its targets.
func (of *orchestrateFlags) prepare(ctx context.Context, g *globals) (*fabric.Fabric, []fabric.Target, func(), error) {
	f, err := g.loadFabric(ctx, of.file)
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
	g.log.Debug("loaded fabric", "file", fabricSource(of.file), "fabric", f.Metadata.Name, "targets", len(targets))
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
	_, targets, closeAll, err := of.build(cmd.Context(), g)
	if err != nil {
		return err
	}
	defer closeAll()
	ctx, cancel := g.withTimeout(cmd.Context())
	defer cancel()
	return fn(ctx, targets)
}

func writePlan(g *globals, p *fabric.Plan) error {
	return output.Write(g.stdout, g.output, p, func(t *output.TableWriter) { view.PlanTable(t, g.stdout, p) })
}

// writeDrift is writePlan for drift: its table speaks of drift ("no drift on 6 target(s)").
func writeDrift(g *globals, p *fabric.Plan) error {
	return output.Write(g.stdout, g.output, p, func(t *output.TableWriter) { view.DriftTable(t, g.stdout, p) })
}

func newPlanCmd(g *globals) *cobra.Command {
	var of orchestrateFlags
	var out string
	var native bool
	cmd := &cobra.Command{
		Use:   "plan -f FABRIC [--out PLANFILE] [--native]",
		Short: "Observe every target and show what apply would change",
		Long: `Observe every host (through the agent over SSH), switch and subnet manager
concurrently and print, per target and setting, the live value and the desired
one. Changes that interrupt traffic are marked DISRUPTIVE with what the device
reprograms (the MTU, trust, the PFC priorities and headroom, the class of a
lossless DSCP; on hosts pfc_en and the MTU flap the link); watchdog timers,
ECN thresholds and ETS weights are not. A removal shows as "→ (remove)".
Nothing is changed.

--out FILE also saves the plan (atomically): the fabric file's path and
SHA-256, the targets and every change. "fabricctl apply FILE" applies exactly
that plan without asking, and refuses when the fabric drifted since.
--native adds, per switch, the unified diff of the native configuration a
push changes: the managed sections as read back, rendered natively, against
the desired rendering (in JSON: "native" on the switch's plan).
Exit 0 when nothing would change, 2 when something would, 1 on error.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if g.output == "ut" { // Terraform's -out, read by pflag as -o ut
				return errors.New(`"-out" reads as "-o ut": write --out FILE`)
			}
			return cobra.NoArgs(cmd, args)
		},
		RunE: func(cmd *cobra.Command, _ []string) error {
			if out != "" && of.file == stdinArg {
				return errors.New("plan --out records the fabric file's path and hash: give the fabric as a file, not -f -")
			}
			return of.run(cmd, g, nil, func(ctx context.Context, targets []fabric.Target) error {
				var data []byte
				if out != "" {
					var err error
					if data, err = readFabricBytes(of.file); err != nil { // as loaded, before planning
						return err
					}
				}
				p := g.engine().Plan(ctx, targets)
				if native {
					p.AttachNative(targets)
				}
				if err := writePlan(g, p); err != nil {
					return err
				}
				if native && g.output == output.Table {
					writeNative(g.stdout, p)
				}
				if out != "" {
					if err := savePlan(g, &of, data, p, out); err != nil {
						return err
					}
				}
				return planExit(p)
			})
		},
	}
	of.register(cmd)
	cmd.Flags().StringVar(&out, "out", "", "also save the plan to this file, for apply PLANFILE")
	cmd.Flags().BoolVar(&native, "native", false, "also show each switch's native configuration diff (read back → desired, rendered natively)")
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
				of.build = func(ctx context.Context, g *globals) (*fabric.Fabric, []fabric.Target, func(), error) {
					f, err := g.loadFabric(ctx, of.file)
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
				} else if err := writeDrift(g, p); err != nil {
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
		Use:   "apply {-f FABRIC | PLANFILE} [--dry-run] [--yes]",
		Short: "Plan, confirm, apply and verify; roll back a target whose apply fails",
		Long: `Plan every target, print the plan, ask for confirmation (unless --yes), then
apply subnet managers, then switches, then hosts — in parallel within each
tier — verifying each by observing it again. The question counts the
targets, the disruptive changes and the links that will flap. A target whose
apply or verify fails is restored to its state before the apply; the others
continue, except hosts behind a switch that failed. --dry-run never changes
anything.

apply PLANFILE applies a plan saved by plan --out: its fabric file (-f may be
left out; another file is refused, and so is the same file changed) and its
targets are observed and planned again, and when the new plan is exactly the
saved one it is applied without asking. When anything differs, nothing is
applied: "the fabric drifted since the plan was saved", each target and
setting that differs is listed, and apply exits 1.
Exit 0 when every target ended as desired, 1 otherwise.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				return applySaved(cmd, g, &of, args[0], dryRun)
			}
			if !yes && !dryRun {
				if err := stdinTaken(of.file, "apply reads its confirmation", "add --yes (or --dry-run), or give the fabric as a file"); err != nil {
					return err
				}
			}
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

// confirm asks on stderr whether to apply p and reads the answer from
// stdin. The question counts what the user is about to do: "Apply 7
// change(s) to 3 target(s): 2 disruptive, 1 link(s) will flap (h1 eth0)?"
func confirm(ctx context.Context, g *globals, p *fabric.Plan) (bool, error) {
	return ctxio.Confirm(ctx, g.stdin, g.stderr, fmt.Sprintf("Apply %s?", p.Summarize()))
}

func writeResult(g *globals, r *fabric.Result) error {
	return output.Write(g.stdout, g.output, r, func(t *output.TableWriter) { view.ResultTable(t, g.stdout, r) })
}
