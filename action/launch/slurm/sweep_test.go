package slurm_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/fabricctl/fabricctl/action/check"
	"github.com/fabricctl/fabricctl/action/checklocal/nhc"
	"github.com/fabricctl/fabricctl/action/launch/slurm"
	"github.com/fabricctl/fabricctl/checks/report"
	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/internal/testutil"
)

// sweepFabric is the Slurm lab's fabric, its hosts lab-h1..lab-h4 mapped to the Slurm nodes
// gpu01..gpu04 by the node label.
func sweepFabric(t *testing.T) *fabric.Fabric {
	t.Helper()
	f, err := fabric.Load(filepath.Join(testutil.RepoRoot(t), "lab", "e2e", "testdata", "slurm-fabric.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for i := range f.Spec.Hosts {
		f.Spec.Hosts[i].Labels = map[string]string{slurm.NodeLabel: fmt.Sprintf("gpu%02d", i+1)}
	}
	return f
}

// preflightRun runs the preflight through l, as check --launcher slurm runs its suites.
func preflightRun(f *fabric.Fabric, l *slurm.Launcher) func(context.Context, []fabric.HostIntent) (*report.Report, error) {
	return func(ctx context.Context, hs []fabric.HostIntent) (*report.Report, error) {
		var hosts []check.Host
		for _, h := range hs {
			hosts = append(hosts, check.Host{Intent: h})
		}
		return check.Run(ctx, f.Metadata.Name, hosts, check.Options{Suites: []report.Suite{report.SuitePreflight}, Checks: f.Spec.Checks, Launcher: l})
	}
}

// TestSweepMapsNodesAndDrains: Sweep runs the preflight on the labelled nodes, logs the step and,
// with drain, drains the node of the failed host (lab-h2 on gpu02) alone; hosts outside only
// (lab-h4) are left out.
func TestSweepMapsNodesAndDrains(t *testing.T) {
	f := sweepFabric(t)
	c := newSim(t, "gpu[01-04]", "gpu02")
	var mu sync.Mutex
	var logs []string
	l := &slurm.Launcher{Run: c, Log: func(format string, a ...any) {
		mu.Lock()
		defer mu.Unlock()
		logs = append(logs, fmt.Sprintf(format, a...))
	}}
	rep, err := slurm.Sweep(t.Context(), f, "sweep.yaml", l, []string{"lab-h1", "lab-h2", "lab-h3"}, true, preflightRun(f, l))
	if err != nil {
		t.Fatal(err)
	}
	if st := c.Steps(); len(st) != 1 || !slices.Equal(st[0].Nodes, []string{"gpu01", "gpu02", "gpu03"}) {
		t.Fatalf("srun steps %+v, want one preflight on gpu01..gpu03", st)
	}
	for _, v := range rep.HostVerdicts([]string{"lab-h1", "lab-h2", "lab-h3"}) {
		if v.Failed != (v.Host == "lab-h2") {
			t.Errorf("verdict %+v", v)
		}
	}
	if n, _ := c.Get("gpu02"); !slices.Contains(n.Flags, "DRAIN") {
		t.Errorf("gpu02 not drained: %+v", n)
	}
	if tr := c.Transcript(); len(tr) != 1 {
		t.Errorf("scontrol updates %q, want the one drain", tr)
	}
	joined := strings.Join(logs, "\n")
	if !strings.Contains(joined, "srun step ") || !strings.Contains(joined, "slurm: drain gpu02") {
		t.Errorf("log lacks the step or the drain:\n%s", joined)
	}

	l2 := &slurm.Launcher{Run: c}
	if _, err := slurm.Sweep(t.Context(), f, "sweep.yaml", l2, []string{"nope"}, false, preflightRun(f, l2)); !errors.Is(err, check.ErrNoHosts) || !strings.Contains(err.Error(), "sweep.yaml") {
		t.Errorf("no host selected: err = %v, want ErrNoHosts naming the file", err)
	}
}

func TestSelfNode(t *testing.T) {
	env := map[string]string{}
	getenv := func(k string) string { return env[k] }
	hostname := func() (string, error) { return "gpu07.cluster.example", nil }
	if got := slurm.SelfNode(getenv, hostname, ""); got != "gpu07" {
		t.Errorf("no env, no node: %q, want the short host name", got)
	}
	if got := slurm.SelfNode(getenv, hostname, "n7"); got != "n7" {
		t.Errorf("fabric node: %q, want n7", got)
	}
	env["SLURMD_NODENAME"] = "gpu08"
	if got := slurm.SelfNode(getenv, hostname, "n7"); got != "gpu08" {
		t.Errorf("SLURMD_NODENAME: %q, want gpu08", got)
	}
}

// TestDrainSelf: an unhealthy check drains the node, a healthy one resumes it, an undecided
// one changes nothing.
func TestDrainSelf(t *testing.T) {
	c := newSim(t, "gpu[01-02]")
	var logs []string
	logf := func(format string, a ...any) { logs = append(logs, fmt.Sprintf(format, a...)) }
	slurm.DrainSelf(t.Context(), slurm.Client{Run: c}, "", "gpu01", nhc.Verdict{Code: nhc.Unknown, Reason: "budget spent"}, logf)
	if tr := c.Transcript(); len(tr) != 0 || len(logs) != 0 {
		t.Errorf("undecided: updates %q, logs %q, want none", tr, logs)
	}
	slurm.DrainSelf(t.Context(), slurm.Client{Run: c}, "n1", "gpu01", nhc.Verdict{Code: nhc.Unhealthy, Reason: "preflight/rdma-device n1: no device"}, logf)
	if n, _ := c.Get("gpu01"); !slices.Contains(n.Flags, "DRAIN") || !strings.Contains(n.Reason, "no device") {
		t.Errorf("unhealthy: gpu01 %+v, want drained with the reason", n)
	}
	slurm.DrainSelf(t.Context(), slurm.Client{Run: c}, "n1", "gpu01", nhc.Verdict{Code: nhc.Healthy}, logf)
	if n, _ := c.Get("gpu01"); slices.Contains(n.Flags, "DRAIN") {
		t.Errorf("healthy: gpu01 %+v, want resumed", n)
	}
	if len(logs) != 2 || !strings.HasPrefix(logs[0], "slurm: drain gpu01") || !strings.HasPrefix(logs[1], "slurm: resume gpu01") {
		t.Errorf("logs %q, want the drain and the resume", logs)
	}
}
