package lab

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/fabricctl/fabricctl/lab/image"
)

// Sentinel errors of the lab lifecycle.
var (
	// ErrAlreadyUp: a lab is running in this state directory.
	ErrAlreadyUp = errors.New("lab is already up")
	// ErrVMHung: a VM did not boot, or stopped answering, within its bound; it was killed.
	ErrVMHung = errors.New("lab VM hung")
	// ErrVMDied: a VM's qemu exited on its own.
	ErrVMDied = errors.New("lab VM exited")
	// ErrNotRoot: the lab needs root (network namespaces, taps).
	ErrNotRoot = errors.New("the lab needs root")
)

func discard(l *slog.Logger) *slog.Logger {
	if l == nil {
		return slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return l
}

// Up boots the lab: it creates the namespace and bridge, writes keys and the guests' settings,
// starts one qemu per host and waits until every VM answers over SSH (bounded by
// o.BootTimeout). On any failure everything started is torn down again and the error names the
// VM and shows the end of its console log. The returned state is saved in the state directory.
func Up(ctx context.Context, t Topology, img image.Image, o Options, log *slog.Logger) (*State, error) {
	log = discard(log)
	o = o.withDefaults()
	if os.Geteuid() != 0 {
		return nil, fmt.Errorf("starting the lab: %w (network namespace and taps)", ErrNotRoot)
	}
	for _, tool := range []string{o.Qemu, "ip"} {
		if _, err := exec.LookPath(tool); err != nil {
			return nil, fmt.Errorf("starting the lab: %s: %w (run lab/scripts/install-deps.sh)", tool, image.ErrMissingTool)
		}
	}
	if prev, err := Load(o.StateDir); err == nil {
		if prev.anyAlive() {
			return nil, fmt.Errorf("starting the lab in %s: %w (fabricctl lab down first)", o.StateDir, ErrAlreadyUp)
		}
		log.Info("cleaning up a stale lab", "dir", o.StateDir)
		_ = prev.Down(ctx, log)
	}
	cleanSlurmDir(o.StateDir) // daemons of a lab whose state someone else removed
	if netnsExists(o.Netns) {
		log.Info("removing a leftover lab namespace", "netns", o.Netns)
		_ = command(ctx, "ip", "netns", "del", o.Netns)
	}
	for _, ns := range leafNamespaces(o.Netns) {
		log.Info("removing a leftover leaf namespace", "netns", ns)
		_ = command(ctx, "ip", "netns", "del", ns)
	}
	s, err := Plan(t, o)
	if err != nil {
		return nil, err
	}
	s.Image = img
	for _, v := range s.VMs {
		_ = os.RemoveAll(v.Dir)
		if err := os.MkdirAll(filepath.Join(v.Share, "out"), 0o755); err != nil {
			return nil, fmt.Errorf("creating %s: %w", v.Share, err)
		}
	}
	if err := s.writeKeys(); err != nil {
		return nil, err
	}
	s.StartedAt = time.Now().UTC()
	if err := s.Save(); err != nil {
		return nil, err
	}
	fail := func(err error) (*State, error) {
		_ = s.Down(context.WithoutCancel(ctx), log)
		return nil, err
	}
	if err := s.setupNetwork(ctx); err != nil {
		return fail(err)
	}
	if err := s.startLLDP(ctx); err != nil {
		return fail(err)
	}
	if err := s.startSwitches(ctx, o.SwitchSim); err != nil {
		return fail(fmt.Errorf("starting the switch simulators: %w", err))
	}
	if o.Slurm {
		if err := s.prepareSlurm(img, o.Fabricctl, o.HealthCheckInterval); err != nil {
			return fail(err)
		}
		if err := s.startSlurmController(ctx); err != nil {
			return fail(err)
		}
		log.Info("slurmctld started", "conf", s.Slurm.Conf, "pid", s.Slurm.CtldPid)
	}
	accel := Accel(ctx, o.Qemu)
	// start every qemu at once: each takes a second or two to start on a busy machine
	started := make([]time.Time, len(s.VMs))
	startErrs := make([]error, len(s.VMs))
	var swg sync.WaitGroup
	for i := range s.VMs {
		swg.Add(1)
		go func(i int, v *VM) {
			defer swg.Done()
			args := append([]string{"netns", "exec", s.vmNetns(*v), o.Qemu}, QemuArgs(s, *v, accel)...)
			started[i] = time.Now()
			if err := command(ctx, "ip", args...); err != nil {
				startErrs[i] = fmt.Errorf("starting qemu for %s: %w", v.Name, err)
				return
			}
			pid, err := readPid(v.PidFile)
			if err != nil {
				startErrs[i] = fmt.Errorf("starting qemu for %s: %w", v.Name, err)
				return
			}
			v.Pid = pid
			log.Info("vm started", "host", v.Name, "pid", pid, "accel", accel)
		}(i, &s.VMs[i])
	}
	swg.Wait()
	if err := errors.Join(startErrs...); err != nil {
		return fail(err)
	}
	if err := s.Save(); err != nil {
		return fail(err)
	}
	bctx, cancel := context.WithTimeout(ctx, o.BootTimeout)
	defer cancel()
	var mu sync.Mutex
	var errs []error
	var wg sync.WaitGroup
	for i := range s.VMs {
		wg.Add(1)
		go func(i int, v *VM) {
			defer wg.Done()
			if err := s.waitSSH(bctx, *v); err != nil {
				if bctx.Err() != nil && ctx.Err() == nil {
					err = fmt.Errorf("%s: not reachable over SSH %s after qemu start: %w; console tail:\n%s",
						v.Name, o.BootTimeout, ErrVMHung, s.ConsoleTail(*v, 15))
				}
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
				return
			}
			v.BootSeconds = time.Since(started[i]).Seconds()
			log.Info("vm reachable over ssh", "host", v.Name, "seconds", fmt.Sprintf("%.1f", v.BootSeconds))
		}(i, &s.VMs[i])
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return fail(fmt.Errorf("booting the lab: %w", err))
	}
	if o.Slurm {
		t0 := time.Now()
		if _, err := s.WaitSlurmNodes(ctx); err != nil {
			return fail(err)
		}
		log.Info("slurm nodes registered", "seconds", fmt.Sprintf("%.1f", time.Since(t0).Seconds()))
	}
	return s, s.Save()
}

// waitSSH polls until the VM runs a command over SSH, failing early when its qemu exits.
func (s *State) waitSSH(ctx context.Context, v VM) error {
	for {
		if !alive(v) {
			return fmt.Errorf("%s: qemu exited during boot: %w; console tail:\n%s", v.Name, ErrVMDied, s.ConsoleTail(v, 15))
		}
		pctx, cancel := context.WithTimeout(ctx, 20*time.Second)
		err := s.Run(pctx, v.Name, "true", io.Discard, io.Discard)
		cancel()
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s: %w (last error: %v)", v.Name, ctx.Err(), err)
		case <-time.After(300 * time.Millisecond):
		}
	}
}

// ConsoleTail returns the last n lines of a VM's serial console log.
func (s *State) ConsoleTail(v VM, n int) string {
	b, err := os.ReadFile(v.Console)
	if err != nil {
		return "(no console log: " + err.Error() + ")"
	}
	lines := strings.Split(strings.TrimRight(strings.ReplaceAll(string(b), "\r", ""), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return "  | " + strings.Join(lines, "\n  | ")
}

func readPid(path string) (int, error) {
	for range 50 { // qemu -daemonize writes the pidfile before the parent returns; be lenient
		b, err := os.ReadFile(path)
		if err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && pid > 0 {
				return pid, nil
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	return 0, fmt.Errorf("reading pid file %s: no pid", path)
}

// alive reports whether the VM's qemu runs: the pid exists and is the qemu started for this VM
// (its command line names the VM's pid file), so a recycled pid is never mistaken for it.
func alive(v VM) bool { return pidRuns(v.Pid, v.PidFile) }

// pidRuns reports whether pid is a live (not zombie) process whose command line contains marker.
func pidRuns(pid int, marker string) bool {
	if pid <= 0 {
		return false
	}
	cmd, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		return false
	}
	st, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	return procRuns(cmd, st, marker)
}

// pfKthread is the kernel's PF_KTHREAD task flag (field 9 of /proc/PID/stat).
const pfKthread = 0x00200000

// procRuns judges one process from its /proc cmdline and stat: a zombie is dead; a command line
// naming marker is ours. An empty command line of a live user process is a process inside
// execve: the kernel installs the new memory map (and so closes the close-on-exec pipe that
// ends exec.Cmd.Start) before it writes the new argument block, so a check right after a
// start, or while `ip netns exec` execs its program, reads "" for a moment. That process is
// alive and, started by us a moment ago, ours; only a kernel thread, which always has an empty
// command line, is not.
func procRuns(cmdline, stat []byte, marker string) bool {
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 || i+2 >= len(stat) {
		return false
	}
	if stat[i+2] == 'Z' { // a zombie is dead
		return false
	}
	if len(cmdline) > 0 {
		return bytes.Contains(cmdline, []byte(marker))
	}
	// fields after the comm: state(3) ppid pgrp session tty_nr tpgid flags(9)
	f := strings.Fields(string(stat[i+1:]))
	if len(f) < 7 {
		return false
	}
	flags, err := strconv.ParseUint(f[6], 10, 64)
	return err == nil && flags&pfKthread == 0
}

func (s *State) anyAlive() bool {
	for _, v := range s.VMs {
		if alive(v) {
			return true
		}
	}
	return false
}

// Kill stops one VM's qemu: SIGTERM, then SIGKILL after 3 s.
func (s *State) Kill(v VM) {
	if !alive(v) {
		return
	}
	_ = syscall.Kill(v.Pid, syscall.SIGTERM)
	for range 30 {
		if !alive(v) {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	_ = syscall.Kill(v.Pid, syscall.SIGKILL)
	for range 20 {
		if !alive(v) {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// Down stops every VM, deletes the namespace (and with it the bridge and taps) and removes the
// state, keys and shares. Console logs stay in the state directory for post-mortems. Down is
// idempotent.
func (s *State) Down(ctx context.Context, log *slog.Logger) error {
	log = discard(log)
	s.Close()
	var wg sync.WaitGroup
	for _, v := range s.VMs {
		wg.Add(1)
		go func(v VM) { defer wg.Done(); s.Kill(v) }(v)
	}
	wg.Wait()
	s.stopSlurm()
	errs := []error{s.stopSwitches(), s.stopLeaves(ctx)}
	if netnsExists(s.Netns) {
		if err := command(ctx, "ip", "netns", "del", s.Netns); err != nil {
			errs = append(errs, fmt.Errorf("deleting the lab namespace: %w", err))
		}
	}
	for _, v := range s.VMs {
		_ = os.RemoveAll(v.Share)
		_ = os.Remove(v.PidFile)
	}
	for _, f := range []string{statePath(s.StateDir), s.KeyPath, s.KeyPath + ".pub", s.KnownHosts} {
		if err := os.Remove(f); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	log.Info("lab down", "dir", s.StateDir)
	return errors.Join(errs...)
}

// Down tears down the lab recorded in dir ("" = DefaultStateDir); a leftover namespace named
// netns is removed even without state. No lab at all is not an error.
func Down(ctx context.Context, dir, netns string, log *slog.Logger) error {
	s, err := Load(dir)
	if errors.Is(err, ErrNotRunning) {
		if dir == "" {
			dir = DefaultStateDir
		}
		cleanSlurmDir(dir)
		if netns == "" {
			netns = DefaultNetns
		}
		var errs []error
		for _, ns := range append([]string{netns}, leafNamespaces(netns)...) {
			if netnsExists(ns) {
				errs = append(errs, command(ctx, "ip", "netns", "del", ns))
			}
		}
		return errors.Join(errs...)
	}
	if err != nil {
		return err
	}
	return s.Down(ctx, log)
}

// HostStatus is one VM-host's health as Status reports it.
type HostStatus struct {
	Name     string `json:"name"`
	Address  string `json:"address"`
	Pid      int    `json:"pid"`
	Running  bool   `json:"running"` // qemu alive
	SSH      bool   `json:"ssh"`     // a command ran over SSH
	Error    string `json:"error,omitempty"`
	Console  string `json:"console"`
	ShareOut string `json:"shareOut"` // where guest-side results land on this machine
}

// StatusProbeTimeout bounds Status's SSH probe of one VM. A handshake with an emulated guest on
// a busy machine takes seconds; a VM silent for this long is considered hung.
const StatusProbeTimeout = 30 * time.Second

// Status probes every VM: qemu alive and a command over SSH (StatusProbeTimeout each, in
// parallel).
func (s *State) Status(ctx context.Context) []HostStatus {
	out := make([]HostStatus, len(s.VMs))
	var wg sync.WaitGroup
	for i, v := range s.VMs {
		out[i] = HostStatus{Name: v.Name, Address: v.Address.String(), Pid: v.Pid, Running: alive(v),
			Console: v.Console, ShareOut: filepath.Join(v.Share, "out")}
		if !out[i].Running {
			continue
		}
		wg.Add(1)
		go func(h *HostStatus) {
			defer wg.Done()
			pctx, cancel := context.WithTimeout(ctx, StatusProbeTimeout)
			defer cancel()
			if err := s.Run(pctx, h.Name, "true", io.Discard, io.Discard); err != nil {
				h.Error = err.Error()
				return
			}
			h.SSH = true
		}(&out[i])
	}
	wg.Wait()
	return out
}
