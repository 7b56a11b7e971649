package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/hostcfg"
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
	fl.StringVarP(&f.fabricFile, "file", "f", "", "fabric file to resolve the desired state from (with --host)")
	fl.StringVar(&f.hostName, "host", "", "the fabric host this machine is (with -f)")
}

func (f *hostFlags) options(g *globals) hostcfg.Options {
	return hostcfg.Options{SysRoot: f.sysRoot, ConfigRoot: f.configRoot, DebugRoot: f.debugRoot,
		NetNS: f.netns, UseRdmamap: f.rdmamap, Log: g.log}
}

// loadDesired returns the desired state named by the flags, nil when none is.
func (f *hostFlags) loadDesired(g *globals) (*fabric.HostIntent, error) {
	switch {
	case f.desired != "" && f.fabricFile != "":
		return nil, errors.New("give either --desired FILE or -f FABRIC --host NAME, not both")
	case f.desired != "":
		return hostcfg.ReadDesired(f.desired)
	case f.fabricFile != "":
		if f.hostName == "" {
			return nil, errors.New("-f FABRIC needs --host NAME: which host of the fabric this is")
		}
		fab, err := loadFabric(g.stderr, f.fabricFile)
		if err != nil {
			return nil, err
		}
		var names []string
		for _, h := range fab.Resolve().Hosts {
			if h.Host == f.hostName {
				return &h, nil
			}
			names = append(names, h.Host)
		}
		slices.Sort(names)
		return nil, fmt.Errorf("%s: no host %q (hosts: %s)", f.fabricFile, f.hostName, strings.Join(names, ", "))
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

The desired state is what ` + "`fabricctl render`" + ` writes for the host. Settings the
device or driver cannot do are reported as unsupported, with the reason.`,
	}
	cmd.AddCommand(newHostShowCmd(g), newHostPlanCmd(g), newHostApplyCmd(g))
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
	d, err := hf.loadDesired(g)
	if err != nil {
		return err
	}
	if need && d == nil {
		return errors.New("no desired state: give --desired FILE or -f FABRIC --host NAME")
	}
	ctx, cancel := commandContext(cmd, g)
	defer cancel()
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

// logErrors writes each located error on its own stderr line.
func logErrors(w io.Writer, err error) {
	for _, l := range strings.Split(err.Error(), "\n") {
		fmt.Fprintf(w, "fabricctl: %s\n", l)
	}
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
				if err := output.Write(g.stdout, g.output, obs, func(t *output.TableWriter) { observedTable(t, obs) }); err != nil {
					return err
				}
				if oerr != nil {
					logErrors(g.stderr, oerr)
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
	cmd := &cobra.Command{
		Use:   "plan (--desired FILE | -f FABRIC --host NAME)",
		Short: "Print what apply would change on this host (exit 0 none, 2 changes, 1 error)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runOnHost(cmd, g, &hf, true, func(ctx context.Context, h *hostcfg.Host, d *fabric.HostIntent) error {
				obs, oerr := h.Observe(ctx, *d)
				p := hostcfg.Diff(*d, obs)
				if err := output.Write(g.stdout, g.output, p, func(t *output.TableWriter) { planTable(t, p) }); err != nil {
					return err
				}
				switch {
				case oerr != nil:
					logErrors(g.stderr, oerr)
					return exitCodeError{exitError}
				case p.Drift():
					return exitCodeError{exitChanges}
				}
				return nil
			})
		},
	}
	hf.registerDesired(cmd)
	hf.registerRoots(cmd)
	return cmd
}

// hostApplyOutput is what `host apply` prints.
type hostApplyOutput struct {
	APIVersion string          `json:"apiVersion"`
	Host       string          `json:"host"`
	DryRun     bool            `json:"dryRun"`
	Plan       hostcfg.Plan    `json:"plan"`
	Result     *hostcfg.Result `json:"result,omitempty"`
	// Remaining is what a fresh plan still finds after the apply.
	Remaining []hostcfg.Change `json:"remaining,omitempty"`
}

func newHostApplyCmd(g *globals) *cobra.Command {
	var hf hostFlags
	var dryRun, yes bool
	cmd := &cobra.Command{
		Use:   "apply (--desired FILE | -f FABRIC --host NAME) [--dry-run] [--yes]",
		Short: "Apply the desired state to this host: write only differences, verify, roll back on failure",
		Long: `Plan, then write only what differs, one setting at a time in a fixed order,
keeping each setting's previous value. Every written setting is read back; when a
write or a read-back fails, the settings of that interface already changed are
restored and the other interfaces proceed. Changes that interrupt traffic (pfc_en
on mlx5 flaps the link, MTU) need --yes. Exit 0 when the host reached the desired
state, 1 otherwise.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runOnHost(cmd, g, &hf, true, func(ctx context.Context, h *hostcfg.Host, d *fabric.HostIntent) error {
				return hostApply(ctx, g, h, *d, dryRun, yes)
			})
		},
	}
	hf.registerDesired(cmd)
	hf.registerRoots(cmd)
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "plan only; change nothing")
	cmd.Flags().BoolVar(&yes, "yes", false, "apply disruptive changes (link flaps) without refusing")
	return cmd
}

func hostApply(ctx context.Context, g *globals, h *hostcfg.Host, d fabric.HostIntent, dryRun, yes bool) error {
	obs, oerr := h.Observe(ctx, d)
	p := hostcfg.Diff(d, obs)
	out := hostApplyOutput{APIVersion: fabric.APIVersion, Host: p.Host, DryRun: dryRun, Plan: p}
	write := func() error {
		return output.Write(g.stdout, g.output, out, func(t *output.TableWriter) { applyTable(t, out) })
	}
	if oerr != nil {
		logErrors(g.stderr, oerr) // the unreadable settings are left alone; the rest proceeds
	}
	if dryRun || p.Empty() {
		if err := write(); err != nil {
			return err
		}
		if oerr != nil {
			return exitCodeError{exitError}
		}
		return nil
	}
	if p.Disruptive() && !yes {
		if err := write(); err != nil {
			return err
		}
		for _, c := range p.Changes {
			if c.Disruptive {
				fmt.Fprintf(g.stderr, "fabricctl: %s %s %s → %s: %s\n", c.Interface, c.Setting, c.Old, c.New, c.Reason)
			}
		}
		return errors.New("the plan interrupts traffic (above); rerun with --yes to apply it")
	}
	res, aerr := h.Apply(ctx, p)
	out.Result = &res
	after, verr := h.Observe(ctx, d)
	out.Remaining = hostcfg.Diff(d, after).Changes
	if err := write(); err != nil {
		return err
	}
	if aerr != nil || oerr != nil {
		if aerr != nil {
			logErrors(g.stderr, aerr)
		}
		return exitCodeError{exitError}
	}
	if verr != nil || len(out.Remaining) > 0 {
		if verr != nil {
			logErrors(g.stderr, verr)
		}
		fmt.Fprintf(g.stderr, "fabricctl: %d setting(s) still differ after apply\n", len(out.Remaining))
		return exitCodeError{exitError}
	}
	return nil
}

// Table formats.

func observedTable(t *output.TableWriter, obs hostcfg.Observed) {
	t.Row("INTERFACE", "SETTING", "BACKEND", "VALUE")
	if len(obs.Interfaces)+len(obs.Ports) == 0 {
		t.Row("-", "-", "-", "no netdev with an RDMA device on this host; name netdevs to show them")
	}
	for _, i := range obs.Interfaces {
		head := i.Name
		if i.Error != "" {
			t.Row(head, "-", "-", "error: "+i.Error)
			continue
		}
		t.Row(head, "driver", "-", orDash(i.Driver)+" "+orDash(i.BusID))
		if r := i.RDMA; r != nil {
			t.Row(head, "rdma", "sysfs", fmt.Sprintf("%s/%d %s %s %s", r.Device, r.Port.Port, r.State, r.LinkLayer, r.Rate))
			gid := "none"
			if r.RoCEv2IPv4GIDIndex >= 0 {
				gid = fmt.Sprint(r.RoCEv2IPv4GIDIndex)
			}
			t.Row(head, "gid.roce-v2-ipv4", "sysfs", gid)
		}
		for _, s := range i.Settings {
			t.Row(head, s.Setting, orDash(s.Backend), settingText(s))
		}
	}
	for _, p := range obs.Ports {
		t.Row(p.Name, "pkeys", hostcfg.BackendSysfsPKeys, strings.Join(p.PKeys, ","))
		for _, s := range p.Settings {
			t.Row(p.Name, s.Setting, orDash(s.Backend), settingText(s))
		}
	}
}

func settingText(s hostcfg.SettingState) string {
	switch {
	case s.Error != "":
		return "error: " + s.Error
	case s.Unsupported != "":
		return "unsupported: " + s.Unsupported
	}
	return s.Value
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func planTable(t *output.TableWriter, p hostcfg.Plan) {
	if len(p.Changes) == 0 {
		t.Row("no changes on " + p.Host)
	} else {
		t.Row("INTERFACE", "SETTING", "OLD", "NEW", "BACKEND", "NOTE")
		for _, c := range p.Changes {
			note := ""
			if c.Disruptive {
				note = "DISRUPTIVE: " + c.Reason
			}
			t.Row(c.Interface, c.Setting, c.Old, c.New, c.Backend, note)
		}
	}
	for _, i := range p.Issues {
		t.Row(i.Interface, orDash(i.Setting), "", "", orDash(i.Backend), i.Kind+": "+i.Reason)
	}
	t.Row(fmt.Sprintf("%d change(s), %d issue(s)", len(p.Changes), len(p.Issues)))
}

func applyTable(t *output.TableWriter, o hostApplyOutput) {
	if o.Result == nil {
		planTable(t, o.Plan)
		if o.DryRun {
			t.Row("dry run: nothing changed")
		}
		return
	}
	r := o.Result
	t.Row("RESULT", "INTERFACE", "SETTING", "OLD", "NEW", "BACKEND")
	for _, c := range r.Applied {
		t.Row("applied", c.Interface, c.Setting, c.Old, c.New, c.Backend)
	}
	for _, c := range r.RolledBack {
		t.Row("rolled-back", c.Interface, c.Setting, c.Old, c.New, c.Backend)
	}
	for _, f := range r.Failed {
		t.Row("failed", f.Interface, f.Setting, f.Old, f.New, f.Error)
	}
	for _, i := range r.Unsupported {
		t.Row("unsupported", i.Interface, i.Setting, i.Observed, i.Desired, i.Reason)
	}
	for _, c := range o.Remaining {
		t.Row("still-differs", c.Interface, c.Setting, c.Old, c.New, c.Backend)
	}
	for _, i := range o.Plan.Issues {
		t.Row(i.Kind, i.Interface, orDash(i.Setting), "", "", i.Reason)
	}
	t.Row(fmt.Sprintf("%d applied, %d unchanged, %d rolled back, %d failed, %d still differ",
		len(r.Applied), len(r.Unchanged), len(r.RolledBack), len(r.Failed), len(o.Remaining)))
}
