package lab

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fabricctl/fabricctl/internal/testutil"
)

func TestSlurmConfGolden(t *testing.T) {
	s, err := Plan(DefaultTopology(), Options{StateDir: "/run/fabricctl-lab"})
	if err != nil {
		t.Fatal(err)
	}
	base := SlurmConfig{Controller: "10.99.0.1", Nodes: s.VMs, CPUs: 1, Interval: 30}
	ctl := base
	ctl.Side, ctl.PluginDir, ctl.AuthSocket, ctl.StateDir = "controller", "/cache/images/HASH/controller/usr/lib/x86_64-linux-gnu/slurm-wlm", "/run/fabricctl-lab/slurm/munge.socket", "/run/fabricctl-lab/slurm"
	node := base
	node.Side, node.PluginDir = "node", "/usr/lib/x86_64-linux-gnu/slurm-wlm"
	testutil.Golden(t, "slurm.conf.controller.golden", []byte(SlurmConf(ctl)))
	testutil.Golden(t, "slurm.conf.node.golden", []byte(SlurmConf(node)))
	for _, want := range []string{"HealthCheckProgram=" + GuestHealthCheck, "HealthCheckInterval=30", "NodeName=lab-h3 NodeAddr=10.99.0.13 CPUs=1"} {
		if !strings.Contains(SlurmConf(node), want+"\n") && !strings.Contains(SlurmConf(node), want+" ") {
			t.Errorf("node slurm.conf lacks %q", want)
		}
	}
}

// TestOrphanedSlurmDaemonsAreStopped: a lab torn down by a fabricctl that knew no Slurm leaves
// slurmctld and munged running; the next down (or up) finds them by their pid files and stops
// only them (the pid must still run the lab's configuration).
func TestOrphanedSlurmDaemonsAreStopped(t *testing.T) {
	state := t.TempDir()
	dir := filepath.Join(state, "slurm")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	conf := filepath.Join(dir, "slurm.conf")
	ctld := exec.Command("sh", "-c", "sleep 600", conf) // its command line names the configuration
	other := exec.Command("sleep", "600")               // a process that happens to have munged's old pid
	for _, c := range []*exec.Cmd{ctld, other} {
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
	}
	defer other.Process.Kill()
	waited := make(chan error, 1)
	go func() { waited <- ctld.Wait() }()
	for name, pid := range map[string]int{"slurmctld.pid": ctld.Process.Pid, "munged.pid": other.Process.Pid} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(fmt.Sprintf("%d\n", pid)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(state, "fabricctl"), []byte("bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := Down(context.Background(), state, "fabricctl-test-no-such-netns", nil); err != nil {
		t.Fatal(err)
	}
	select {
	case <-waited:
	case <-time.After(10 * time.Second):
		t.Fatal("the orphaned slurmctld still runs")
	}
	if other.ProcessState != nil || syscall.Kill(other.Process.Pid, 0) != nil {
		t.Error("a process that is not the lab's munged was killed")
	}
	for _, p := range []string{dir, filepath.Join(state, "fabricctl")} {
		if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s left behind", p)
		}
	}
}
