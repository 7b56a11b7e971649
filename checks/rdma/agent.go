package rdma

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/fabricctl/fabricctl/agent"
	"github.com/fabricctl/fabricctl/checks"
	"github.com/fabricctl/fabricctl/checks/evaluate"
	"github.com/fabricctl/fabricctl/hostcfg/sysfs"
)

// Sentinels for errors.Is.
var (
	// ErrUnknownID: OpWait names a process this agent did not start (or
	// already reported).
	ErrUnknownID = errors.New("unknown perftest id")
	// ErrBadArgs: the op's arguments are malformed.
	ErrBadArgs = errors.New("invalid arguments")
)

// outputCap is how much of each stream an Outcome keeps (the end of it).
const outputCap = 64 << 10

// pollEvery is how often a starting server is probed for its listener.
const pollEvery = 20 * time.Millisecond

// portInUseRe matches what a perftest server prints when its out-of-band
// port is taken (perftest_communication.c: "Couldn't listen to port %d"
// after bind fails; "Address already in use" from perror on other paths).
var portInUseRe = regexp.MustCompile(`Couldn't listen to port \d+|Address already in use`)

// Agent runs perftest processes on the host it lives on. The zero value is
// not usable; set Sys (and usually StateDir). An Agent is safe for
// concurrent use.
type Agent struct {
	// Sys reads the port counters (/sys in production).
	Sys sysfs.FS
	// ProcRoot is /proc (listening sockets, process start times).
	ProcRoot string
	// StateDir holds one file per running perftest (its pid and start
	// time), so that OpCleanup finds processes of agents that died. Empty
	// disables the files (tests of a single agent).
	StateDir string
	// LookPath finds a binary (exec.LookPath when nil).
	LookPath func(string) (string, error)
	// RunTool runs a read-only tool of OpCounters (ethtool -S) and returns
	// its stdout (nil: the real program, found with LookPath, LC_ALL=C).
	RunTool func(ctx context.Context, argv []string) ([]byte, error)
	// IBEnv is added to the environment of OpIBDiag's tools (KEY=VALUE) and
	// IBDir is their working directory ("": the agent's): the InfiniBand
	// lab's umad2sim settings (lab/iblab Lab.Env, ClientsDir) in tests.
	IBEnv []string
	IBDir string
	Log   *slog.Logger

	mu    sync.Mutex
	procs map[string]*proc
}

// proc is one running perftest.
type proc struct {
	out     Outcome
	dev     string
	port    int
	cmd     *exec.Cmd
	stdout  *tailBuffer
	stderr  *tailBuffer
	started time.Time
	done    chan struct{} // closed once the process is reaped
	stop    chan struct{} // closed to kill it on request
	once    sync.Once
}

// DefaultStateDir is where agents keep their pid files: the user's cache
// directory (~/.cache/fabricctl/perftest).
func DefaultStateDir() string {
	d, err := os.UserCacheDir()
	if err != nil {
		return filepath.Join(os.TempDir(), "fabricctl-perftest")
	}
	return filepath.Join(d, "fabricctl", "perftest")
}

// Register adds OpStart, OpWait, OpCleanup, OpCounters, OpIBDiag and OpTracePath to h. Their
// args are decoded strictly (agent.DecodeArgs); malformed ones, and names
// the host does not have, are answered with a bad-request reply.
func (a *Agent) Register(h *agent.Handler) {
	h.Register(OpCounters, func(ctx context.Context, raw json.RawMessage) (any, error) {
		if err := agent.NoArgs(raw); err != nil {
			return nil, err
		}
		return a.ReadCounters(ctx)
	})
	h.Register(OpIBDiag, func(ctx context.Context, raw json.RawMessage) (any, error) {
		var args IBDiagArgs
		if err := agent.DecodeArgs(raw, &args); err != nil {
			return nil, err
		}
		out, err := a.RunIBDiag(ctx, args)
		return out, badArgs(err)
	})
	a.registerTracePath(h)
	h.Register(OpStart, func(ctx context.Context, raw json.RawMessage) (any, error) {
		var args StartArgs
		if err := agent.DecodeArgs(raw, &args); err != nil {
			return nil, err
		}
		st, err := a.Start(ctx, args)
		return st, badArgs(err)
	})
	h.Register(OpWait, func(ctx context.Context, raw json.RawMessage) (any, error) {
		var args WaitArgs
		if err := agent.DecodeArgs(raw, &args); err != nil {
			return nil, err
		}
		out, err := a.Wait(ctx, args)
		return out, badArgs(err)
	})
	h.Register(OpCleanup, func(ctx context.Context, raw json.RawMessage) (any, error) {
		if err := agent.NoArgs(raw); err != nil {
			return nil, err
		}
		return a.Cleanup(ctx)
	})
}

// badArgs makes an error of malformed arguments a bad request.
func badArgs(err error) error {
	if errors.Is(err, ErrBadArgs) {
		return agent.BadRequest(err)
	}
	return err
}

func (a *Agent) log() *slog.Logger {
	if a.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return a.Log
}

func (a *Agent) procRoot() string {
	if a.ProcRoot == "" {
		return "/proc"
	}
	return a.ProcRoot
}

// counters reads the port's hw_counters and counters into one set.
func (a *Agent) counters(ctx context.Context, dev string, port int) (evaluate.Counters, error) {
	c := evaluate.Counters{}
	hw, herr := a.Sys.HWCounters(ctx, dev, port)
	for k, v := range hw {
		c[k] = v
	}
	pc, perr := a.Sys.Counters(ctx, dev, port)
	for k, v := range pc {
		if _, dup := c[k]; !dup {
			c[k] = v
		}
	}
	if herr != nil && perr != nil {
		return nil, fmt.Errorf("reading counters of %s/%d: %w", dev, port, errors.Join(herr, perr))
	}
	return c, nil
}

// Start starts one side of a test. Failures to run at all come back as an
// Outcome in Started, not as errors; errors are for malformed requests.
func (a *Agent) Start(ctx context.Context, args StartArgs) (Started, error) {
	switch {
	case args.ID == "":
		return Started{}, fmt.Errorf("starting perftest: %w: no id", ErrBadArgs)
	case args.Role != Server && args.Role != Client:
		return Started{}, fmt.Errorf("starting perftest: %w: role %s is not %s or %s", ErrBadArgs, agent.Clip(string(args.Role)), Server, Client)
	case args.Timeout <= 0:
		return Started{}, fmt.Errorf("starting perftest: %w: timeout %s is not positive", ErrBadArgs, args.Timeout)
	}
	if (args.Role == Client) != (args.Spec.Peer != "") {
		return Started{}, fmt.Errorf("starting perftest: %w: a client needs a peer and a server none", ErrBadArgs)
	}
	if err := a.checkStart(ctx, args); err != nil {
		return Started{}, fmt.Errorf("starting perftest: %w", err)
	}
	a.mu.Lock()
	if a.procs == nil {
		a.procs = map[string]*proc{}
	}
	if _, dup := a.procs[args.ID]; dup {
		a.mu.Unlock()
		return Started{}, fmt.Errorf("starting perftest: %w: id %q is in use", ErrBadArgs, args.ID)
	}
	p := &proc{out: Outcome{ID: args.ID, Role: args.Role, ExitCode: -1}, done: make(chan struct{}), stop: make(chan struct{})}
	a.procs[args.ID] = p
	a.mu.Unlock()

	fail := func(class checks.FailureClass, err error) (Started, error) {
		a.forget(args.ID)
		p.out.Class, p.out.Error = class, err.Error()
		return Started{ID: args.ID, Outcome: &p.out}, nil
	}
	argv, err := perftestArgs(args.Spec)
	p.out.Argv = argv
	if err != nil {
		return fail(checks.ArgumentError, err)
	}
	look := a.LookPath
	if look == nil {
		look = exec.LookPath
	}
	path, err := look(argv[0])
	if err != nil {
		return fail(checks.MissingTool, fmt.Errorf("finding %s: %w", argv[0], err))
	}
	p.dev, p.port = args.Spec.Device, args.Spec.IBPort
	if p.port == 0 {
		p.port = 1
	}
	if c, err := a.counters(ctx, p.dev, p.port); err != nil {
		p.out.CounterError = err.Error()
	} else {
		p.out.Before = c
	}
	p.stdout, p.stderr = &tailBuffer{max: outputCap}, &tailBuffer{max: outputCap}
	cmd := exec.Command(path, argv[1:]...)
	cmd.Stdout, cmd.Stderr = p.stdout, p.stderr
	// Its own process group, so that a kill reaches everything it forks; and
	// killed with the agent, should the agent die first.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	p.cmd = cmd
	if err := cmd.Start(); err != nil {
		return fail(checks.MissingTool, fmt.Errorf("starting %s: %w", argv[0], err))
	}
	p.started = time.Now()
	pid := cmd.Process.Pid
	a.track(pid)
	go a.reap(p, pid, args.Timeout)

	st := Started{ID: args.ID, PID: pid, Ready: true}
	if args.Role == Client {
		return st, nil
	}
	port := args.Spec.TCPPort
	if port == 0 {
		port = 18515
	}
	rt := args.ReadyTimeout
	if rt <= 0 || rt > args.Timeout {
		rt = args.Timeout
	}
	ready := time.NewTimer(rt)
	defer ready.Stop()
	tick := time.NewTicker(pollEvery)
	defer tick.Stop()
	for {
		if args.Spec.RDMACM {
			// rdma_cm listens without a TCP socket; give it a moment.
			select {
			case <-time.After(time.Second):
				return st, nil
			case <-p.done:
			}
		} else if listening(a.procRoot(), port, pid) {
			return st, nil
		}
		select {
		case <-p.done:
			// It ended before it listened (bad device, port in use, …).
			out, _ := a.Wait(context.WithoutCancel(ctx), WaitArgs{ID: args.ID})
			switch {
			case portInUseRe.MatchString(out.Stderr) || portInUseRe.MatchString(out.Stdout):
				out.Class = checks.PortInUse
				out.Error = fmt.Sprintf("the server could not listen on TCP port %d: another process holds it", port)
			case out.TimedOut:
				// Its deadline came before it listened: the test never started.
				out.Class = checks.SetupTimeout
				out.Error = fmt.Sprintf("the server did not listen on TCP port %d within %s", port, out.Wall.Round(time.Millisecond))
			}
			return Started{ID: args.ID, PID: pid, Outcome: &out}, nil
		case <-ready.C:
			out, _ := a.Wait(context.WithoutCancel(ctx), WaitArgs{ID: args.ID, Stop: true})
			out.TimedOut = true
			out.Class = checks.SetupTimeout
			out.Error = fmt.Sprintf("the server did not listen on TCP port %d within %s", port, rt)
			return Started{ID: args.ID, PID: pid, Outcome: &out}, nil
		case <-ctx.Done():
			out, _ := a.Wait(context.WithoutCancel(ctx), WaitArgs{ID: args.ID, Stop: true})
			return Started{ID: args.ID, PID: pid, Outcome: &out}, nil
		case <-tick.C:
		}
	}
}

// checkStart refuses what Start must not pass to perftest or to sysfs: an
// over-long id, a negative ready timeout, a JSON output file (the agent
// chooses the paths it writes), a peer that is not an address or host
// name, and a device, port or GID index this host does not have — names
// are checked for form before any lookup, then against
// /sys/class/infiniband. What perftest itself would reject (an empty
// device, sizes, counts, ranges) is Validate's, an ArgumentError outcome.
func (a *Agent) checkStart(ctx context.Context, args StartArgs) error {
	s := args.Spec
	if err := agent.CheckText("id", args.ID, agent.MaxNameBytes); err != nil {
		return err
	}
	if args.ReadyTimeout < 0 {
		return fmt.Errorf("%w: readyTimeout %s is negative", ErrBadArgs, args.ReadyTimeout)
	}
	if s.JSONFile != "" {
		return fmt.Errorf("%w: spec.JSONFile is not part of the protocol: the agent chooses the paths it writes", ErrBadArgs)
	}
	if s.Peer != "" {
		if err := checkPeer(s.Peer); err != nil {
			return err
		}
	}
	if s.Device == "" {
		return nil
	}
	if err := agent.CheckName("spec.Device", s.Device); err != nil {
		return err
	}
	devs, err := a.Sys.RDMADevices(ctx)
	if err != nil {
		return fmt.Errorf("listing the RDMA devices: %w", err)
	}
	if err := agent.CheckKnown("spec.Device", s.Device, "RDMA device", devs); err != nil {
		return err
	}
	port := s.IBPort
	if port != 0 || s.GIDIndex != nil {
		ports, err := a.Sys.Ports(ctx, s.Device)
		if err != nil {
			return fmt.Errorf("listing the ports of %s: %w", s.Device, err)
		}
		if port == 0 {
			port = 1 // perftest's default
		}
		if err := agent.CheckKnown("spec.IBPort", strconv.Itoa(port), "port of "+s.Device, itoas(ports)); err != nil {
			return err
		}
	}
	if s.GIDIndex != nil {
		gids, err := a.Sys.GIDs(ctx, s.Device, port)
		if err != nil {
			return fmt.Errorf("reading the GIDs of %s port %d: %w", s.Device, port, err)
		}
		idx := make([]int, len(gids))
		for i, g := range gids {
			idx[i] = g.Index
		}
		if err := agent.CheckKnown("spec.GIDIndex", strconv.Itoa(*s.GIDIndex), fmt.Sprintf("GID index of %s port %d", s.Device, port), itoas(idx)); err != nil {
			return err
		}
	}
	return nil
}

func itoas(ns []int) []string {
	out := make([]string, len(ns))
	for i, n := range ns {
		out[i] = strconv.Itoa(n)
	}
	return out
}

// checkPeer accepts an IP address or a host name (letters, digits, '-',
// '_' and '.'): perftest's last argument, which its getopt would take for
// an option if it began with '-'.
func checkPeer(peer string) error {
	if err := agent.CheckText("spec.Peer", peer, 253); err != nil {
		return err
	}
	if _, err := netip.ParseAddr(peer); err == nil {
		return nil
	}
	for _, c := range peer {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return agent.BadRequest(fmt.Errorf("spec.Peer %s is neither an IP address nor a host name", agent.Clip(peer)))
		}
	}
	if strings.HasPrefix(peer, "-") || strings.HasPrefix(peer, ".") {
		return agent.BadRequest(fmt.Errorf("spec.Peer %s is neither an IP address nor a host name", agent.Clip(peer)))
	}
	return nil
}

// reap waits for the process, killing its process group at the deadline or
// on a stop request.
func (a *Agent) reap(p *proc, pid int, timeout time.Duration) {
	exited := make(chan error, 1)
	go func() { exited <- p.cmd.Wait() }()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	var err error
	select {
	case err = <-exited:
	case <-deadline.C:
		p.out.TimedOut = true
		killGroup(pid)
		err = <-exited
	case <-p.stop:
		p.out.Stopped = true
		killGroup(pid)
		err = <-exited
	}
	p.out.Wall = time.Since(p.started)
	// A process that left children in its group (none expected) loses them too.
	killGroup(pid)
	var ee *exec.ExitError
	switch {
	case err == nil:
		p.out.ExitCode = 0
	case errors.As(err, &ee) && ee.Exited():
		p.out.ExitCode = ee.ExitCode()
	default:
		p.out.ExitCode = -1
	}
	a.untrack(pid)
	close(p.done)
}

func killGroup(pid int) {
	if pid > 0 {
		_ = syscall.Kill(-pid, syscall.SIGKILL)
	}
}

// Wait waits for a started process to end (killing it first with Stop, or
// when ctx ends) and returns its Outcome. Each process is reported once.
func (a *Agent) Wait(ctx context.Context, args WaitArgs) (Outcome, error) {
	if err := agent.CheckText("id", args.ID, agent.MaxNameBytes); err != nil {
		return Outcome{}, fmt.Errorf("waiting for perftest: %w", err)
	}
	a.mu.Lock()
	p := a.procs[args.ID]
	a.mu.Unlock()
	if p == nil {
		return Outcome{}, fmt.Errorf("waiting for perftest: %w: %q", ErrUnknownID, args.ID)
	}
	if args.Stop {
		p.once.Do(func() { close(p.stop) })
	}
	select {
	case <-p.done:
	case <-ctx.Done():
		p.once.Do(func() { close(p.stop) })
		<-p.done
	}
	a.forget(args.ID)
	out := p.out
	out.Stdout, out.Stderr = p.stdout.String(), p.stderr.String()
	if c, err := a.counters(context.WithoutCancel(ctx), p.dev, p.port); err != nil {
		out.CounterError = err.Error()
	} else {
		out.After = c
	}
	if out.TimedOut && out.Class == "" {
		out.Class = checks.Timeout
		out.Error = fmt.Sprintf("killed after %s: the test did not finish in time", out.Wall.Round(time.Millisecond))
	}
	return out, nil
}

func (a *Agent) forget(id string) {
	a.mu.Lock()
	delete(a.procs, id)
	a.mu.Unlock()
}

// Running returns the ids of the processes started and not yet reported.
func (a *Agent) Running() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	var ids []string
	for id := range a.procs {
		ids = append(ids, id)
	}
	return ids
}

// track writes the pid file of a started process: its start time in clock
// ticks (/proc/<pid>/stat field 22) tells it apart from a later process that
// reuses the pid.
func (a *Agent) track(pid int) {
	if a.StateDir == "" {
		return
	}
	start, err := procStart(a.procRoot(), pid)
	if err != nil {
		a.log().Debug("reading the start time of perftest", "pid", pid, "error", err)
		return
	}
	if err := os.MkdirAll(a.StateDir, 0o700); err != nil {
		a.log().Warn("recording perftest pid", "error", err)
		return
	}
	if err := os.WriteFile(filepath.Join(a.StateDir, strconv.Itoa(pid)), []byte(strconv.FormatUint(start, 10)+"\n"), 0o600); err != nil {
		a.log().Warn("recording perftest pid", "error", err)
	}
}

func (a *Agent) untrack(pid int) {
	if a.StateDir != "" {
		_ = os.Remove(filepath.Join(a.StateDir, strconv.Itoa(pid)))
	}
}

// Cleanup kills the perftest processes this agent is running and those that
// the pid files of earlier agents name and that still run (same pid, same
// start time), and removes their files.
func (a *Agent) Cleanup(ctx context.Context) (Cleaned, error) {
	var res Cleaned
	a.mu.Lock()
	var mine []*proc
	for _, p := range a.procs {
		mine = append(mine, p)
	}
	a.mu.Unlock()
	for _, p := range mine {
		if p.cmd != nil && p.cmd.Process != nil {
			select {
			case <-p.done:
				continue
			default:
			}
			res.Killed = append(res.Killed, p.cmd.Process.Pid)
			p.once.Do(func() { close(p.stop) })
			<-p.done
		}
	}
	if a.StateDir == "" {
		return res, nil
	}
	entries, err := os.ReadDir(a.StateDir)
	if errors.Is(err, os.ErrNotExist) {
		return res, nil
	}
	if err != nil {
		return res, fmt.Errorf("cleaning up perftest processes: %w", err)
	}
	for _, e := range entries {
		if ctx.Err() != nil {
			return res, ctx.Err()
		}
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid <= 1 {
			continue
		}
		file := filepath.Join(a.StateDir, e.Name())
		b, _ := os.ReadFile(file)
		want, _ := strconv.ParseUint(string(trimNL(b)), 10, 64)
		if got, err := procStart(a.procRoot(), pid); err == nil && got == want {
			killGroup(pid)
			res.Killed = append(res.Killed, pid)
		}
		_ = os.Remove(file)
	}
	return res, nil
}

func trimNL(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == ' ') {
		b = b[:len(b)-1]
	}
	return b
}
