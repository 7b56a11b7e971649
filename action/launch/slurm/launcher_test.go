package slurm_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/fabricctl/fabricctl/action/check"
	"github.com/fabricctl/fabricctl/action/launch/slurm"
	"github.com/fabricctl/fabricctl/action/launch/task"
	"github.com/fabricctl/fabricctl/checks"
	"github.com/fabricctl/fabricctl/checks/rdma"
	"github.com/fabricctl/fabricctl/checks/report"
	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/internal/testutil"
	"github.com/fabricctl/fabricctl/testkit/slurmsim"
)

// hosts are n fabric hosts gpu01.. with the rxe fixture's desired state.
func hosts(t testing.TB, n int, labels map[string]string) []check.Host {
	base := rxeIntent(t)
	var out []check.Host
	for i := 1; i <= n; i++ {
		in := base
		in.Host = fmt.Sprintf("gpu%02d", i)
		in.Address = fmt.Sprintf("10.0.0.%d", i)
		in.Labels = labels
		out = append(out, check.Host{Intent: in})
	}
	return out
}

func names(hs []check.Host) []string {
	var out []string
	for _, h := range hs {
		out = append(out, h.Intent.Host)
	}
	return out
}

var allSuites = []report.Suite{report.SuitePreflight, report.SuiteLoopback, report.SuitePairwise}

// TestSweepThroughSrun runs preflight, loopback and the all-pairs sweep of 6 hosts through the
// Slurm launcher on a simulated Slurm with gpu03's RDMA device gone: one srun step for the
// preflight, one for the loopback and one per round (5); exactly gpu03's pairs fail; --drain
// drains gpu03 alone, and resumes it once it passes again.
func TestSweepThroughSrun(t *testing.T) {
	c := newSim(t, "gpu[01-06]", "gpu03")
	hs := hosts(t, 6, nil)
	l := &slurm.Launcher{Run: c, Bin: "/opt/fabricctl/bin/fabricctl", Partition: "maint"}
	rep, err := check.Run(t.Context(), "sim", hs, check.Options{Suites: allSuites, Launcher: l})
	if err != nil {
		t.Fatal(err)
	}
	steps := c.Steps()
	if len(steps) != 7 {
		t.Fatalf("%d srun steps, want 7 (preflight, loopback, 5 rounds)", len(steps))
	}
	if got := steps[0].Nodes; len(got) != 6 || steps[0].Spec.Kind != "preflight" {
		t.Errorf("step 1: %s on %q, want the preflight on all 6 nodes", steps[0].Spec.Kind, got)
	}
	for _, st := range steps[1:] {
		if slices.Contains(st.Nodes, "gpu03") {
			t.Errorf("a test step ran on gpu03, whose preflight failed: %q", st.Nodes)
		}
		if !slices.Contains(st.Args, "--partition=maint") || !slices.Contains(st.Args, "--exclusive") || !slices.Contains(st.Args, "--ntasks-per-node=1") {
			t.Errorf("srun args %q: want --partition=maint, --exclusive (no allocation) and one task per node", st.Args)
		}
	}
	var failed []string
	for _, p := range rep.Pairs {
		bad := p.A == "gpu03" || p.B == "gpu03"
		if bad != (p.Status == checks.StatusFail) {
			t.Errorf("pair %s: %s (%s)", p.Target(), p.Status, p.Summary)
		}
		if bad {
			failed = append(failed, p.A+"-"+p.B)
		}
	}
	if len(rep.Pairs) != 15 || len(failed) != 5 {
		t.Errorf("%d pairs with %d failed, want 15 with gpu03's 5: %q", len(rep.Pairs), len(failed), failed)
	}
	for _, v := range rep.HostVerdicts(names(hs)) {
		if v.Failed != (v.Host == "gpu03") {
			t.Errorf("verdict %+v", v)
		}
	}
	acts, err := slurm.Reconcile(t.Context(), slurm.Client{Run: c}, rep.HostVerdicts(names(hs)), nil, false)
	if err != nil {
		t.Fatal(err)
	}
	n, _ := c.Get("gpu03")
	if !slices.Contains(n.Flags, "DRAIN") || !strings.HasPrefix(n.Reason, "fabricctl: preflight/rdma-device gpu03") {
		t.Errorf("gpu03 after reconcile: %+v (actions %v)", n, acts)
	}
	if tr := c.Transcript(); len(tr) != 1 {
		t.Errorf("scontrol updates %q, want the one drain", tr)
	}

	// gpu03 repaired: a later run resumes it (it was drained by fabricctl), nothing else changes.
	c.Task = newSim(t, "x1").Task
	// a drained node is not allocatable: outside an allocation its host is not run
	rep2, err := check.Run(t.Context(), "sim", hs, check.Options{Suites: []report.Suite{report.SuitePreflight}, Launcher: &slurm.Launcher{Run: c}})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rep2.Results {
		if report.HostOf(r.Target) == "gpu03" && r.Status != checks.StatusError {
			t.Errorf("gpu03 drained: %s %s %s, want an error saying Slurm will not run it", r.ID, r.Status, r.Summary)
		}
	}
	// inside an allocation that holds gpu03 (a maintenance reservation), it runs and passes
	c.Jobs["77"] = []string{"gpu01", "gpu02", "gpu03", "gpu04", "gpu05", "gpu06"}
	la := &slurm.Launcher{Run: c, Allocation: "77", AllocationNodes: c.Jobs["77"]}
	rep3, err := check.Run(t.Context(), "sim", hs, check.Options{Suites: []report.Suite{report.SuitePreflight}, Launcher: la})
	if err != nil {
		t.Fatal(err)
	}
	if w := checks.Worst(rep3.Results); w == checks.StatusFail || w == checks.StatusError {
		t.Fatalf("repaired fleet: worst %s", w)
	}
	last := c.Steps()[len(c.Steps())-1]
	if !slices.Contains(last.Args, "--jobid=77") || slices.Contains(last.Args, "--exclusive") {
		t.Errorf("in an allocation: srun args %q, want --jobid=77 and no --exclusive", last.Args)
	}
	acts, err = slurm.Reconcile(t.Context(), slurm.Client{Run: c}, rep3.HostVerdicts(names(hs)), nil, false)
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := c.Get("gpu03"); slices.Contains(n.Flags, "DRAIN") {
		t.Errorf("gpu03 still drained after passing: %+v (%v)", n, acts)
	}
}

// TestSrunArgsGolden fixes the command line of a step.
func TestSrunArgsGolden(t *testing.T) {
	var b strings.Builder
	for _, l := range []*slurm.Launcher{
		{Bin: "/shared/bin/fabricctl", Partition: "gpu", Reservation: "maint"},
		{Allocation: "4242"},
	} {
		args := l.SrunArgs("round-3", []string{"gpu003", "gpu001", "gpu002", "gpu010"}, 40e9, []string{"task", "SPEC"})
		b.WriteString("srun " + strings.Join(args, " ") + "\n")
	}
	testutil.Golden(t, "srun-args.golden", []byte(b.String()))
}

// TestNodeLabel maps hosts to Slurm node names through the label.
func TestNodeLabel(t *testing.T) {
	c := newSim(t, "node[1-2]")
	hs := hosts(t, 2, nil)
	for i := range hs {
		hs[i].Intent.Labels = map[string]string{slurm.NodeLabel: fmt.Sprintf("node%d", i+1)}
	}
	labels := map[string]map[string]string{}
	for _, h := range hs {
		labels[h.Intent.Host] = h.Intent.Labels
	}
	l := &slurm.Launcher{Run: c, Node: func(h string) string { return slurm.NodeOf(h, labels[h]) }}
	rep, err := check.Run(t.Context(), "sim", hs, check.Options{Suites: allSuites, Launcher: l})
	if err != nil {
		t.Fatal(err)
	}
	if w := checks.Worst(rep.Results); w == checks.StatusFail || w == checks.StatusError {
		t.Errorf("worst %s: %+v", w, rep.Results)
	}
	for _, st := range c.Steps() {
		if !slices.Equal(st.Nodes, []string{"node1", "node2"}) && !slices.Equal(st.Nodes, []string{"node2", "node1"}) {
			t.Errorf("step on %q, want node1 and node2", st.Nodes)
		}
	}
	if slurm.NodeOf("gpu01", nil) != "gpu01" {
		t.Error("a host without the label is its own node")
	}
}

// TestUnknownAndSilentNodes: a host Slurm does not know is an error naming the label to set; a
// node whose task died leaves its pairs undecided, naming the node.
func TestUnknownAndSilentNodes(t *testing.T) {
	c := newSim(t, "gpu[01-03]")
	c.Silent["gpu02"] = true
	hs := hosts(t, 4, nil)
	rep, err := check.Run(t.Context(), "sim", hs, check.Options{Suites: allSuites, Launcher: &slurm.Launcher{Run: c}})
	if err != nil {
		t.Fatal(err)
	}
	var sawUnknown, sawSilent bool
	for _, r := range rep.Results {
		if r.Target == "gpu04" && strings.Contains(r.Summary, slurm.NodeLabel) {
			sawUnknown = true
		}
		if r.Target == "gpu02" && strings.Contains(r.Summary, "no result from the node") {
			sawSilent = true
		}
	}
	if !sawUnknown || !sawSilent {
		t.Errorf("want errors for gpu04 (not in Slurm) and gpu02 (no result): %+v", rep.Results)
	}
}

// TestReconcileLeavesOthersAlone: a node drained by someone else keeps its reason; an undecided
// host changes nothing; a dry run changes nothing.
func TestReconcileLeavesOthersAlone(t *testing.T) {
	c := slurmsim.New("n[1-4]")
	c.Set("n1", slurmsim.Node{State: "IDLE", Flags: []string{"DRAIN"}, Reason: "NHC: check_fs_mount: /scratch not mounted", By: "root"})
	c.Set("n4", slurmsim.Node{State: "IDLE", Flags: []string{"DRAIN"}, Reason: "fabricctl: old reason", By: "root"})
	v := []report.HostVerdict{
		{Host: "n1", Failed: true, Reason: "preflight/port-active n1/mlx5_0: port down"},
		{Host: "n2", Undecided: true},
		{Host: "n3", Failed: true, Reason: "loopback/write_bw n3/mlx5_0: low\nbandwidth"},
		{Host: "n4"},
	}
	acts, err := slurm.Reconcile(context.Background(), slurm.Client{Run: c}, v, nil, true)
	if err != nil || len(c.Transcript()) != 0 {
		t.Fatalf("dry run: %v, updates %q", err, c.Transcript())
	}
	var got []string
	for _, a := range acts {
		got = append(got, a.Do+" "+a.Node)
	}
	if want := []string{"drain n3", "resume n4", "keep n1", "keep n2"}; !slices.Equal(got, want) {
		t.Errorf("actions %q, want %q", got, want)
	}
	if _, err := slurm.Reconcile(context.Background(), slurm.Client{Run: c}, v, nil, false); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"update nodename=n3 state=drain reason=fabricctl: loopback/write_bw n3/mlx5_0: low bandwidth",
		"update nodename=n4 state=resume",
	}
	if got := c.Transcript(); !slices.Equal(got, want) {
		t.Errorf("scontrol updates:\n%q\nwant\n%q", got, want)
	}
	if n, _ := c.Get("n1"); n.Reason != "NHC: check_fs_mount: /scratch not mounted" {
		t.Errorf("n1's reason was overwritten: %+v", n)
	}
	if r := slurm.Reason(strings.Repeat("x ", 300)); len(r) > slurm.MaxReason || !strings.HasPrefix(r, "fabricctl: ") {
		t.Errorf("Reason: %d bytes %q", len(r), r)
	}
}

// TestRoundRetriesAFailedExchangeOnce: a pair whose out-of-band exchange failed runs once more
// in a step of its own; a pair that fails again is an error of the measurement (issue 11), not a
// verdict on the link.
func TestRoundRetriesAFailedExchangeOnce(t *testing.T) {
	c := newSim(t, "gpu[01-04]")
	healthy := c.Task
	tries := map[string]int{}
	c.Task = func(node string, s task.Spec) task.Result {
		r := healthy(node, s)
		for i := range r.Sides {
			sd := &r.Sides[i]
			j := s.Jobs[sd.Job]
			if sd.Role != rdma.Client {
				continue
			}
			key := j.Server.Host + "-" + j.Client.Host
			tries[key]++
			if key == "gpu01-gpu03" && tries[key] == 1 || key == "gpu02-gpu04" {
				sd.Outcome.ExitCode, sd.Outcome.Stdout = 1, ""
				sd.Outcome.Stderr = " ethernet_read_keys: Couldn't read remote address\n Unable to read to socket/rdma_cm\n"
			}
		}
		return r
	}
	hs := hosts(t, 4, nil)
	rep, err := check.Run(t.Context(), "sim", hs, check.Options{Suites: allSuites,
		Checks: &fabric.Checks{Pairwise: &fabric.Pairwise{Schedule: "halves"}}, Launcher: &slurm.Launcher{Run: c}})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range rep.Pairs {
		want := checks.StatusPass
		if p.A == "gpu02" {
			want = checks.StatusError
		}
		if p.Status != want {
			t.Errorf("pair %s: %s %s, want %s", p.Target(), p.Status, p.Summary, want)
		}
	}
	if tries["gpu01-gpu03"] != 2 || tries["gpu02-gpu04"] != 2 {
		t.Errorf("client runs %v: want each failed pair run twice", tries)
	}
}

// TestDrainLeaderLikeNHC: fabricctl's drain reasons and LBNL NHC's (testdata/nhc-reasons.txt,
// testdata/README.md) follow NHC's leader rule: the reason's first word says who drained the
// node, each resumes only its own. NHC's helpers would see fabricctl's leader, not "NHC:", and
// leave the node drained; fabricctl keeps NHC's drains and never resumes them.
func TestDrainLeaderLikeNHC(t *testing.T) {
	data, err := os.ReadFile("testdata/nhc-reasons.txt")
	if err != nil {
		t.Fatal(err)
	}
	leader := func(reason string) string { f := strings.Fields(reason); return f[0] }
	c := slurmsim.New("")
	var v []report.HostVerdict
	for i, r := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		n := fmt.Sprintf("nhc%d", i)
		c.Set(n, slurmsim.Node{State: "IDLE", Flags: []string{"DRAIN"}, Reason: r, By: "root"})
		if leader(r) != "NHC:" || slurm.DrainedByUs(slurm.Node{Flags: []string{"DRAIN"}, Reason: r}) {
			t.Errorf("NHC's reason %q: leader %q, or read as fabricctl's", r, leader(r))
		}
		v = append(v, report.HostVerdict{Host: n}, report.HostVerdict{Host: "f" + n, Failed: true, Reason: "preflight/rdma-device f/eth0:\tnetdev eth0 has no RDMA device " + strings.Repeat("é", 200)})
		c.Set("f"+n, slurmsim.Node{State: "IDLE"})
	}
	acts, err := slurm.Reconcile(context.Background(), slurm.Client{Run: c}, v, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range acts {
		n, _ := c.Get(a.Node)
		switch {
		case strings.HasPrefix(a.Node, "nhc"):
			if a.Do == "resume" || !strings.HasPrefix(n.Reason, "NHC: ") || len(n.Flags) == 0 {
				t.Errorf("%s: %s; node %+v: NHC's drain must stay", a.Node, a, n)
			}
		default:
			if a.Do != "drain" || leader(n.Reason) != "fabricctl:" || leader(n.Reason) == "NHC:" || !utf8.ValidString(n.Reason) || len(n.Reason) > slurm.MaxReason {
				t.Errorf("%s: %s; reason %q: want a drain led by fabricctl:, valid UTF-8, at most %d bytes", a.Node, a, n.Reason, slurm.MaxReason)
			}
		}
	}
}
