//go:build lab

package lab

// End-to-end tests against real VMs: `make lab-test` (go test -tags lab ./lab/). They need root,
// qemu-system-x86_64, ip, dpkg-deb and apt-get with a Debian 12 mirror. Without them the test
// skips loudly, or fails when LAB_REQUIRED=1 (as make lab-test sets it).

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fabricctl/fabricctl/lab/image"
)

func phaseLog(t *testing.T, name string, d time.Duration) {
	t.Helper()
	fmt.Fprintf(os.Stderr, "lab: phase %-22s %6.1fs\n", name, d.Seconds())
}

func needLab(t *testing.T) {
	t.Helper()
	var missing []string
	if os.Geteuid() != 0 {
		missing = append(missing, "root")
	}
	for _, tool := range []string{"qemu-system-x86_64", "ip", "dpkg-deb", "apt-get"} {
		if _, err := exec.LookPath(tool); err != nil {
			missing = append(missing, tool)
		}
	}
	if len(missing) == 0 {
		return
	}
	msg := "SOFT-ROCE LAB TESTS NOT RUN: missing " + strings.Join(missing, ", ") + " (run lab/scripts/install-deps.sh as root)"
	if os.Getenv("LAB_REQUIRED") == "1" {
		t.Fatal(msg)
	}
	fmt.Fprintln(os.Stderr, "***", msg, "***")
	t.Skip(msg)
}

func testLog() *slog.Logger {
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
}

func TestLab(t *testing.T) {
	needLab(t)
	ctx, cancel := context.WithTimeout(t.Context(), 13*time.Minute)
	defer cancel()
	log := testLog()

	b := &image.Builder{Log: log}
	img, err := b.Build(ctx)
	if err != nil {
		t.Fatalf("building the image: %v", err)
	}
	phaseLog(t, "package fetch", img.FetchTime)
	phaseLog(t, "image build", img.BuildTime)
	if img.Reused {
		fmt.Fprintln(os.Stderr, "lab: image reused from the cache (inputs unchanged)")
	}
	again, err := b.Build(ctx)
	if err != nil || !again.Reused || again.Hash != img.Hash {
		t.Fatalf("second build did not reuse the image: reused=%v err=%v", again.Reused, err)
	}

	t.Run("BootWatchdog", func(t *testing.T) { testBootWatchdog(ctx, t, img) })

	opts := Options{StateDir: "/run/fabricctl-lab-test", Netns: "fabricctl-labtest"}
	_ = Down(ctx, opts.StateDir, opts.Netns, nil)
	t0 := time.Now()
	s, err := Up(ctx, DefaultTopology(), img, opts, log)
	if err != nil {
		t.Fatalf("lab up: %v", err)
	}
	phaseLog(t, "boot+ssh (4 VMs)", time.Since(t0))
	for _, v := range s.VMs {
		fmt.Fprintf(os.Stderr, "lab: %s reachable over ssh %.1fs after qemu start\n", v.Name, v.BootSeconds)
	}
	t.Cleanup(func() {
		if err := s.Down(context.Background(), log); err != nil {
			t.Errorf("lab down: %v", err)
		}
		if netnsExists(opts.Netns) {
			t.Errorf("namespace %s still exists after down", opts.Netns)
		}
	})

	t.Run("Exec", func(t *testing.T) { testExec(ctx, t, opts.StateDir) })
	for _, name := range []string{"smoke", "perftest", "lossy"} {
		t.Run(name, func(t *testing.T) {
			t0 := time.Now()
			res, err := s.RunScenario(ctx, name, log)
			phaseLog(t, "scenario "+name, time.Since(t0))
			if err != nil {
				t.Fatalf("scenario %s: %v", name, err)
			}
			f, err := os.Open(s.ResultPath(name))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			got, err := DecodeResult(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range got.Checks {
				if !c.Passed {
					t.Errorf("check %q failed: %s", c.Name, c.Detail)
				}
			}
			if got.Passed != res.Passed || !got.Passed {
				t.Errorf("scenario %s passed=%v (file %v)", name, res.Passed, got.Passed)
			}
			assertScenario(t, s, got)
		})
	}
	t.Run("Faults", func(t *testing.T) { testFaults(ctx, t, s) })
	t.Run("HungVMIsKilled", func(t *testing.T) { testHungVM(ctx, t, s) })
}

// testFaults: a host fault puts netem on RoCE v2 in the guest; a link fault
// also on the machine side of the host's tap (both ends of the link). Each
// leaves SSH working, is recorded, and clear takes it off again. Where the
// machine's kernel has no netem (this 2-core machine's has none), the
// machine side of a loss fault is an nftables rule dropping that share of
// RoCE v2 packets; without nft either, the link fault must fail with
// ErrNoNetem and leave nothing behind: its guest side rolled back, nothing
// recorded.
func testFaults(ctx context.Context, t *testing.T, s *State) {
	v := s.VMs[1]
	guestQdiscs := func() string {
		g, err := s.Output(ctx, v.Name, "tc qdisc show dev eth0; tc filter show dev eth0")
		if err != nil {
			t.Fatalf("reading the guest's qdiscs: %v", err)
		}
		return string(g)
	}
	tapQdiscs := func() string {
		out, err := exec.CommandContext(ctx, "ip", "netns", "exec", s.Netns, "sh", "-c",
			"tc qdisc show dev "+v.Tap+"; tc filter show dev "+v.Tap).CombinedOutput()
		if err != nil {
			t.Fatalf("reading %s's qdiscs: %v: %s", v.Tap, err, out)
		}
		return string(out)
	}
	roceOnly := func(where, out string) {
		t.Helper()
		if !strings.Contains(out, "netem") || !strings.Contains(out, "loss 5%") || !strings.Contains(out, "dport 4791") &&
			!strings.Contains(out, "match 000012b7/0000ffff") {
			t.Errorf("%s: no RoCE-only netem:\n%s", where, out)
		}
	}
	if _, err := s.AddFault(ctx, "link/no-such-host", []string{"loss", "5%"}); !errors.Is(err, ErrBadFault) {
		t.Fatalf("unknown target: %v", err)
	}
	defer s.ClearFaults(context.WithoutCancel(ctx))
	// cycle adds target's fault (points egress points), runs check, and clears it.
	cycle := func(target string, points int, check func()) {
		t.Helper()
		f, err := s.AddFault(ctx, target, []string{"loss", "5%"})
		if err != nil {
			t.Fatal(err)
		}
		check()
		if _, err := s.Output(ctx, v.Name, "true"); err != nil {
			t.Errorf("%s: SSH through a RoCE-only fault: %v", target, err)
		}
		if got, err := s.Faults(); err != nil || len(got) != 1 || got[0].Target != target || len(got[0].Points) != points {
			t.Errorf("%s: recorded faults %+v %v", target, got, err)
		}
		cleared, err := s.ClearFaults(ctx)
		if err != nil || len(cleared) != 1 || cleared[0].Target != f.Target {
			t.Fatalf("%s: clear: %+v %v", target, cleared, err)
		}
		if g := guestQdiscs(); strings.Contains(g, "netem") {
			t.Errorf("%s: netem left in the guest after clear:\n%s", target, g)
		}
		if got, _ := s.Faults(); len(got) != 0 {
			t.Errorf("%s: faults still recorded: %+v", target, got)
		}
	}

	cycle("host/"+v.Name, 1, func() { roceOnly("guest eth0", guestQdiscs()) })

	target := "link/" + v.Name
	if _, err := s.AddFault(ctx, target, []string{"loss", "5%"}); errors.Is(err, ErrNoNetem) {
		if !strings.Contains(err.Error(), "host/NAME") {
			t.Errorf("the error does not say what still works: %v", err)
		}
		if g := guestQdiscs(); strings.Contains(g, "netem") {
			t.Errorf("the guest side was not rolled back:\n%s", g)
		}
		if got, _ := s.Faults(); len(got) != 0 {
			t.Errorf("a failed fault was recorded: %+v", got)
		}
		t.Logf("the machine side of a link fault is not tested here: %v", err)
		return
	} else if err != nil {
		t.Fatal(err)
	}
	if _, err := s.ClearFaults(ctx); err != nil {
		t.Fatal(err)
	}
	// tapNft lists the nftables loss rule that stands in for netem on the machine side where
	// its kernel has no netem qdisc ("" when there is none).
	tapNft := func() string {
		out, err := exec.CommandContext(ctx, "ip", "netns", "exec", s.Netns, "nft", "list", "table", "bridge",
			bridgeLossTable(v.Tap)).Output()
		if err != nil { // no such table (or no nft): no rule
			return ""
		}
		return string(out)
	}
	cycle(target, 2, func() {
		roceOnly("guest eth0", guestQdiscs())
		if tap := tapQdiscs(); strings.Contains(tap, "netem") {
			roceOnly(v.Tap, tap)
			return
		}
		// No netem on this machine: 5 % of the RoCE v2 packets leaving the tap are dropped.
		if nft := tapNft(); !strings.Contains(nft, "udp dport 4791") || !strings.Contains(nft, "< 500") ||
			!strings.Contains(nft, "drop") {
			t.Errorf("%s: neither RoCE-only netem nor the nftables loss rule:\n%s\n%s", v.Tap, tapQdiscs(), nft)
		}
	})
	if tap := tapQdiscs(); strings.Contains(tap, "netem") {
		t.Errorf("netem left on %s after clear:\n%s", v.Tap, tap)
	}
	if nft := tapNft(); nft != "" {
		t.Errorf("nftables loss rule left on %s after clear:\n%s", v.Tap, nft)
	}
}

// assertScenario checks the facts users rely on in each scenario's JSON, independently of the
// scenario's own checks.
func assertScenario(t *testing.T, s *State, r *Result) {
	t.Helper()
	byName := map[string]Perftest{}
	for _, p := range r.Perftests {
		byName[p.Name] = p
	}
	switch r.Scenario {
	case "smoke":
		if len(r.Hosts) != len(s.VMs) {
			t.Fatalf("%d hosts in the result, lab has %d", len(r.Hosts), len(s.VMs))
		}
		for i, h := range r.Hosts {
			want := IPv4GID(s.VMs[i].Address.As4())
			found := false
			for _, d := range h.Devices {
				for _, p := range d.Ports {
					for _, g := range p.GIDs {
						found = found || (d.Name == "rxe0" && g.GID == want && g.Type == "RoCE v2")
					}
				}
			}
			if h.Host != s.VMs[i].Name || !found {
				t.Errorf("host %s: no rxe0 RoCE v2 GID %s", h.Host, want)
			}
		}
	case "perftest":
		wb := byName["write_bw"]
		if wb.Client == wb.Server || !wb.ClientSide.OK() || wb.ClientSide.Result.BWAvg <= 0 || wb.ServerSide.Counters["rcvd_pkts"] <= 0 {
			t.Errorf("write_bw between two VM-hosts: %+v", wb)
		} else {
			fmt.Fprintf(os.Stderr, "lab: ib_write_bw %s -> %s: %.3f Gb/s\n", wb.Client, wb.Server, wb.ClientSide.Result.BWAvg)
		}
		for _, n := range []string{"read_lat", "send_lat", "write_lat"} {
			l := byName[n]
			if !l.ClientSide.OK() || l.ClientSide.Result.TTypicalUS <= 0 {
				t.Errorf("%s: %+v", n, l.ClientSide)
			} else {
				fmt.Fprintf(os.Stderr, "lab: %s %s -> %s: typical %.1f us\n", n, l.Client, l.Server, l.ClientSide.Result.TTypicalUS)
			}
		}
		cm := byName["write_bw_cm"]
		if !cm.ClientSide.OK() {
			t.Errorf("rdma_cm write_bw across VMs: %+v", cm.ClientSide)
		} else {
			fmt.Fprintf(os.Stderr, "lab: ib_write_bw -R across VMs: %.3f Gb/s after %d attempt(s)\n", cm.ClientSide.Result.BWAvg, cm.ClientSide.Attempts)
		}
		if lp := byName["loop_write_bw"]; !lp.Loopback || !lp.ClientSide.OK() {
			t.Errorf("loopback write_bw: %+v", lp)
		}
	case "lossy":
		base, loss, bh := byName["baseline_write_bw_4k"], byName["lossy_write_bw_4k"], byName["blackhole_write_bw_4k"]
		if !base.ClientSide.OK() || !loss.ClientSide.OK() {
			t.Fatalf("baseline or lossy run failed: %+v %+v", base.ClientSide, loss.ClientSide)
		}
		fmt.Fprintf(os.Stderr, "lab: lossy: baseline %.4f Gb/s, %d%% loss %.4f Gb/s; completer_retry_err +%d vs +%d; out_of_seq_request +%d vs +%d\n",
			base.ClientSide.Result.BWAvg, LossPercent, loss.ClientSide.Result.BWAvg,
			loss.ClientSide.Counters["completer_retry_err"], base.ClientSide.Counters["completer_retry_err"],
			loss.ServerSide.Counters["out_of_seq_request"], base.ServerSide.Counters["out_of_seq_request"])
		if loss.ClientSide.Result.BWAvg >= base.ClientSide.Result.BWAvg {
			t.Errorf("loss did not lower bandwidth")
		}
		if !bh.ClientSide.TimedOut || bh.ClientSide.Result != nil {
			t.Errorf("black hole did not end in a timeout: %+v", bh.ClientSide)
		}
		if len(r.Netem) == 0 || r.Netem[0].Dropped == 0 {
			t.Errorf("netem shows no drops: %+v", r.Netem)
		}
	}
}

// testExec: commands run over real SSH with strict host key checking; a wrong known_hosts entry
// is refused.
func testExec(ctx context.Context, t *testing.T, dir string) {
	s, err := Load(dir) // as another process would
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	out, err := s.Output(ctx, "lab-h3", "hostname; ip -4 -o addr show dev eth0")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(out), "lab-h3\n") || !strings.Contains(string(out), "10.99.0.13/24") {
		t.Errorf("lab-h3 says %q", out)
	}
	err = s.Run(ctx, "lab-h3", "exit 3", io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "3") {
		t.Errorf("exit status not reported: %v", err)
	}
	// swap two hosts' keys in a copy of known_hosts: the handshake must fail
	bad, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	bad.KnownHosts = t.TempDir() + "/known_hosts"
	v1, v2 := s.VMs[0], s.VMs[1]
	v1.HostKey = v2.HostKey
	kh, err := knownHostsLines([]VM{v1})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad.KnownHosts, []byte(kh), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := bad.Connect(ctx, v1.Name); err == nil || !strings.Contains(err.Error(), "key") {
		t.Errorf("wrong host key accepted: %v", err)
	}
}

// testBootWatchdog: a VM that cannot come up within its bound is killed and reported with its
// console, and nothing is left behind.
func testBootWatchdog(ctx context.Context, t *testing.T, img image.Image) {
	topo := DefaultTopology()
	topo.Hosts = topo.Hosts[:1]
	opts := Options{StateDir: "/run/fabricctl-lab-watchdog", Netns: "fabricctl-labwd", BootTimeout: 3 * time.Second}
	t0 := time.Now()
	_, err := Up(ctx, topo, img, opts, nil)
	took := time.Since(t0)
	if !errors.Is(err, ErrVMHung) || !strings.Contains(err.Error(), "lab-h1") || !strings.Contains(err.Error(), "console tail") {
		t.Fatalf("err = %v, want ErrVMHung naming lab-h1 with its console", err)
	}
	if took > 30*time.Second {
		t.Errorf("watchdog took %s", took)
	}
	if netnsExists(opts.Netns) {
		t.Errorf("namespace left behind")
	}
	if _, err := Load(opts.StateDir); !errors.Is(err, ErrNotRunning) {
		t.Errorf("state left behind: %v", err)
	}
}

// testHungVM: a VM that stops answering during a run is found by the watchdog, killed and named.
func testHungVM(ctx context.Context, t *testing.T, s *State) {
	v := s.VMs[len(s.VMs)-1]
	if err := syscall.Kill(v.Pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	err := s.reapHung(ctx, testLog())
	if !errors.Is(err, ErrVMHung) || !strings.Contains(err.Error(), v.Name) {
		t.Fatalf("err = %v, want ErrVMHung naming %s", err, v.Name)
	}
	if alive(v) {
		t.Errorf("%s still alive after the watchdog", v.Name)
	}
	fmt.Fprintf(os.Stderr, "lab: hung %s detected and killed in %.1fs\n", v.Name, time.Since(t0).Seconds())
}

// TestLabPackageNotServed asks the real mirror for a version it does not have: the error names
// the package and the version the mirror offers, quickly.
func TestLabPackageNotServed(t *testing.T) {
	needLab(t)
	t0 := time.Now()
	_, err := image.Fetcher{Dir: t.TempDir()}.Fetch(t.Context(), []image.Package{{Name: "perftest", Version: "0.0-not-a-version"}})
	if !errors.Is(err, image.ErrNotServed) || !strings.Contains(err.Error(), "perftest=0.0-not-a-version") || !strings.Contains(err.Error(), "mirror offers") {
		t.Fatalf("err = %v", err)
	}
	if d := time.Since(t0); d > time.Minute {
		t.Errorf("took %s", d)
	}
	t.Log(err)
}
