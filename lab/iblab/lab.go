package iblab

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/switchcfg/opensm"
)

// Binaries the lab needs (Debian ibsim-utils, opensm, infiniband-diags).
var required = []string{"ibsim", "opensm", "iblinkinfo", "smpquery", "saquery", "ibnetdiscover", "sminfo"}

// ErrMissing is returned by Available and Up when a binary or umad2sim is
// not installed.
var ErrMissing = errors.New("InfiniBand lab software not installed (apt-get install ibsim-utils opensm infiniband-diags)")

// Umad2sim returns the path of libumad2sim.so, or "".
func Umad2sim() string {
	for _, p := range []string{"/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so", "/usr/lib/aarch64-linux-gnu/umad2sim/libumad2sim.so"} {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	m, _ := filepath.Glob("/usr/lib/*/umad2sim/libumad2sim.so")
	if len(m) > 0 {
		return m[0]
	}
	return ""
}

// Available says whether the lab can run here: nil, or an error wrapping
// ErrMissing that names what is missing.
func Available() error {
	var missing []string
	for _, b := range required {
		if _, err := exec.LookPath(b); err != nil {
			if _, err := os.Stat("/usr/sbin/" + b); err != nil {
				missing = append(missing, b)
			}
		}
	}
	if Umad2sim() == "" {
		missing = append(missing, "libumad2sim.so")
	}
	if len(missing) > 0 {
		return fmt.Errorf("%w: missing %s", ErrMissing, strings.Join(missing, ", "))
	}
	return nil
}

// Options configure Up.
type Options struct {
	// Dir is the lab's directory; created when absent. Required.
	Dir string
	// Topology is the simulated fabric (Demo, FromFabric).
	Topology Topology
	// Partitions is the partitions.conf OpenSM starts with (nil: none, so
	// OpenSM runs with every port a full member of the default partition).
	Partitions []byte
	// Timeout bounds each wait of Up (60 s when zero).
	Timeout time.Duration
	// OpenSMArgs are added to OpenSM's command line.
	OpenSMArgs []string
}

// Lab is a running InfiniBand lab.
type Lab struct {
	Dir    string
	Sock   string
	SMNode string
	// Timing of Up: ibsim ready, SUBNET UP, every cabled port ACTIVE.
	IBSimReady, SubnetUp, AllActive time.Duration
}

// Paths inside a lab's directory.
func (l *Lab) PartitionsFile() string { return filepath.Join(l.Dir, "partitions.conf") }
func (l *Lab) LogFile() string        { return filepath.Join(l.Dir, "opensm.log") }
func (l *Lab) PIDFile() string        { return filepath.Join(l.Dir, "opensm.pid") }

// Up starts ibsim with the topology, then OpenSM at the topology's SM node,
// and waits until OpenSM logged SUBNET UP and every cabled port is ACTIVE.
// A failed Up stops what it started and returns OpenSM's log tail.
func Up(ctx context.Context, o Options, log io.Writer) (l *Lab, err error) {
	if err := Available(); err != nil {
		return nil, err
	}
	if err := o.Topology.Check(); err != nil {
		return nil, fmt.Errorf("starting the InfiniBand lab: %w", err)
	}
	if o.Dir == "" {
		return nil, errors.New("starting the InfiniBand lab: no directory")
	}
	if o.Timeout == 0 {
		o.Timeout = 60 * time.Second
	}
	dir, err := filepath.Abs(o.Dir)
	if err != nil {
		return nil, err
	}
	if old, err := Load(dir); err == nil && (old.alive("ibsim") || old.alive("opensm")) {
		return nil, fmt.Errorf("starting the InfiniBand lab: %s already runs one (lab down --ib first)", dir)
	}
	for _, d := range []string{dir, filepath.Join(dir, "cache"), filepath.Join(dir, "dump"), filepath.Join(dir, "clients")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, fmt.Errorf("starting the InfiniBand lab: %w", err)
		}
	}
	// The socket name is unique per directory and process: two labs in
	// one network namespace never share one.
	h := fnv.New32a()
	h.Write([]byte(dir))
	l = &Lab{Dir: dir, Sock: fmt.Sprintf("fabricctl-iblab-%d-%08x", os.Getpid(), h.Sum32()), SMNode: o.Topology.SMNode}
	if sockBound(l.Sock) {
		return nil, fmt.Errorf("starting the InfiniBand lab: ibsim socket name %s is already bound in this network namespace", l.Sock)
	}
	files := map[string]string{
		"topology.net": o.Topology.Net(),
		"env":          fmt.Sprintf("IBSIM_SOCKNAME=%s\nSM_NODE=%s\n", l.Sock, l.SMNode),
		// Only what differs from OpenSM's defaults; every path inside the lab.
		// force_log_flush: opensm.log is block-buffered otherwise, and
		// SUBNET UP reaches the file only when OpenSM exits.
		"opensm.conf": fmt.Sprintf("partition_config_file %s\nlog_file %s\ndump_files_dir %s\nper_module_logging_file %s\nsweep_interval 10\nforce_log_flush TRUE\n",
			l.PartitionsFile(), l.LogFile(), filepath.Join(dir, "dump"), filepath.Join(dir, "per-module-logging.conf")),
	}
	if o.Partitions != nil {
		files["partitions.conf"] = string(o.Partitions)
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			return nil, fmt.Errorf("starting the InfiniBand lab: %w", err)
		}
	}
	defer func() {
		if err != nil {
			tail, _ := os.ReadFile(l.LogFile())
			if len(tail) > 2000 {
				tail = tail[len(tail)-2000:]
			}
			_ = l.Down(context.WithoutCancel(ctx))
			if len(tail) > 0 {
				err = fmt.Errorf("%w\nopensm.log ends:\n%s", err, tail)
			}
		}
	}()
	start := time.Now()
	if err := l.startIBSim(); err != nil {
		return l, err
	}
	if err := poll(ctx, o.Timeout, func() (bool, error) {
		if !l.alive("ibsim") {
			msg, _ := os.ReadFile(filepath.Join(dir, "ibsim.log"))
			return false, fmt.Errorf("ibsim exited: %s", lastLines(string(msg), 5))
		}
		out, _ := os.ReadFile(filepath.Join(dir, "ibsim.out"))
		return bytes.Contains(out, []byte("sim> ")) && sockBound(l.Sock), nil
	}); err != nil {
		return l, fmt.Errorf("starting ibsim: %w", err)
	}
	l.IBSimReady = time.Since(start)
	if err := l.startOpenSM(o.OpenSMArgs); err != nil {
		return l, err
	}
	if err := l.WaitSweep(ctx, 0, o.Timeout); err != nil {
		return l, fmt.Errorf("starting OpenSM: %w", err)
	}
	l.SubnetUp = time.Since(start)
	want := o.Topology.CabledPorts()
	got := 0
	if err := poll(ctx, o.Timeout, func() (bool, error) {
		out, err := l.Diag(ctx, "", "iblinkinfo")
		if err != nil {
			return false, nil
		}
		got = len(activeRE.FindAll(out, -1))
		return got >= want, nil
	}); err != nil {
		return l, fmt.Errorf("waiting for every cabled port to be ACTIVE (%d of %d): %w", got, want, err)
	}
	l.AllActive = time.Since(start)
	if log != nil {
		fmt.Fprintf(log, "iblab: %s up: ibsim %v, SUBNET UP %v, %d ports ACTIVE %v\n", dir,
			l.IBSimReady.Round(time.Millisecond), l.SubnetUp.Round(time.Millisecond), got, l.AllActive.Round(time.Millisecond))
	}
	return l, nil
}

var activeRE = regexp.MustCompile(`Active/ *LinkUp`)

func (l *Lab) startIBSim() error {
	console := filepath.Join(l.Dir, "console")
	_ = os.Remove(console)
	if err := syscall.Mkfifo(console, 0o600); err != nil {
		return fmt.Errorf("starting ibsim: %w", err)
	}
	// ibsim spins at 100 % CPU when its console reaches EOF: it reads a
	// FIFO opened read-write, so a writer always exists.
	in, err := os.OpenFile(console, os.O_RDWR, 0)
	if err != nil {
		return fmt.Errorf("starting ibsim: %w", err)
	}
	defer in.Close()
	return l.start("ibsim", []string{"ibsim", "-s", "topology.net"}, l.Dir, in, "ibsim.out", "ibsim.log", nil)
}

func (l *Lab) startOpenSM(args []string) error {
	env := append(l.clientEnv(l.SMNode), "OSM_CACHE_DIR="+filepath.Join(l.Dir, "cache"), "OSM_TMP_DIR="+filepath.Join(l.Dir, "dump"))
	argv := append([]string{"opensm", "-F", filepath.Join(l.Dir, "opensm.conf")}, args...)
	return l.start("opensm", argv, filepath.Join(l.Dir, "clients"), nil, "opensm.stdout", "opensm.stdout", env)
}

// start runs a lab daemon in its own process group, records its PID and
// reaps it when it exits (a zombie would look alive to kill -0).
func (l *Lab) start(name string, argv []string, wd string, stdin *os.File, stdout, stderr string, env []string) error {
	path, err := exec.LookPath(argv[0])
	if err != nil {
		path = "/usr/sbin/" + argv[0]
	}
	out, err := os.Create(filepath.Join(l.Dir, stdout))
	if err != nil {
		return fmt.Errorf("starting %s: %w", name, err)
	}
	defer out.Close()
	errf := out
	if stderr != stdout {
		if errf, err = os.Create(filepath.Join(l.Dir, stderr)); err != nil {
			return fmt.Errorf("starting %s: %w", name, err)
		}
		defer errf.Close()
	}
	cmd := exec.Command(path, argv[1:]...)
	cmd.Dir = wd
	cmd.Env = append(append(os.Environ(), "IBSIM_SOCKNAME="+l.Sock), env...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, out, errf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting %s: %w", name, err)
	}
	go func() { _ = cmd.Wait() }()
	return os.WriteFile(filepath.Join(l.Dir, name+".pid"), []byte(strconv.Itoa(cmd.Process.Pid)+"\n"), 0o644)
}

// Env is the environment a libibumad client needs to attach at node ("":
// the SM's node): LD_PRELOAD of umad2sim, IBSIM_SOCKNAME and SIM_HOST. Run
// clients in ClientsDir (umad2sim writes a fake sysfs into the working
// directory).
func (l *Lab) Env(node string) []string { return l.clientEnv(node) }

// ClientsDir is the working directory of the lab's clients.
func (l *Lab) ClientsDir() string { return filepath.Join(l.Dir, "clients") }

func (l *Lab) clientEnv(node string) []string {
	if node == "" {
		node = l.SMNode
	}
	return []string{"LD_PRELOAD=" + Umad2sim(), "IBSIM_SOCKNAME=" + l.Sock, "SIM_HOST=" + node}
}

// DiagTimeout bounds one diag command: a client whose ibsim is gone
// retries connect() every 2 s forever.
const DiagTimeout = 60 * time.Second

// Runner returns an opensm.Runner that runs commands attached at node ("":
// the SM's node) under umad2sim in the lab's clients directory: the same
// executor a real subnet manager host gets over SSH.
func (l *Lab) Runner(node string) opensm.Runner {
	return runner{l: l, exec: opensm.ExecRunner{Env: l.clientEnv(node), Dir: filepath.Join(l.Dir, "clients")}}
}

type runner struct {
	l    *Lab
	exec opensm.ExecRunner
}

func (r runner) Run(ctx context.Context, argv []string, stdin []byte) ([]byte, error) {
	if !sockBound(r.l.Sock) {
		return nil, fmt.Errorf("running %s in the InfiniBand lab %s: its ibsim is not running (socket %s not bound here)", argv[0], r.l.Dir, r.l.Sock)
	}
	ctx, cancel := context.WithTimeout(ctx, DiagTimeout)
	defer cancel()
	return r.exec.Run(ctx, argv, stdin)
}

// Diag runs one command (an infiniband-diags tool) attached at node.
func (l *Lab) Diag(ctx context.Context, node string, argv ...string) ([]byte, error) {
	return l.Runner(node).Run(ctx, argv, nil)
}

// Pusher returns the OpenSM pusher of the lab's partitions.conf, with its
// push verified on the fabric: OpenSM's log after the SIGHUP and every
// port's P_Key table, read with the diags at the SM's node.
func (l *Lab) Pusher() *opensm.Pusher {
	return &opensm.Pusher{
		Remote:  opensm.NewRemote(opensm.ExecRunner{}),
		Path:    l.PartitionsFile(),
		Process: opensm.Process{PIDFile: l.PIDFile(), Name: "opensm"},
		Settle:  100 * time.Millisecond,
		// ibsim serves 10 clients; OpenSM holds one.
		Fabric: &opensm.FabricReader{Diag: l.Runner(""), LogFile: l.LogFile(), Logs: opensm.NewRemote(opensm.ExecRunner{}), Parallel: 4},
	}
}

// LogSize is the size of opensm.log now: WaitSweep(ctx, size, …) then waits
// for a sweep that ends after this point.
func (l *Lab) LogSize() int64 {
	st, err := os.Stat(l.LogFile())
	if err != nil {
		return 0
	}
	return st.Size()
}

// WaitSweep waits until opensm.log shows SUBNET UP after byte offset from.
func (l *Lab) WaitSweep(ctx context.Context, from int64, timeout time.Duration) error {
	return poll(ctx, timeout, func() (bool, error) {
		if !l.alive("opensm") {
			out, _ := os.ReadFile(filepath.Join(l.Dir, "opensm.stdout"))
			return false, fmt.Errorf("opensm exited: %s", lastLines(string(out), 5))
		}
		f, err := os.Open(l.LogFile())
		if err != nil {
			return false, nil
		}
		defer f.Close()
		if _, err := f.Seek(from, io.SeekStart); err != nil {
			return false, nil
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			if strings.Contains(sc.Text(), "SUBNET UP") {
				return true, nil
			}
		}
		return false, nil
	})
}

// HUP sends SIGHUP to OpenSM: it re-reads partitions.conf and sweeps.
func (l *Lab) HUP() error {
	pid, ok := l.pid("opensm")
	if !ok {
		return fmt.Errorf("signalling OpenSM in %s: not running", l.Dir)
	}
	return syscall.Kill(pid, syscall.SIGHUP)
}

// Sim sends one command to ibsim's console (Unlink "lab-h1"[1], ReLink,
// PerformanceSet …) and returns its reply.
func (l *Lab) Sim(ctx context.Context, command string) (string, error) {
	if strings.ContainsAny(command, "\n\r") {
		return "", errors.New("ibsim console: one line only")
	}
	outPath := filepath.Join(l.Dir, "ibsim.out")
	before, err := os.Stat(outPath)
	if err != nil {
		return "", fmt.Errorf("ibsim console: %w", err)
	}
	f, err := os.OpenFile(filepath.Join(l.Dir, "console"), os.O_WRONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return "", fmt.Errorf("ibsim console: %w", err)
	}
	_, err = f.WriteString(command + "\n")
	f.Close()
	if err != nil {
		return "", fmt.Errorf("ibsim console: %w", err)
	}
	var reply string
	err = poll(ctx, 10*time.Second, func() (bool, error) {
		out, _ := os.ReadFile(outPath)
		if int64(len(out)) <= before.Size() {
			return false, nil
		}
		reply = string(out[before.Size():])
		return strings.Contains(reply, "sim> "), nil
	})
	return strings.TrimSpace(strings.ReplaceAll(reply, "sim> ", "")), err
}

// Load finds the lab in dir from its env file.
func Load(dir string) (*Lab, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	env, err := os.ReadFile(filepath.Join(dir, "env"))
	if err != nil {
		return nil, fmt.Errorf("loading the InfiniBand lab in %s: %w", dir, err)
	}
	l := &Lab{Dir: dir}
	for _, line := range strings.Split(string(env), "\n") {
		k, v, _ := strings.Cut(line, "=")
		switch k {
		case "IBSIM_SOCKNAME":
			l.Sock = v
		case "SM_NODE":
			l.SMNode = v
		}
	}
	if l.Sock == "" || l.SMNode == "" {
		return nil, fmt.Errorf("loading the InfiniBand lab in %s: env names no socket or SM node", dir)
	}
	return l, nil
}

// Running says whether both of the lab's processes run.
func (l *Lab) Running() bool { return l.alive("ibsim") && l.alive("opensm") }

// Down stops OpenSM, then ibsim, by their recorded PIDs only, and removes
// the fake sysfs trees clients left behind. A lab that is not running is
// not an error.
func (l *Lab) Down(ctx context.Context) error {
	var errs []error
	for _, name := range []string{"opensm", "ibsim"} {
		pidFile := filepath.Join(l.Dir, name+".pid")
		if pid, ok := l.pid(name); ok {
			_ = syscall.Kill(pid, syscall.SIGTERM)
			if err := poll(ctx, 5*time.Second, func() (bool, error) { return !l.alive(name), nil }); err != nil {
				_ = syscall.Kill(pid, syscall.SIGKILL)
				if err := poll(ctx, 5*time.Second, func() (bool, error) { return !l.alive(name), nil }); err != nil {
					errs = append(errs, fmt.Errorf("stopping %s (pid %d): %w", name, pid, err))
					continue
				}
			}
		}
		_ = os.Remove(pidFile)
	}
	m, _ := filepath.Glob(filepath.Join(l.Dir, "clients", "sys-*"))
	for _, d := range m {
		_ = os.RemoveAll(d)
	}
	return errors.Join(errs...)
}

// pid returns the recorded PID of name when that process is alive and is
// name (/proc/PID/comm), so a reused PID is never taken for the lab's.
func (l *Lab) pid(name string) (int, bool) {
	b, err := os.ReadFile(filepath.Join(l.Dir, name+".pid"))
	if err != nil {
		return 0, false
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 1 {
		return 0, false
	}
	comm, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
	if err != nil || strings.TrimSpace(string(comm)) != name {
		return 0, false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, false
	}
	if i := bytes.LastIndexByte(stat, ')'); i < 0 || len(stat) < i+3 || stat[i+2] == 'Z' || stat[i+2] == 'X' {
		return 0, false
	}
	return pid, true
}

func (l *Lab) alive(name string) bool { _, ok := l.pid(name); return ok }

// sockBound says whether ibsim's control socket @NAME:ctl is bound in this
// network namespace.
func sockBound(name string) bool {
	b, err := os.ReadFile("/proc/net/unix")
	return err == nil && bytes.Contains(b, []byte("@"+name+":ctl"))
}

func poll(ctx context.Context, timeout time.Duration, f func() (bool, error)) error {
	deadline := time.Now().Add(timeout)
	for {
		ok, err := f()
		if err != nil {
			return err
		}
		if ok {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("timed out after %v", timeout)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// At redirects the fabric's subnet manager that this lab runs (the one
// named like the lab's SM node, of kind opensm) to the lab: the lab's
// files, and commands run here under umad2sim (fleet.Options.SubnetManagerAt).
func (l *Lab) At(sm fabric.SubnetManagerIntent) (fabric.SubnetManagerIntent, func(context.Context, []string, []byte) ([]byte, error), bool) {
	if sm.Name != l.SMNode || sm.Kind != "opensm" {
		return sm, nil, false
	}
	sm.PartitionsFile, sm.LogFile, sm.PIDFile = l.PartitionsFile(), l.LogFile(), l.PIDFile()
	return sm, l.Runner("").Run, true
}
