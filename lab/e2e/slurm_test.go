//go:build lab

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/fabricctl/fabricctl/action/launch/slurm"
	"github.com/fabricctl/fabricctl/checks"
	"github.com/fabricctl/fabricctl/checks/report"
	"github.com/fabricctl/fabricctl/lab"
)

const (
	slurmFabric = "lab/e2e/testdata/slurm-fabric.yaml"
	// broken is the VM whose RDMA device the test deletes.
	broken = "lab-h3"
	// hcInterval is slurm.conf's HealthCheckInterval in this test: short, so that Slurm's own
	// health check notices the broken device soon, long enough not to load the emulated VMs.
	hcInterval = 15 * time.Second
	// hcWait bounds a wait for Slurm's periodic health check to act. slurmctld starts a health
	// check cycle only when HealthCheckInterval has passed AND its last ping cycle is done
	// (is_ping_done() in _slurmctld_background, Slurm 22.05 controller.c): on a loaded 2-core
	// machine the emulated slurmds answer pings slowly and cycles are skipped. A run on a busy
	// machine saw one health check among four nodes in 100 s. The wait ends at the event.
	hcWait = 8*hcInterval + 90*time.Second
)

// upSlurm builds the static fabricctl and boots the four lab VM-hosts with Slurm.
func upSlurm(t *testing.T, ctx context.Context) *harness {
	t.Helper()
	needLab(t)
	h := newHarness(t, ctx)
	t0 := time.Now()
	r := h.fabricctlHost(ctx, "lab", "up", "--slurm", "--health-check-interval", hcInterval.String())
	if r.code != 0 {
		t.Fatalf("fabricctl lab up --slurm: %v", r)
	}
	phase("lab up --slurm (4 VMs)", time.Since(t0))
	t.Cleanup(func() {
		if r := h.fabricctlHost(context.Background(), "lab", "down"); r.code != 0 {
			t.Errorf("fabricctl lab down: %v", r)
		}
	})
	s, err := lab.Load("")
	if err != nil {
		t.Fatal(err)
	}
	if s.Slurm == nil {
		t.Fatal("lab up --slurm recorded no Slurm cluster")
	}
	h.s = s
	t.Cleanup(s.Close)
	h.env = append(os.Environ(), s.SlurmEnv()...)
	return h
}

// nodes reads the Slurm node states.
func (h *harness) nodes(ctx context.Context) map[string]slurm.Node {
	h.t.Helper()
	ns, err := slurm.Client{Run: h.s.SlurmRunner()}.Nodes(ctx)
	if err != nil {
		h.t.Fatal(err)
	}
	out := map[string]slurm.Node{}
	for _, n := range ns {
		out[n.Name] = n
	}
	return out
}

// waitFor polls cond (every second) until it holds or bound passes; what is the event awaited.
func (h *harness) waitFor(ctx context.Context, what string, bound time.Duration, cond func() (bool, string)) {
	h.t.Helper()
	t0 := time.Now()
	last := ""
	for time.Since(t0) < bound {
		ok, state := cond()
		last = state
		if ok {
			phase("wait: "+what, time.Since(t0))
			return
		}
		select {
		case <-ctx.Done():
			h.t.Fatalf("waiting for %s: %v (last: %s)", what, ctx.Err(), last)
		case <-time.After(time.Second):
		}
	}
	h.t.Fatalf("%s: not within %s (last: %s)", what, bound, last)
}

// healthLog is the lab health check's log of one VM (lab/image/guest/bin/fabricctl-healthcheck).
func (h *harness) healthLog(host string) []string {
	v, err := h.s.VM(host)
	if err != nil {
		h.t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(v.Share, "out", "healthcheck.log"))
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if strings.Contains(l, " rc=") {
			out = append(out, l)
		}
	}
	return out
}

// squeezePasses folds each run of passing health checks into one line, so that a failure's dump
// stays short and CI's tail of the output still shows the assertion that failed.
func squeezePasses(lines []string) []string {
	var out []string
	n, first := 0, ""
	flush := func(last string) {
		switch {
		case n == 1:
			out = append(out, first)
		case n > 1:
			out = append(out, fmt.Sprintf("%s … %s: %d passing checks", strings.Fields(first)[0], strings.Fields(last)[0], n))
		}
		n = 0
	}
	prev := ""
	for _, l := range lines {
		if strings.Contains(l, "rc=0 fabric=yes") && len(strings.Fields(l)) > 0 {
			if n == 0 {
				first = l
			}
			n++
			prev = l
			continue
		}
		flush(prev)
		out = append(out, l)
	}
	flush(prev)
	return out
}

// sweep runs check --launcher slurm and decodes its JSON report. The relative floor is a tenth:
// under emulation on a loaded machine healthy pairs differ by 2–3× (docs/lab.md), and this test
// is about which node is broken, not about bandwidth.
func (h *harness) sweep(ctx context.Context, extra ...string) (result, *report.Report) {
	h.t.Helper()
	args := append([]string{"check", "--launcher", "slurm", "--node-bin", lab.GuestFabricctl, "-f", slurmFabric,
		"--suite", "preflight,pairwise", "--relative-floor", "0.1", "--drain", "-o", "json"}, extra...)
	r := h.fabricctl(ctx, args...)
	var rep report.Report
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		h.t.Fatalf("check --launcher slurm: no JSON report: %v\n%v", err, r)
	}
	return r, &rep
}

// TestLabSlurm runs fabricctl under a real Slurm 22.05: slurmctld in the lab namespace, slurmd
// in every VM with `fabricctl check --local -o nhc --drain` as its HealthCheckProgram.
//
//  1. Healthy: every node's health check passes (no drain), and the sweep through srun (the
//     preflight as one step, each ring round as one step) passes with no node drained.
//     The NCCL suite through srun probes every node in one step and skips each (no GPU).
//  2. lab-h3's rxe0 is deleted: Slurm's periodic health check drains lab-h3 by itself, with
//     the reason fabricctl printed; the other nodes stay in service.
//  3. In a maintenance allocation holding every node (draining lab-h3 included), the sweep
//     through srun flags lab-h3's preflight and exactly lab-h3's pairs.
//  4. The local check with the loopback suite answers on a VM within its budget.
//  5. rxe0 back: the health check resumes lab-h3, which fabricctl had drained.
func TestLabSlurm(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 14*time.Minute)
	defer cancel()
	tall := time.Now()
	h := upSlurm(t, ctx)
	fab, err := os.ReadFile(filepath.Join(h.root, slurmFabric))
	if err != nil {
		t.Fatal(err)
	}
	if err := h.s.SetSlurmFabric(fab); err != nil {
		t.Fatal(err)
	}
	hosts := h.s.Topology.SortedHosts()
	t.Cleanup(func() {
		if t.Failed() {
			for _, host := range hosts {
				t.Logf("%s healthcheck.log:\n%s", host, strings.Join(squeezePasses(h.healthLog(host)), "\n"))
			}
		}
	})

	// 1. every node's health check runs against the fabric and passes
	h.waitFor(ctx, "a passing health check with the fabric on every node", hcWait, func() (bool, string) {
		var missing []string
		for _, host := range hosts {
			ok := false
			for _, l := range h.healthLog(host) {
				if strings.Contains(l, "rc=0 fabric=yes") {
					ok = true
				}
				if strings.Contains(l, "fabric=yes") && !strings.Contains(l, "rc=0") {
					t.Fatalf("%s: the health check of a healthy node failed: %s", host, l)
				}
			}
			if !ok {
				missing = append(missing, host)
			}
		}
		return len(missing) == 0, "waiting for " + strings.Join(missing, ",")
	})
	for name, n := range h.nodes(ctx) {
		if n.Drained() {
			t.Errorf("healthy node %s is drained: %s", name, n.Reason)
		}
	}
	t0 := time.Now()
	r, rep := h.sweep(ctx)
	phase("healthy sweep via srun", time.Since(t0))
	if r.code != 0 {
		t.Errorf("healthy sweep: exit %d, want 0\n%s", r.code, r.stderr)
	}
	for _, res := range rep.Results {
		if res.Status == checks.StatusFail || res.Status == checks.StatusError {
			t.Errorf("healthy sweep: %s %s %s: %s", res.ID, res.Target, res.Status, res.Summary)
		}
	}
	if len(rep.Pairs) != 4 {
		t.Errorf("healthy sweep: %d pairs, want the ring's 4", len(rep.Pairs))
	}
	for _, p := range rep.Pairs {
		if p.Status != checks.StatusPass && p.Status != checks.StatusWarn {
			t.Errorf("healthy sweep: pair %s %s: %s %q", p.Target(), p.Status, p.Summary, p.Evidence)
		}
	}
	if !regexp.MustCompile(`step preflight-\d+: srun on 4 node\(s\) lab-h\[1-4\]`).MatchString(r.stderr) ||
		strings.Count(r.stderr, "step round-") < 2 {
		t.Errorf("the sweep did not run as srun steps (preflight on 4 nodes, a step per round):\n%s", r.stderr)
	}
	for name, n := range h.nodes(ctx) {
		if n.Drained() {
			t.Errorf("after the healthy sweep with --drain, %s is drained: %s", name, n.Reason)
		}
	}

	// 1b. the NCCL suite through srun: a probe step on every node, which has RDMA but no GPU, so
	// each host is a clear skip (not an error, not "no NCCL step under this launcher") and no
	// all-reduce step starts
	t0 = time.Now()
	r = h.fabricctl(ctx, "check", "--launcher", "slurm", "--node-bin", lab.GuestFabricctl, "-f", slurmFabric, "--suite", "nccl", "-o", "json")
	phase("nccl suite via srun (no GPU: skip)", time.Since(t0))
	h.ncclSkips(r, hosts)

	// 2. a maintenance allocation first (it holds lab-h3 while it drains), then break lab-h3
	var out, errb bytes.Buffer
	if err := h.s.SlurmRunner().Run(ctx, "salloc", []string{"--nodes=4", "--no-shell", "--time=20", "--job-name=fabricctl-maint"}, nil, &out, &errb); err != nil {
		t.Fatalf("salloc: %v\n%s", err, errb.String())
	}
	m := regexp.MustCompile(`Granted job allocation (\d+)`).FindStringSubmatch(out.String() + errb.String())
	if m == nil {
		t.Fatalf("salloc: no job id in %q", out.String()+errb.String())
	}
	job := m[1]
	t.Cleanup(func() { _ = h.s.SlurmRunner().Run(context.Background(), "scancel", []string{job}, nil, nil, nil) })
	h.mustVM(ctx, broken, "rdma link delete rxe0")
	t0 = time.Now()
	h.waitFor(ctx, "Slurm drains "+broken+" through its health check", hcWait, func() (bool, string) {
		// while rxe0 is being removed its port vanishes first (a port-down drain); the reason
		// follows the next checks
		n := h.nodes(ctx)[broken]
		return slurm.DrainedByUs(n) && strings.HasPrefix(n.Reason, "fabricctl: preflight/rdma-device "), n.StateString() + " " + n.Reason
	})
	phase("break → drained by the health check", time.Since(t0))
	nodes := h.nodes(ctx)
	if n := nodes[broken]; !strings.HasPrefix(n.Reason, "fabricctl: preflight/rdma-device "+broken+"/eth0") {
		t.Errorf("%s drained with reason %q, want fabricctl's: preflight/rdma-device %s/eth0 …", broken, n.Reason, broken)
	}
	for name, n := range nodes {
		if name != broken && n.Drained() {
			t.Errorf("%s was drained too: %s", name, n.Reason)
		}
	}
	// A health check that runs while rxe0 is being deleted may read the device and then fail to
	// read its settings: it cannot decide (rc=2, which changes nothing in Slurm). That one check,
	// before the first failure, is the removal seen half-way; once the device is gone every
	// check must decide.
	drained, straddling := false, 0
	for _, l := range h.healthLog(broken) {
		if regexp.MustCompile(`rc=1 fabric=yes ERROR: fabricctl: preflight/rdma-device lab-h3/eth0: netdev eth0 has no RDMA device`).MatchString(l) {
			drained = true
		}
		if strings.Contains(l, "rc=2") {
			if straddling++; drained || straddling > 1 {
				t.Errorf("%s's health check could not decide: %s", broken, l)
			} else {
				t.Logf("%s's health check during the removal could not decide: %s", broken, l)
			}
		}
	}
	if !drained {
		t.Errorf("%s's health check never answered rc=1 with the one ERROR line naming eth0's missing RDMA device", broken)
	}
	if dir := os.Getenv("FABRICCTL_CAPTURE_DIR"); dir != "" {
		var show bytes.Buffer
		_ = h.s.SlurmRunner().Run(ctx, "scontrol", []string{"show", "node"}, nil, &show, nil)
		_ = os.WriteFile(filepath.Join(dir, "lab-22.05.txt"), show.Bytes(), 0o644)
	}

	// 3. the sweep in the allocation: srun reaches the draining lab-h3 too
	t0 = time.Now()
	r, rep = h.sweep(ctx, "--slurm-job", job)
	phase("sweep in the allocation via srun", time.Since(t0))
	if r.code != 2 {
		t.Errorf("sweep with %s broken: exit %d, want 2 (failures)\n%s", broken, r.code, r.stderr)
	}
	for _, res := range rep.Results {
		bad := res.Status == checks.StatusFail || res.Status == checks.StatusError
		if bad && !(report.HostOf(res.Target) == broken && res.ID == "preflight/rdma-device") {
			t.Errorf("sweep: %s %s %s: %s %q", res.ID, res.Target, res.Status, res.Summary, res.Evidence)
		}
	}
	var got []string
	for _, p := range rep.Pairs {
		involved := p.A == broken || p.B == broken
		if involved != (p.Status == checks.StatusFail) {
			t.Errorf("pair %s: %s (%s)", p.Target(), p.Status, p.Summary)
		}
		if p.Status == checks.StatusFail {
			got = append(got, p.A+"->"+p.B)
		}
	}
	if len(got) != 2 {
		t.Errorf("failed pairs %q, want exactly %s's two ring pairs", got, broken)
	}
	if !regexp.MustCompile(`step preflight-\d+: srun on 4 node\(s\) lab-h\[1-4\]`).MatchString(r.stderr) {
		t.Errorf("the allocation's preflight did not reach every node (%s included) through srun:\n%s", broken, r.stderr)
	}
	fmt.Fprintf(os.Stderr, "lab: slurm: failed pairs %v\n", got)

	// 4. the local check with loopback, on a healthy VM and on the broken one, timed. The budget
	// is doubled: the emulated VM (1 vCPU under TCG) runs its periodic health check beside it.
	for host, want := range map[string]string{"lab-h1": "rc=0\n", broken: "rc=1\n"} {
		t0 := time.Now()
		out, _ := h.vm(ctx, host, lab.GuestFabricctl+" check --local --suite preflight,loopback -o nhc --budget 100s -f "+lab.GuestSlurmFabric+"; echo rc=$?")
		d := time.Since(t0)
		phase("check --local -o nhc on "+host, d)
		if !strings.HasSuffix(out, want) || d > 110*time.Second {
			t.Errorf("check --local --suite preflight,loopback -o nhc on %s: %q after %s, want %q", host, out, d, want)
		}
		if lines := strings.Split(strings.TrimSuffix(strings.TrimSuffix(out, want), "\n"), "\n"); want == "rc=1\n" && (len(lines) != 1 || !strings.HasPrefix(lines[0], "ERROR: fabricctl: ")) {
			t.Errorf("%s: want one ERROR line, got %q", host, lines)
		}
	}

	// 5. repaired: the health check resumes the node it drained
	h.mustVM(ctx, broken, "rdma link add rxe0 type rxe netdev eth0")
	t0 = time.Now()
	h.waitFor(ctx, "the health check resumes "+broken, hcWait, func() (bool, string) {
		n := h.nodes(ctx)[broken]
		return !n.Drained(), n.StateString() + " " + n.Reason
	})
	phase("repair → resumed by the health check", time.Since(t0))
	phase("slurm e2e total", time.Since(tall))
}

// ncclSkips checks a `check --launcher slurm --suite nccl` on the lab's GPU-less nodes: exit 0, one
// nccl/run skip per host saying there is no NVIDIA GPU, the job's verdicts skipped, nothing failed,
// the probe as one srun step on every node and no all-reduce step.
func (h *harness) ncclSkips(r result, hosts []string) {
	h.t.Helper()
	var rep report.Report
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		h.t.Fatalf("check --launcher slurm --suite nccl: no JSON report: %v\n%v", err, r)
	}
	if r.code != 0 {
		h.t.Errorf("check --launcher slurm --suite nccl without GPUs: exit %d, want 0 (skips)\n%s", r.code, r.stderr)
	}
	skipped := map[string]bool{}
	for _, res := range rep.Results {
		if res.Status != checks.StatusSkip {
			h.t.Errorf("nccl via srun: %s %s %s: %s, want a skip", res.ID, res.Target, res.Status, res.Summary)
			continue
		}
		if res.ID == "nccl/run" {
			skipped[res.Target] = true
			if !strings.HasPrefix(res.Summary, "no NVIDIA GPU: nvidia-smi not found") {
				h.t.Errorf("nccl via srun: %s skipped with %q, want the missing GPU named", res.Target, res.Summary)
			}
		}
	}
	for _, host := range hosts {
		if !skipped[host] {
			h.t.Errorf("nccl via srun: no nccl/run skip for %s: %+v", host, rep.Results)
		}
	}
	if !regexp.MustCompile(`step nccl-probe-\d+: srun on 4 node\(s\) lab-h\[1-4\]`).MatchString(r.stderr) ||
		!regexp.MustCompile(`step nccl-probe-\d+: 4 of 4 node\(s\) reported`).MatchString(r.stderr) || strings.Contains(r.stderr, "step nccl-run-") {
		h.t.Errorf("the NCCL suite did not probe every node in one srun step (and run no all-reduce):\n%s", r.stderr)
	}
}
