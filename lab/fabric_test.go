package lab

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/internal/testutil"
	"github.com/fabricctl/fabricctl/switchcfg/all"
)

func TestTopologyFromFabric(t *testing.T) {
	path := filepath.Join(testutil.RepoRoot(t), "profiles", "lab", "fabric.yaml")
	f, err := fabric.Load(path, fabric.Options{Platforms: all.Registry()})
	if err != nil {
		t.Fatal(err)
	}
	topo, err := TopologyFromFabric(f, path)
	if err != nil {
		t.Fatal(err)
	}
	if err := topo.Validate(); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, h := range topo.Hosts {
		got = append(got, h.Name+"="+h.Address.String())
	}
	if want := "lab-h1=10.99.0.11 lab-h2=10.99.0.12 lab-h3=10.99.0.13 lab-h4=10.99.0.14"; strings.Join(got, " ") != want {
		t.Errorf("hosts %v, want %s", got, want)
	}
	var extra []string
	for _, a := range topo.Extra {
		extra = append(extra, a.String())
	}
	if want := "10.99.0.101 10.99.0.102 10.99.0.201"; strings.Join(extra, " ") != want {
		t.Errorf("extra addresses %v, want %s", extra, want)
	}
}
