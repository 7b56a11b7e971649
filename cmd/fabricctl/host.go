package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/fabricctl/fabricctl/action/hostlocal"
	"github.com/fabricctl/fabricctl/action/view"
	"github.com/fabricctl/fabricctl/checks/preflight"
	"github.com/fabricctl/fabricctl/checks/rdma"
	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/hostcfg"
	"github.com/fabricctl/fabricctl/hostcfg/journal"
	"github.com/fabricctl/fabricctl/hostcfg/sysfs"
	"github.com/fabricctl/fabricctl/internal/output"
)

// openHost opens the local host's backends; tests replace it with a fixture host.
var openHost = func(_ context.Context, o hostcfg.Options) (*hostcfg.Host, error) { return hostcfg.OpenLocal(o) }

// hostFlags are the flags of the commands that work on the local host.
type hostFlags struct {
	desired    string
	fabricFile string
	hostName   string
	sysRoot    string
	configRoot string
	debugRoot  string
	netns      string
	rdmamap    bool
}

// registerRoots adds the backend flags (also used by `fabricctl agent`).
func (f *hostFlags) registerRoots(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.sysRoot, "sys-root", hostcfg.DefaultSysRoot, "where sysfs is mounted")
	fl.StringVar(&f.configRoot, "config-root", hostcfg.DefaultConfigRoot, "where configfs is (mounted there when needed)")
	fl.StringVar(&f.debugRoot, "debug-root", hostcfg.DefaultDebugRoot, "where debugfs is mounted (mlx5 cc_params)")
	fl.StringVar(&f.netns, "netns", "", "manage the netdevs of this network namespace (path, e.g. /run/netns/NAME)")
	fl.BoolVar(&f.rdmamap, "rdmamap", true, "map netdevs to RDMA devices with Mellanox/rdmamap (live /sys only)")
}

// registerDesired adds the flags that name the desired state.
func (f *hostFlags) registerDesired(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.desired, "desired", "", "desired host state: a HostIntent JSON as `fabricctl render` writes it")
	fl.StringVarP(&f.fabricFile, "file", "f", "", "fabric file to resolve the desired state from (with --host; - reads standard input)")
	fl.StringVar(&f.hostName, "host", "", "the fabric host this machine is (with -f)")
}

func (f *hostFlags) options(g *globals) hostcfg.Options {
	return hostcfg.Options{SysRoot: f.sysRoot, ConfigRoot: f.configRoot, DebugRoot: f.debugRoot,
		NetNS: f.netns, UseRdmamap: f.rdmamap, Log: g.log}
}

// checkers gather this host's preflight facts and run its perftests, through the flags' roots.
func (f *hostFlags) checkers(g *globals) (*preflight.Gatherer, *rdma.Agent) {
	return &preflight.Gatherer{Open: func(ctx context.Context) (*hostcfg.Host, error) { return openHost(ctx, f.options(g)) }},
		&rdma.Agent{Sys: sysfs.NewFS(f.sysRoot), StateDir: rdma.DefaultStateDir()}
}

// loadDesired returns the desired state named by the flags, nil when none is.
func (f *hostFlags) loadDesired(ctx context.Context, g *globals) (*fabric.HostIntent, error) {
	switch {
	case f.desired != "" && f.fabricFile != "":
		return nil, errors.New("give either --desired FILE or -f FABRIC --host NAME, not both")
	case f.desired != "":
		return hostcfg.ReadDesired(ctx, f.desired)
	case f.fabricFile != "":
		if f.hostName == "" {
			return nil, errors.New("-f FABRIC needs --host NAME: which host of the fabric this is")
		}
		fab, err := g.loadFabric(ctx, f.fabricFile)
		if err != nil {
			return nil, err
		}
		h, err := fab.Resolve().Host(f.hostName)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", fabricSource(f.fabricFile), err)
		}
		return &h, nil
	case f.hostName != "":
		return nil, errors.New("--host NAME needs -f FABRIC")
	}
	return nil, nil
}

func newHostCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "host",
		Short: "Show, plan and apply the lossless settings of this host (no SSH)",
		Long: `Work on the local host directly, the way the agent does for the controller:

  fabricctl host show                              every RDMA netdev, every setting
  fabricctl host plan  --desired gpu-01.json       what apply would change (exit 2 when something)
  fabricctl host apply --desired gpu-01.json --yes apply, verify, roll back on failure
  fabricctl host plan  -f lab.yaml --host gpu-01   the same, resolved from the fabric
  fabricctl host recover                           roll back an apply that was interrupted

The desired state is what ` + "`fabricctl render`" + ` writes for the host. Settings the
device or driver cannot do are reported as unsupported, with the reason.`,
	}
	cmd.AddCommand(newHostShowCmd(g), newHostPlanCmd(g), newHostApplyCmd(g), newHostRecoverCmd(g))
	return cmd
}

// runOnHost is every host command's preamble: check the output format,
// load the desired state (required when need is set; nil when absent), open
// the host under the command's context, run fn and close the host.
func runOnHost(cmd *cobra.Command, g *globals, hf *hostFlags, need bool,
	fn func(ctx context.Context, h *hostcfg.Host, d *fabric.HostIntent) error) error {
	if err := output.Check(g.output); err != nil {
		return err
	}
	ctx, cancel := commandContext(cmd, g)
	defer cancel()
	d, err := hf.loadDesired(ctx, g)
	if err != nil {
		return err
	}
	if need && d == nil {
		return errors.New("no desired state: give --desired FILE or -f FABRIC --host NAME")
	}
	h, err := openHost(ctx, hf.options(g))
	if err != nil {
		return fmt.Errorf("opening the host backends: %w", err)
	}
	if d != nil && d.Host != "" {
		h.Name = d.Host
	}
	return errors.Join(fn(ctx, h, d), h.Close())
}

func commandContext(cmd *cobra.Command, g *globals) (context.Context, context.CancelFunc) {
	ctx := cmd.Context()
	if ctx == nil {
		ctx = context.Background()
	}
	if g.timeout > 0 {
		return context.WithTimeout(ctx, g.timeout)
	}
	return context.WithCancel(ctx)
}

func newHostShowCmd(g *globals) *cobra.Command {
	var hf hostFlags
	cmd := &cobra.Command{
		Use:   "show [INTERFACE...]",
		Short: "Print every lossless setting of this host: value, backend, or why it is unsupported",
		Long: `Print the live value of every setting fabricctl manages, the kernel interface
that served it (dcbnl, sysfs-ecn, debugfs-cc, configfs-rdma_cm, netlink, ethtool…),
and the reason for each unsupported one. Without INTERFACE every netdev with an
RDMA device is shown; with --desired or -f/--host only what the intent manages.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runOnHost(cmd, g, &hf, false, func(ctx context.Context, h *hostcfg.Host, d *fabric.HostIntent) error {
				var obs hostcfg.Observed
				var oerr error
				if d != nil {
					obs, oerr = h.Observe(ctx, *d)
				} else {
					obs, oerr = h.Show(ctx, args)
				}
				if err := output.Write(g.stdout, g.output, obs, func(t *output.TableWriter) { view.Observed(t, obs) }); err != nil {
					return err
				}
				if oerr != nil {
					output.LogErrors(g.stderr, oerr)
					return exitCodeError{exitError}
				}
				return nil
			})
		},
	}
	hf.registerDesired(cmd)
	hf.registerRoots(cmd)
	return cmd
}

func newHostPlanCmd(g *globals) *cobra.Command {
	var hf hostFlags
	var stateDir string
	cmd := &cobra.Command{
		Use:   "plan (--desired FILE | -f FABRIC --host NAME)",
		Short: "Print what apply would change on this host (exit 0 none, 2 changes, 1 error)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runOnHost(cmd, g, &hf, true, func(ctx context.Context, h *hostcfg.Host, d *fabric.HostIntent) error {
				obs, oerr := h.Observe(ctx, *d)
				p := hostcfg.Diff(*d, obs)
				if err := output.Write(g.stdout, g.output, p, func(t *output.TableWriter) { view.Plan(t, p) }); err != nil {
					return err
				}
				interrupted := hostlocal.WarnInterrupted(g.stderr, stateDir, d.Host)
				switch {
				case oerr != nil:
					output.LogErrors(g.stderr, oerr)
					return exitCodeError{exitError}
				case p.Drift() || interrupted:
					return exitCodeError{exitChanges}
				}
				return nil
			})
		},
	}
	hf.registerDesired(cmd)
	hf.registerRoots(cmd)
	registerStateDir(cmd, &stateDir)
	return cmd
}

func newHostApplyCmd(g *globals) *cobra.Command {
	var hf hostFlags
	var dryRun, yes bool
	var stateDir string
	cmd := &cobra.Command{
		Use:   "apply (--desired FILE | -f FABRIC --host NAME) [--dry-run] [--yes]",
		Short: "Apply the desired state to this host: write only differences, verify, roll back on failure",
		Long: `Plan, then write only what differs, one setting at a time in a fixed order,
journaling each setting's previous value (under --state-dir) before writing it.
Every written setting is read back; when a write or a read-back fails, or a
fresh plan still finds differences, every setting already changed, on every
interface, is restored. An apply interrupted earlier (killed, Ctrl-C twice) is
rolled back first. Changes that interrupt traffic (pfc_en on mlx5 flaps the
link, MTU) need --yes. Exit 0 when the host reached the desired state, 1
otherwise.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runOnHost(cmd, g, &hf, true, func(ctx context.Context, h *hostcfg.Host, d *fabric.HostIntent) error {
				err := hostlocal.Run(ctx, h, *d, hostlocal.Options{StateDir: stateDir, DryRun: dryRun, Yes: yes,
					Format: g.output, Stdout: g.stdout, Stderr: g.stderr})
				if errors.Is(err, hostlocal.ErrReported) {
					return exitCodeError{exitError}
				}
				return err
			})
		},
	}
	hf.registerDesired(cmd)
	hf.registerRoots(cmd)
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "plan only; change nothing")
	cmd.Flags().BoolVar(&yes, "yes", false, "apply disruptive changes (link flaps) without refusing")
	registerStateDir(cmd, &stateDir)
	return cmd
}

func newHostRecoverCmd(g *globals) *cobra.Command {
	var hf hostFlags
	var stateDir, host string
	cmd := &cobra.Command{
		Use:   "recover [--state-dir DIR] [--host NAME]",
		Short: "Roll back an apply that was interrupted on this host (killed, or its controller gone)",
		Long: `Every apply (fabricctl host apply, and the agent's for the controller)
journals each setting's previous value under --state-dir before writing it,
and keeps the journal until the apply is acknowledged. When an apply was
interrupted — the process killed, the SSH connection or the controller gone,
its reply lost — the journal stays behind and the host may be half-changed.
recover restores every journaled setting to its previous value (a setting
someone changed since is refused, not overwritten) and removes the journal.
It waits for an apply still running. Without --host every pending journal in
the directory is recovered. The controller does the same on its next
fabricctl apply, or with fabricctl recover -f FABRIC.
Exit 0 when nothing was pending or everything was restored, 1 otherwise.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			dir, err := journal.Open(stateDir)
			if err != nil {
				return err
			}
			hosts := []string{host}
			if host == "" {
				if hosts, err = dir.Hosts(); err != nil {
					return err
				}
			}
			var all []journal.Recovered
			var rerr error
			if len(hosts) > 0 {
				err = runOnHost(cmd, g, &hf, false, func(ctx context.Context, h *hostcfg.Host, _ *fabric.HostIntent) error {
					all, rerr = dir.RecoverHosts(ctx, h, hosts)
					return nil
				})
				if err != nil {
					return err
				}
			}
			rep := view.RecoverReport{APIVersion: fabric.APIVersion, Recovered: all}
			if err := output.Write(g.stdout, g.output, rep, rep.Table); err != nil {
				return err
			}
			if rerr != nil {
				output.LogErrors(g.stderr, rerr)
				return exitCodeError{exitError}
			}
			return nil
		},
	}
	hf.registerRoots(cmd)
	registerStateDir(cmd, &stateDir)
	cmd.Flags().StringVar(&host, "host", "", "recover only this host's journal (the fabric host name the apply used)")
	return cmd
}
