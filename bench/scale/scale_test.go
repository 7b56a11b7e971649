package scale

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/fabricctl/fabricctl/action/fleet"
	"github.com/fabricctl/fabricctl/agent/agentclient"
	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/internal/testutil"
	"github.com/fabricctl/fabricctl/switchcfg/all"
	"github.com/fabricctl/fabricctl/testkit/agentsim"
)

// The targets of issue 12 for 2,000 hosts on the 2-core development machine:
// plan and drift within 30 s, the controller within 1 GB.
const (
	targetHosts   = 2000
	targetSeconds = 30.0
	targetMB      = 1024.0
)

const (
	helperEnvN   = "FABRICCTL_AGENTSIM_HELPER_N"
	helperEnvSHA = "FABRICCTL_AGENTSIM_HELPER_SHA256"
	readyPrefix  = "AGENTSIM-READY "
)

var interfaces = []string{"ens1f0np0", "ens1f1np1"}

// row is one line of the curve.
type row struct {
	Hosts                       int
	Plan, Apply, Drift          time.Duration
	Changes                     int
	CtlPeakRSSMB, CtlPeakHeapMB float64
	SimPeakRSSMB                float64
	// CPU seconds (user+sys) spent during the timed part, by the
	// controller and by the servers' process: independent of machine load.
	CtlCPU, SimCPU float64
	// CPU seconds of both processes during plan and during drift alone,
	// and the controller's share of them.
	PlanCPU, DriftCPU       float64
	CtlPlanCPU, CtlDriftCPU float64
}

var (
	rowsMu sync.Mutex
	rows   []row
)

func TestMain(m *testing.M) {
	code := m.Run()
	rowsMu.Lock()
	defer rowsMu.Unlock()
	if len(rows) > 0 {
		printCurve(os.Stdout, rows)
	}
	os.Exit(code)
}

func printCurve(w io.Writer, rs []row) {
	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Fprintf(w, "\nscale curve (controller: this process; servers: a child process; %d CPUs; load average at the end %s; parallel 32)\n",
		runtime.NumCPU(), strings.Join(strings.Fields(string(load))[:min(3, len(strings.Fields(string(load))))], " "))
	fmt.Fprintf(w, "%6s %8s %8s %8s %8s %10s %10s %11s %12s %11s %12s %12s %12s %12s %10s\n", "hosts", "plan_s", "apply_s", "drift_s", "changes",
		"ctl_cpu_s", "sim_cpu_s", "plan_cpu_s", "drift_cpu_s", "ctl_plan_s", "ctl_drift_s", "ctl_peak_MB", "ctl_heap_MB", "sim_peak_MB", "total_MB")
	for _, r := range rs {
		fmt.Fprintf(w, "%6d %8.2f %8.2f %8.2f %8d %10.2f %10.2f %11.2f %12.2f %11.2f %12.2f %12.1f %12.1f %12.1f %10.1f\n", r.Hosts, r.Plan.Seconds(), r.Apply.Seconds(),
			r.Drift.Seconds(), r.Changes, r.CtlCPU, r.SimCPU, r.PlanCPU, r.DriftCPU, r.CtlPlanCPU, r.CtlDriftCPU,
			r.CtlPeakRSSMB, r.CtlPeakHeapMB, r.SimPeakRSSMB, r.CtlPeakRSSMB+r.SimPeakRSSMB)
	}
	fmt.Fprintln(w, "plan/apply/drift: wall seconds; ctl_/sim_cpu_s: user+sys CPU seconds of each process over all three;")
	fmt.Fprintln(w, "plan_/drift_cpu_s: CPU seconds of both processes in that phase (load-independent; wall >= cpu / CPUs);")
	fmt.Fprintln(w, "ctl_plan_s/ctl_drift_s: the controller's CPU seconds in that phase;")
	fmt.Fprintln(w, "ctl_peak_MB: controller VmHWM, reset per row; ctl_heap_MB: sampled peak live Go heap; sim_peak_MB: servers' VmHWM")
}

// TestFleetHelper is the servers' process: BenchmarkScale runs this test
// binary again with helperEnvN set. It starts the fleet, prints its Spec on
// one line and serves until stdin closes.
func TestFleetHelper(t *testing.T) {
	ns := os.Getenv(helperEnvN)
	if ns == "" {
		t.Skip("only runs as the benchmark's server process")
	}
	n, err := strconv.Atoi(ns)
	if err != nil {
		t.Fatalf("%s=%q: %v", helperEnvN, ns, err)
	}
	fl := agentsim.Start(t, agentsim.Options{N: n, AgentSHA256: os.Getenv(helperEnvSHA),
		Fixture: filepath.Join(testutil.RepoRoot(t), "hostcfg", "testdata", "hosts", "mlx5-ofed")})
	b, err := json.Marshal(fl.Spec)
	if err != nil {
		t.Fatal(err)
	}
	if prof := os.Getenv("SCALE_SIMPROFILE"); prof != "" {
		// The servers' CPU profile, from ready until the benchmark is done.
		f, err := os.Create(fmt.Sprintf("%s.%d", prof, n))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			t.Fatal(err)
		}
		defer pprof.StopCPUProfile()
	}
	fmt.Printf("%s%s\n", readyPrefix, b)
	io.Copy(io.Discard, os.Stdin)
}

// fleetProcess is a running server process.
type fleetProcess struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	spec  agentsim.Spec
	tmp   string // the servers' TMPDIR, removed by stop; "" for the default
}

// fixtureBytes is about what one server's copy of the fixture host takes on
// tmpfs (305 files of one page each).
const fixtureBytes = 2 << 20

// simTempDir is where the servers keep their fixture copies: a fresh
// directory on tmpfs (/dev/shm) when it has room, like the in-memory sysfs
// and configfs they stand in for. On the disk, thousands of copies turn
// each simulated sysfs write and configfs mkdir/rmdir into journal work
// shared with everything else on the machine, which the controller's wall
// time would then measure. SCALE_SIMTMP=DIR chooses the parent directory;
// SCALE_SIMTMP=- keeps the default TMPDIR.
func simTempDir(b *testing.B, n int) string {
	parent := os.Getenv("SCALE_SIMTMP")
	switch parent {
	case "-":
		return ""
	case "":
		var st syscall.Statfs_t
		if syscall.Statfs("/dev/shm", &st) != nil || st.Bavail*uint64(st.Bsize) < uint64(2*n*fixtureBytes) {
			return ""
		}
		parent = "/dev/shm"
	}
	dir, err := os.MkdirTemp(parent, "fabricctl-scale-")
	if err != nil {
		b.Fatalf("making the servers' temporary directory: %v", err)
	}
	return dir
}

func startFleet(b *testing.B, n int, sha string) *fleetProcess {
	b.Helper()
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^TestFleetHelper$", "-test.timeout=0")
	cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%d", helperEnvN, n), helperEnvSHA+"="+sha)
	tmp := simTempDir(b, n)
	if tmp != "" {
		cmd.Env = append(cmd.Env, "TMPDIR="+tmp)
	}
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		os.RemoveAll(tmp)
		b.Fatalf("starting the server process: %v", err)
	}
	p := &fleetProcess{cmd: cmd, stdin: stdin, tmp: tmp}
	sc := bufio.NewScanner(stdout)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		if line, ok := strings.CutPrefix(sc.Text(), readyPrefix); ok {
			if err := json.Unmarshal([]byte(line), &p.spec); err != nil {
				p.stop()
				b.Fatalf("decoding the fleet spec: %v", err)
			}
			go io.Copy(io.Discard, stdout)
			return p
		}
	}
	p.stop()
	b.Fatalf("the server process ended before it was ready: %v", sc.Err())
	return nil
}

// stop ends the server process and returns its peak RSS in MB.
func (p *fleetProcess) stop() float64 {
	mb := vmHWM(fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid))
	p.stdin.Close()
	done := make(chan struct{})
	go func() { p.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(2 * time.Minute):
		p.cmd.Process.Kill()
		<-done
	}
	if p.tmp != "" {
		os.RemoveAll(p.tmp)
	}
	return mb
}

// vmHWM reads a process's peak resident set size in MB (0 when unknown).
func vmHWM(statusFile string) float64 {
	b, err := os.ReadFile(statusFile)
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			kb, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 64)
			if err == nil {
				return kb / 1024
			}
		}
	}
	return 0
}

// cpuSeconds reads a process's user+sys CPU time from /proc/PID/stat
// (fields 14 and 15, in USER_HZ = 100 ticks per second).
func cpuSeconds(pid string) float64 {
	b, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return 0
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:]) // the command name may hold blanks
	if len(f) < 13 {
		return 0
	}
	ut, _ := strconv.ParseFloat(f[11], 64)
	st, _ := strconv.ParseFloat(f[12], 64)
	return (ut + st) / 100
}

// writeHeapProfile writes the live heap (after a GC) for go tool pprof.
func writeHeapProfile(b *testing.B, path string) {
	runtime.GC()
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	if err := pprof.WriteHeapProfile(f); err != nil {
		b.Fatal(err)
	}
}

// resetPeak makes VmHWM start again from the current RSS (Linux ≥ 4.0).
func resetPeak() error {
	return os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
}

// heapSampler records the peak of live heap objects every 5 ms.
type heapSampler struct {
	stop chan struct{}
	done chan float64
}

func sampleHeap() *heapSampler {
	h := &heapSampler{stop: make(chan struct{}), done: make(chan float64)}
	go func() {
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		var peak uint64
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(s)
			peak = max(peak, s[0].Value.Uint64())
			select {
			case <-h.stop:
				h.done <- float64(peak) / (1 << 20)
				return
			case <-t.C:
			}
		}
	}()
	return h
}

func (h *heapSampler) peak() float64 {
	close(h.stop)
	return <-h.done
}

// hostCounts lists the sizes to run: SCALE_N="500,1000,2000" by default.
func hostCounts(b *testing.B) []int {
	spec := os.Getenv("SCALE_N")
	if spec == "" {
		spec = "500,1000,2000"
	}
	var ns []int
	for _, f := range strings.Split(spec, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n <= 0 {
			b.Fatalf("SCALE_N=%q: %q is not a positive host count", spec, f)
		}
		ns = append(ns, n)
	}
	return ns
}

// BenchmarkScale runs the controller's plan, apply and drift against N
// simulated hosts (testkit/agentsim in a child process: real SSH, fake mlx5
// host state) with the engine's default parallelism of 32, the way
// `fabricctl plan`, `apply --yes` and `drift` do, and records wall time and
// the controller's peak memory. bench/scale.sh runs it and prints the curve.
func BenchmarkScale(b *testing.B) {
	root := testutil.RepoRoot(b)
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	// The controller delivers itself; this test binary stands in for the
	// fabricctl binary (similar size), and the servers already have it.
	d := &agentclient.Deployer{Path: exe}
	sha, err := d.Hash()
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range hostCounts(b) {
		b.Run(fmt.Sprintf("hosts=%d", n), func(b *testing.B) {
			for range b.N {
				b.StopTimer()
				r := runOnce(b, root, n, d, sha)
				b.ReportMetric(r.Plan.Seconds(), "plan-s")
				b.ReportMetric(r.Drift.Seconds(), "drift-s")
				b.ReportMetric(r.CtlPeakRSSMB, "ctl-peak-MB")
				rowsMu.Lock()
				rows = append(rows, r)
				rowsMu.Unlock()
				if n >= targetHosts {
					checkTargets(b, r)
				}
			}
		})
	}
}

// checkTargets prints the row's ratios to the targets. The machine is
// shared, so wall time alone does not fail the benchmark: it fails when the
// CPU the plan or the drift needed (both processes, spread over every CPU)
// could not fit the target even on an idle machine, or on memory.
func checkTargets(b *testing.B, r row) {
	b.Helper()
	cpus := float64(runtime.NumCPU())
	floor := max(r.PlanCPU, r.DriftCPU) / cpus
	load, _ := os.ReadFile("/proc/loadavg")
	b.Logf("%d hosts: plan %.1f s (%.2f of the %.0f s target), drift %.1f s (%.2f); CPU floor %.1f s (%.2f) on %.0f CPUs; controller peak RSS %.0f MB (%.2f of %.0f MB); load average %s",
		r.Hosts, r.Plan.Seconds(), r.Plan.Seconds()/targetSeconds, targetSeconds, r.Drift.Seconds(), r.Drift.Seconds()/targetSeconds,
		floor, floor/targetSeconds, cpus, r.CtlPeakRSSMB, r.CtlPeakRSSMB/targetMB, targetMB, strings.TrimSpace(string(load)))
	if floor > targetSeconds {
		b.Errorf("%d hosts: plan/drift need %.1f s of CPU per CPU, above the %.0f s target even on an idle machine", r.Hosts, floor, targetSeconds)
	}
	if r.CtlPeakRSSMB > targetMB {
		b.Errorf("%d hosts: controller peak RSS %.0f MB, target ≤ %.0f MB", r.Hosts, r.CtlPeakRSSMB, targetMB)
	}
}

// runOnce starts a fresh fleet, then times plan, apply and a drift run with
// fresh connections (as a later `fabricctl drift` would), and checks that the
// plan had changes on every host and the drift has none.
func runOnce(b *testing.B, root string, n int, d *agentclient.Deployer, sha string) row {
	fp := startFleet(b, n, sha)
	r := row{Hosts: n}
	defer func() {
		if r.SimPeakRSSMB == 0 {
			fp.stop()
		}
	}()
	path := filepath.Join(b.TempDir(), "fabric.yaml")
	doc := fp.spec.FabricYAML([]string{filepath.Join(root, "profiles", "roce-lossless.yaml")}, "roce-lossless", interfaces)
	if err := os.WriteFile(path, doc, 0o644); err != nil {
		b.Fatal(err)
	}
	reg := all.Registry()
	f, err := fabric.Load(path, fabric.Options{Platforms: reg})
	if err != nil {
		b.Fatalf("loading the generated fabric: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	e := &fabric.Engine{Parallel: 32}

	runtime.GC()
	debug.FreeOSMemory()
	if err := resetPeak(); err != nil {
		b.Logf("cannot reset the peak RSS (%v); it covers the whole process", err)
	}
	heap := sampleHeap()
	simPid := strconv.Itoa(fp.cmd.Process.Pid)
	ctlCPU, simCPU := cpuSeconds("self"), cpuSeconds(simPid)
	both := func() float64 { return cpuSeconds("self") + cpuSeconds(simPid) }
	b.StartTimer()

	start, cpu, ctl := time.Now(), both(), cpuSeconds("self")
	// The targets fabricctl plan builds (action/fleet), reading no
	// ~/.ssh/config.
	o := fleet.Options{Registry: reg, Deployer: d, SSHConfigFile: "none"}
	targets, closeAll, err := fleet.Targets(f, o)
	if err != nil {
		b.Fatal(err)
	}
	plan := e.Plan(ctx, targets)
	r.Plan, r.PlanCPU, r.CtlPlanCPU = time.Since(start), both()-cpu, cpuSeconds("self")-ctl
	if err := plan.Err(); err != nil {
		b.Fatalf("plan: %v", err)
	}
	for _, tp := range plan.Targets {
		if len(fabric.Actionable(tp.Changes)) == 0 {
			b.Fatalf("%s: the plan has no changes; the fixture host should differ from the profile", tp.Target)
		}
		r.Changes += len(fabric.Actionable(tp.Changes))
	}

	start = time.Now()
	res := e.Apply(ctx, targets, plan, fabric.ApplyOptions{})
	r.Apply = time.Since(start)
	if file := os.Getenv("SCALE_HEAPPROFILE"); file != "" {
		writeHeapProfile(b, fmt.Sprintf("%s.%d", file, n)) // every connection still open
	}
	closeAll()
	if res.Failed() {
		b.Fatalf("apply: %v", res.Err())
	}

	start, cpu, ctl = time.Now(), both(), cpuSeconds("self")
	if targets, closeAll, err = fleet.Targets(f, o); err != nil {
		b.Fatal(err)
	}
	drift := e.Plan(ctx, targets)
	r.Drift, r.DriftCPU, r.CtlDriftCPU = time.Since(start), both()-cpu, cpuSeconds("self")-ctl
	closeAll()
	if err := drift.Err(); err != nil {
		b.Fatalf("drift: %v", err)
	}
	if drift.HasChanges() {
		b.Fatalf("drift after apply: %+v", drift.Targets)
	}

	b.StopTimer()
	r.CtlCPU, r.SimCPU = cpuSeconds("self")-ctlCPU, cpuSeconds(simPid)-simCPU
	r.CtlPeakHeapMB = heap.peak()
	r.CtlPeakRSSMB = vmHWM("/proc/self/status")
	r.SimPeakRSSMB = fp.stop()
	return r
}
