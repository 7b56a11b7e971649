package lab

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/fabricctl/fabricctl/action/launch/slurm"
	"github.com/fabricctl/fabricctl/lab/image"
)

// ErrSlurm: the lab's Slurm cluster did not come up.
var ErrSlurm = errors.New("lab slurm failed")

// Slurm defaults of the lab.
const (
	// SlurmClusterName is ClusterName in slurm.conf.
	SlurmClusterName = "fabricctl-lab"
	// SlurmControllerName is slurmctld's host name (SlurmctldHost); slurmctld runs in a UTS
	// namespace of its own with this name, at the controller's address on the lab bridge.
	SlurmControllerName = "fabricctl-ctl"
	// SlurmPartition is the lab's one partition, holding every VM-host.
	SlurmPartition = "lab"
	// DefaultHealthCheckInterval is HealthCheckInterval: how often slurmctld has every slurmd run
	// the HealthCheckProgram (fabricctl check --local -o nhc --drain).
	DefaultHealthCheckInterval = 30 * time.Second
	// SlurmRegisterTimeout bounds slurmd start → every node registered with slurmctld.
	SlurmRegisterTimeout = 90 * time.Second
	// GuestFabricctl is where the guests find the fabricctl binary (the 9p share).
	GuestFabricctl = "/mnt/host/fabricctl"
	// GuestHealthCheck is the lab's HealthCheckProgram (lab/image/guest/bin).
	GuestHealthCheck = "/lab/bin/fabricctl-healthcheck"
	// GuestSlurmFabric is the fabric file the health check judges the host against, when
	// present (SetSlurmFabric puts it there).
	GuestSlurmFabric = "/mnt/host/slurm/fabric.yaml"
)

// SlurmCluster is the lab's Slurm as recorded in the state: slurmctld and its munged run in the
// lab namespace from the image's controller tree; munged and slurmd run in every VM.
type SlurmCluster struct {
	Dir         string `json:"dir"`         // StateDir/slurm: configuration, key, state, logs
	Conf        string `json:"conf"`        // the controller side's slurm.conf (SLURM_CONF)
	Bin         string `json:"bin"`         // the controller tree's bin/ (srun, scontrol, sinfo, …)
	MungeSocket string `json:"mungeSocket"` // the controller side's munged
	MungedPid   int    `json:"mungedPid,omitempty"`
	CtldPid     int    `json:"slurmctldPid,omitempty"`
	CtldLog     string `json:"slurmctldLog"`
	// HealthCheckInterval is slurm.conf's HealthCheckInterval.
	HealthCheckInterval time.Duration `json:"healthCheckInterval"`
}

// SlurmEnv is the environment that points Slurm's commands at the lab cluster: SLURM_CONF and a
// PATH starting with the controller tree's bin/. Commands must run in the lab namespace.
func (s *State) SlurmEnv() []string {
	if s.Slurm == nil {
		return nil
	}
	return []string{"SLURM_CONF=" + s.Slurm.Conf, "PATH=" + s.Slurm.Bin + ":" + os.Getenv("PATH")}
}

// SlurmConfig is what SlurmConf renders.
type SlurmConfig struct {
	Controller string   // slurmctld's address on the lab bridge
	Nodes      []VM     // the VM-hosts (NodeName = host name, NodeAddr = address)
	CPUs       int      // per VM
	Interval   int      // HealthCheckInterval, seconds
	Side       string   // "controller" or "node"
	PluginDir  string   // where the plugins are on that side
	AuthSocket string   // MUNGE socket (controller side only; nodes use munged's default)
	StateDir   string   // controller: StateSaveLocation, pid and log files
	Extra      []string // further lines (tests)
}

// SlurmConf renders slurm.conf. The nodes' and the controller's differ only in where plugins,
// MUNGE's socket and the daemons' files are (DebugFlags=NO_CONF_HASH keeps Slurm from warning
// about that): the controller side runs from the image's controller tree.
func SlurmConf(c SlurmConfig) string {
	var b strings.Builder
	w := func(format string, a ...any) { fmt.Fprintf(&b, format+"\n", a...) }
	w("# slurm.conf of the fabricctl soft-RoCE lab (%s side), written by `fabricctl lab up --slurm`", c.Side)
	w("ClusterName=%s", SlurmClusterName)
	w("SlurmctldHost=%s(%s)", SlurmControllerName, c.Controller)
	w("SlurmUser=root")
	w("SlurmdUser=root")
	w("AuthType=auth/munge")
	w("CredType=cred/munge")
	if c.AuthSocket != "" {
		w("AuthInfo=socket=%s", c.AuthSocket)
	}
	w("PluginDir=%s", c.PluginDir)
	w("DebugFlags=NO_CONF_HASH")
	if c.Side == "controller" {
		w("StateSaveLocation=%s", filepath.Join(c.StateDir, "state"))
		w("SlurmctldPidFile=%s", filepath.Join(c.StateDir, "slurmctld.pid"))
		w("SlurmctldLogFile=%s", filepath.Join(c.StateDir, "slurmctld.log"))
	}
	w("SlurmdSpoolDir=/var/spool/slurmd")
	w("SlurmdPidFile=/run/slurmd.pid")
	w("SlurmdLogFile=/mnt/host/out/slurmd.log")
	w("SlurmctldDebug=info")
	w("SlurmdDebug=info")
	w("SelectType=select/cons_tres")
	w("SelectTypeParameters=CR_CPU")
	w("ProctrackType=proctrack/pgid")
	w("TaskPlugin=task/none")
	w("SwitchType=switch/none")
	w("MpiDefault=none")
	w("JobAcctGatherType=jobacct_gather/none")
	w("AccountingStorageType=accounting_storage/none")
	w("JobCompType=jobcomp/none")
	w("SchedulerType=sched/builtin")
	w("ReturnToService=2")
	w("# emulated VMs answer slowly on a loaded machine")
	w("SlurmdTimeout=300")
	w("MessageTimeout=60")
	w("KillWait=5")
	w("InactiveLimit=0")
	w("# the node checks itself; it drains (and resumes) itself through scontrol")
	w("HealthCheckProgram=%s", GuestHealthCheck)
	w("HealthCheckInterval=%d", c.Interval)
	w("HealthCheckNodeState=ANY")
	for _, l := range c.Extra {
		w("%s", l)
	}
	cpus := c.CPUs
	if cpus <= 0 {
		cpus = 1
	}
	for _, v := range c.Nodes {
		w("NodeName=%s NodeAddr=%s CPUs=%d State=UNKNOWN", v.Name, v.Address, cpus)
	}
	w("PartitionName=%s Nodes=ALL Default=YES MaxTime=INFINITE State=UP", SlurmPartition)
	return b.String()
}

// prepareSlurm writes the MUNGE key and both slurm.conf files, and gives every VM its share of
// them plus the fabricctl binary (bin) the health check and srun's tasks run.
func (s *State) prepareSlurm(img image.Image, bin string, interval time.Duration) error {
	if img.Controller == "" {
		return fmt.Errorf("%w: the lab image has no controller tree (rebuild it: fabricctl lab build)", ErrSlurm)
	}
	if bin == "" {
		return fmt.Errorf("%w: no fabricctl binary for the guests (Options.Fabricctl)", ErrSlurm)
	}
	if interval <= 0 {
		interval = DefaultHealthCheckInterval
	}
	dir := filepath.Join(s.StateDir, "slurm")
	cleanSlurmDir(s.StateDir)
	// munged refuses a socket directory others cannot search, and a key others can read
	if err := os.MkdirAll(filepath.Join(dir, "state"), 0o755); err != nil {
		return fmt.Errorf("creating %s: %w", dir, err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		return err
	}
	key := make([]byte, 1024)
	if _, err := rand.Read(key); err != nil {
		return fmt.Errorf("generating the MUNGE key: %w", err)
	}
	c := &SlurmCluster{Dir: dir, Conf: filepath.Join(dir, "slurm.conf"), Bin: filepath.Join(img.Controller, "bin"),
		MungeSocket: filepath.Join(dir, "munge.socket"), CtldLog: filepath.Join(dir, "slurmctld.log"),
		HealthCheckInterval: interval}
	cfg := SlurmConfig{Controller: s.Topology.Controller.String(), Nodes: s.VMs, CPUs: s.CPUs,
		Interval: int(interval.Round(time.Second) / time.Second)}
	ctl := cfg
	ctl.Side, ctl.PluginDir, ctl.AuthSocket, ctl.StateDir = "controller", filepath.Join(img.Controller, image.SlurmPluginDir), c.MungeSocket, dir
	node := cfg
	node.Side, node.PluginDir = "node", "/"+image.SlurmPluginDir
	files := map[string][]byte{"munge.key": key, "slurm.conf": []byte(SlurmConf(ctl))}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			return fmt.Errorf("writing %s: %w", name, err)
		}
	}
	if err := os.Chmod(c.Conf, 0o644); err != nil {
		return err
	}
	shared := filepath.Join(s.StateDir, "fabricctl")
	_ = os.Remove(shared)
	if err := copyFile(bin, shared, 0o755); err != nil {
		return fmt.Errorf("copying fabricctl for the guests: %w", err)
	}
	for _, v := range s.VMs {
		sd := filepath.Join(v.Share, "slurm")
		if err := os.MkdirAll(sd, 0o700); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(sd, "munge.key"), key, 0o600); err != nil {
			return fmt.Errorf("writing the MUNGE key for %s: %w", v.Name, err)
		}
		if err := os.WriteFile(filepath.Join(sd, "slurm.conf"), []byte(SlurmConf(node)), 0o644); err != nil {
			return fmt.Errorf("writing slurm.conf for %s: %w", v.Name, err)
		}
		// one copy of the binary for every VM: a hard link into each share
		dst := filepath.Join(v.Share, "fabricctl")
		_ = os.Remove(dst)
		if err := os.Link(shared, dst); err != nil {
			if err := copyFile(shared, dst, 0o755); err != nil {
				return fmt.Errorf("giving %s the fabricctl binary: %w", v.Name, err)
			}
		}
	}
	s.Slurm = c
	return s.Save()
}

func copyFile(src, dst string, perm os.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, perm)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// startSlurmController starts munged and slurmctld in the lab namespace (slurmctld in a UTS
// namespace named SlurmControllerName, as SlurmctldHost says), detached like the switch
// simulators, and waits until slurmctld answers.
func (s *State) startSlurmController(ctx context.Context) error {
	c := s.Slurm
	mlog := filepath.Join(c.Dir, "munged.log")
	munged := exec.Command("ip", "netns", "exec", s.Netns, filepath.Join(c.Bin, "munged"), "-F",
		"--socket="+c.MungeSocket, "--key-file="+filepath.Join(c.Dir, "munge.key"),
		"--pid-file="+filepath.Join(c.Dir, "munged.pid"), "--seed-file="+filepath.Join(c.Dir, "munged.seed"),
		"--log-file="+mlog)
	pid, err := startDetached(munged, filepath.Join(c.Dir, "munged.out"))
	if err != nil {
		return fmt.Errorf("%w: starting munged: %w", ErrSlurm, err)
	}
	c.MungedPid = pid
	if err := s.Save(); err != nil {
		return err
	}
	if err := waitFor(ctx, 10*time.Second, func() (bool, error) {
		if !pidRuns(c.MungedPid, c.MungeSocket) {
			return false, fmt.Errorf("munged exited: %s", tail(mlog, 5))
		}
		_, err := os.Stat(c.MungeSocket)
		return err == nil, nil
	}); err != nil {
		return fmt.Errorf("%w: munged: %w", ErrSlurm, err)
	}
	script := fmt.Sprintf("hostname %s && exec %s -D -f %s", SlurmControllerName, filepath.Join(c.Bin, "slurmctld"), c.Conf)
	ctld := exec.Command("ip", "netns", "exec", s.Netns, "unshare", "--uts", "sh", "-c", script)
	ctld.Env = append(os.Environ(), "SLURM_CONF="+c.Conf)
	if pid, err = startDetached(ctld, filepath.Join(c.Dir, "slurmctld.out")); err != nil {
		return fmt.Errorf("%w: starting slurmctld: %w", ErrSlurm, err)
	}
	c.CtldPid = pid
	if err := s.Save(); err != nil {
		return err
	}
	cl := slurm.Client{Run: s.SlurmRunner()}
	var last error
	if err := waitFor(ctx, 30*time.Second, func() (bool, error) {
		if !pidRuns(c.CtldPid, c.Conf) {
			return false, fmt.Errorf("slurmctld exited: %s", tail(c.CtldLog, 8))
		}
		qctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		_, last = cl.Nodes(qctx)
		return last == nil, nil
	}); err != nil {
		return fmt.Errorf("%w: slurmctld: %w (last: %v)", ErrSlurm, err, last)
	}
	return nil
}

// startDetached starts cmd in a session of its own with stdout and stderr in logPath and
// returns its pid (ip netns exec, unshare and sh exec their program: it is the daemon's).
func startDetached(cmd *exec.Cmd, logPath string) (int, error) {
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return 0, err
	}
	defer logf.Close()
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	pid := cmd.Process.Pid
	_ = cmd.Process.Release()
	return pid, nil
}

// waitFor polls cond every 200 ms until it is true, fails, or bound passes.
func waitFor(ctx context.Context, bound time.Duration, cond func() (bool, error)) error {
	ctx, cancel := context.WithTimeout(ctx, bound)
	defer cancel()
	for {
		ok, err := cond()
		if err != nil {
			return err
		}
		if ok {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("not ready within %s: %w", bound, ctx.Err())
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// SlurmRunner runs the controller tree's Slurm commands inside the lab namespace.
func (s *State) SlurmRunner() slurm.Runner { return netnsRunner{s: s} }

type netnsRunner struct{ s *State }

func (r netnsRunner) Run(ctx context.Context, name string, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if r.s.Slurm == nil {
		return fmt.Errorf("running %s: %w: the lab has no Slurm (lab up --slurm)", name, ErrSlurm)
	}
	argv := append([]string{"ip", "netns", "exec", r.s.Netns, "env", "SLURM_CONF=" + r.s.Slurm.Conf, filepath.Join(r.s.Slurm.Bin, name)}, args...)
	return slurm.Exec{}.Run(ctx, argv[0], argv[1:], stdin, stdout, stderr)
}

// WaitSlurmNodes waits until every VM-host's slurmd has registered with slurmctld (the node is
// no longer UNKNOWN and answers), bounded by SlurmRegisterTimeout, and returns the nodes.
func (s *State) WaitSlurmNodes(ctx context.Context) ([]slurm.Node, error) {
	cl := slurm.Client{Run: s.SlurmRunner()}
	var nodes []slurm.Node
	var pending []string
	err := waitFor(ctx, SlurmRegisterTimeout, func() (bool, error) {
		if !pidRuns(s.Slurm.CtldPid, s.Slurm.Conf) {
			return false, fmt.Errorf("slurmctld exited: %s", tail(s.Slurm.CtldLog, 8))
		}
		qctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		n, err := cl.Nodes(qctx)
		if err != nil {
			return false, nil
		}
		nodes, pending = n, nil
		for _, x := range n {
			if !x.Responding() {
				pending = append(pending, x.Name+" "+x.StateString())
			}
		}
		return len(pending) == 0, nil
	})
	if err != nil {
		var logs bytes.Buffer
		for _, v := range s.VMs {
			fmt.Fprintf(&logs, "\n%s slurmd.log:\n%s", v.Name, tail(filepath.Join(v.Share, "out", "slurmd.log"), 6))
		}
		return nodes, fmt.Errorf("%w: slurmd not registered on %s: %w%s", ErrSlurm, strings.Join(pending, ", "), err, logs.String())
	}
	return nodes, nil
}

// SetSlurmFabric gives every VM the fabric file its health check judges the host against
// (GuestSlurmFabric); "" removes it (every RDMA netdev is checked, nothing desired).
func (s *State) SetSlurmFabric(data []byte) error {
	for _, v := range s.VMs {
		p := filepath.Join(v.Share, "slurm", "fabric.yaml")
		if data == nil {
			if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
				return err
			}
			continue
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			return fmt.Errorf("writing the health check's fabric for %s: %w", v.Name, err)
		}
	}
	return nil
}

// stopSlurm stops slurmctld and munged (SIGTERM, SIGKILL after 3 s) and removes their files and
// the guests' fabricctl copy. The VMs' daemons die with the VMs.
func (s *State) stopSlurm() {
	if s.Slurm != nil {
		stopSlurmDaemons([]daemon{{s.Slurm.CtldPid, s.Slurm.Conf}, {s.Slurm.MungedPid, s.Slurm.MungeSocket}})
	}
	cleanSlurmDir(s.StateDir)
}

type daemon struct {
	pid    int
	marker string // in its command line, so that a recycled pid is never killed
}

func stopSlurmDaemons(ds []daemon) {
	for _, p := range ds {
		if !pidRuns(p.pid, p.marker) {
			continue
		}
		_ = syscall.Kill(p.pid, syscall.SIGTERM)
		for i := 0; i < 50 && pidRuns(p.pid, p.marker); i++ {
			if i == 30 {
				_ = syscall.Kill(p.pid, syscall.SIGKILL)
			}
			reap(p.pid)
			time.Sleep(100 * time.Millisecond)
		}
	}
}

// cleanSlurmDir stops the daemons whose pid files are in stateDir/slurm — a lab whose state is
// gone (torn down by a fabricctl that knew no Slurm) leaves them running — and removes the
// directory and the guests' fabricctl copy.
func cleanSlurmDir(stateDir string) {
	dir := filepath.Join(stateDir, "slurm")
	var ds []daemon
	for name, marker := range map[string]string{"slurmctld.pid": filepath.Join(dir, "slurm.conf"), "munged.pid": filepath.Join(dir, "munge.socket")} {
		if b, err := os.ReadFile(filepath.Join(dir, name)); err == nil {
			var pid int
			if _, err := fmt.Sscan(strings.TrimSpace(string(b)), &pid); err == nil {
				ds = append(ds, daemon{pid, marker})
			}
		}
	}
	stopSlurmDaemons(ds)
	_ = os.RemoveAll(dir)
	_ = os.Remove(filepath.Join(stateDir, "fabricctl"))
}
