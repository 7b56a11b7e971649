package lab

import (
	"strings"
	"testing"

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
