package checklocal

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/internal/testutil"
)

func TestFindHost(t *testing.T) {
	file := filepath.Join(testutil.RepoRoot(t), "profiles", "lab", "fabric.yaml")
	f, err := fabric.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	// the schedulers name lab-hN "slurm-N" and "k8s-N"
	byPrefix := func(p string) func(fabric.HostIntent) string {
		return func(h fabric.HostIntent) string { return p + strings.TrimPrefix(h.Host, "lab-h") }
	}
	sched := []Scheduler{{Env: "FABRICCTL_TEST_SLURM", Node: byPrefix("slurm-")}, {Env: "FABRICCTL_TEST_K8S", Node: byPrefix("k8s-")}}
	find := func(host string) string {
		t.Helper()
		h, err := FindHost(f, "lab.yaml", host, sched)
		if err != nil {
			return "error: " + err.Error()
		}
		return h.Host
	}
	t.Setenv("FABRICCTL_TEST_SLURM", "")
	t.Setenv("FABRICCTL_TEST_K8S", "")
	if got := find("lab-h2"); got != "lab-h2" {
		t.Errorf("--host lab-h2: %s", got)
	}
	if got := find("gpu-9"); got != `error: lab.yaml: no host "gpu-9" (hosts: lab-h1, lab-h2, lab-h3, lab-h4)` {
		t.Errorf("--host gpu-9: %s", got)
	}
	t.Setenv("FABRICCTL_TEST_K8S", "k8s-4")
	if got := find(""); got != "lab-h4" {
		t.Errorf("k8s node k8s-4: %s", got)
	}
	t.Setenv("FABRICCTL_TEST_SLURM", "slurm-3")
	if got := find(""); got != "lab-h3" {
		t.Errorf("slurm node slurm-3 before k8s-4: %s", got)
	}
	t.Setenv("FABRICCTL_TEST_SLURM", "slurm-9")
	t.Setenv("FABRICCTL_TEST_K8S", "k8s-9")
	if got := find(""); !strings.HasPrefix(got, "error: lab.yaml: no host of the fabric is this machine (FABRICCTL_TEST_SLURM=slurm-9, FABRICCTL_TEST_K8S=k8s-9, host name ") {
		t.Errorf("no match: %s", got)
	}
}

func TestOptionsForFabric(t *testing.T) {
	f, err := fabric.Load(filepath.Join(testutil.RepoRoot(t), "profiles", "lab", "fabric.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	h, err := f.Resolve().Host("lab-h1")
	if err != nil {
		t.Fatal(err)
	}
	var o Options
	o.ForFabric(f, h)
	if o.Intent.Host != "lab-h1" || o.Name != f.Metadata.Name || len(o.Peers) != 3 {
		t.Errorf("options %+v, want lab-h1 with its 3 peers", o)
	}
	for _, p := range o.Peers {
		if p.Name == "lab-h1" || p.Address == "" {
			t.Errorf("peer %+v", p)
		}
	}
}
