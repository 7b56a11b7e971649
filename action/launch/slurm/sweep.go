package slurm

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/fabricctl/fabricctl/action/checklocal/nhc"
	"github.com/fabricctl/fabricctl/checks"
	"github.com/fabricctl/fabricctl/checks/report"
	"github.com/fabricctl/fabricctl/fabric"
)

// Sweep is `fabricctl check --launcher slurm`: it selects the fabric's hosts (those named in
// only, when given), sets l.Node from their NodeLabel, asks scontrol for l.AllocationNodes when
// l.Allocation is set, and has run check the hosts through l (action/check's Run with l as its
// Launcher; this package does not import the runner, which the lab's tests import through it).
// Each srun step is then logged with l.Log; with drain the nodes follow the verdicts
// (Reconcile), each action logged. file names the fabric in errors; no host selected is
// checks.ErrNoHosts. Settings l.Validate refuses, and a host whose node is no single node name
// (CheckNodeName: "gpu01,gpu03" would run its task on two nodes), are errors before Slurm is
// asked anything.
func Sweep(ctx context.Context, f *fabric.Fabric, file string, l *Launcher, only []string, drain bool,
	run func(ctx context.Context, hosts []fabric.HostIntent) (*report.Report, error)) (*report.Report, error) {
	logf := func(format string, a ...any) {
		if l.Log != nil {
			l.Log(format, a...)
		}
	}
	if err := l.Validate(); err != nil {
		return nil, err
	}
	labels := map[string]map[string]string{}
	var hosts []fabric.HostIntent
	var names []string
	for _, h := range f.Resolve().Hosts {
		if len(only) > 0 && !slices.Contains(only, h.Host) {
			continue
		}
		if err := CheckNodeName(NodeOf(h.Host, h.Labels)); err != nil {
			return nil, fmt.Errorf("checking %s: host %s: Slurm node %+q (label %s): %w", file, h.Host, NodeOf(h.Host, h.Labels), NodeLabel, ErrBadName)
		}
		labels[h.Host] = h.Labels
		hosts = append(hosts, h)
		names = append(names, h.Host)
	}
	if len(hosts) == 0 {
		return nil, fmt.Errorf("checking %s: %w", file, checks.ErrNoHosts)
	}
	l.Node = func(h string) string { return NodeOf(h, labels[h]) }
	if l.Allocation != "" {
		var err error
		if l.AllocationNodes, err = (Client{Run: l.Run}).JobNodes(ctx, l.Allocation); err != nil {
			return nil, err
		}
	}
	rep, err := run(ctx, hosts)
	if err != nil {
		return nil, err
	}
	for _, st := range l.Steps() {
		suffix := ""
		if st.Error != "" {
			suffix = ": " + st.Error
		}
		logf("srun step %s: %d node(s), %.1fs, spec %d bytes%s", st.Name, st.Nodes, st.Wall.Seconds(), st.ArgBytes, suffix)
	}
	if drain {
		actions, err := Reconcile(ctx, Client{Run: l.Run}, rep.HostVerdicts(names), l.Node, false)
		for _, a := range actions {
			logf("slurm: %s", a)
		}
		if err != nil {
			return nil, err
		}
	}
	return rep, nil
}

// SelfNode is the Slurm node this machine is: $SLURMD_NODENAME (slurmd sets it for its health
// check), else node (the fabric host's node, NodeOf), else the short host name.
func SelfNode(getenv func(string) string, hostname func() (string, error), node string) string {
	if n := getenv("SLURMD_NODENAME"); n != "" {
		return n
	}
	if node != "" {
		return node
	}
	n, _ := hostname()
	n, _, _ = strings.Cut(n, ".")
	return n
}

// DrainSelf is `fabricctl check --local -o nhc --drain`: it drains node (SelfNode) when the
// health check v failed and resumes it when v passed and fabricctl drained it; an undecided
// check changes nothing. host names the fabric host (default: node). scontrol gets 8 s even
// when ctx is done (the check may have spent its budget); each change and any trouble go to logf.
func DrainSelf(ctx context.Context, c Client, host, node string, v nhc.Verdict, logf func(format string, a ...any)) {
	if host == "" {
		host = node
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 8*time.Second)
	defer cancel()
	verdict := report.HostVerdict{Host: host, Failed: v.Code == nhc.Unhealthy, Undecided: v.Code == nhc.Unknown, Reason: v.Reason}
	actions, err := Reconcile(ctx, c, []report.HostVerdict{verdict}, func(string) string { return node }, false)
	for _, a := range actions {
		if a.Do != "keep" {
			logf("slurm: %s", a)
		}
	}
	if err != nil {
		logf("%v", err)
	}
}
