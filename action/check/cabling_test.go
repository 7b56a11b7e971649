package check

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/agent"
	"github.com/fabricctl/fabricctl/agent/agentclient"
	"github.com/fabricctl/fabricctl/checks/lldpagent"
	"github.com/fabricctl/fabricctl/checks/topology"
	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/internal/testutil"
)

// lldpHost is a host whose agent answers the lldp op with one neighbour
// (switch sw, port) on eth0, in lldpcli's JSON shape; sw "" is a host
// without lldpd.
func lldpHost(name, sw, port string) Host {
	h := &agent.Handler{}
	(&lldpagent.Agent{Run: func(context.Context, []string) ([]byte, error) {
		if sw == "" {
			return nil, lldpagent.ErrNoLLDPD
		}
		return fmt.Appendf(nil, `{"lldp": {"interface": {"eth0": {"via": "LLDP", "chassis": {%q: {"id": {"type": "mac", "value": "52:54:00:00:00:01"}}}, "port": {"id": {"type": "ifname", "value": %q}, "ttl": "120"}}}}}`, sw, port), nil
	}}).Register(h)
	return Host{Intent: fabric.HostIntent{Host: name}, Agent: agentclient.Local{Handler: h}}
}

// TestDiscoverCabling: the hosts' LLDP, read over their agents, is
// compared with the declared cabling: a host on another leaf than declared
// is named; hosts cabled as declared, and a host without lldpd (left out,
// with a note), give no finding.
func TestDiscoverCabling(t *testing.T) {
	f, err := fabric.Load(filepath.Join(testutil.RepoRoot(t), "profiles/lab/two-leaf.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	declared := topology.Declared(f)
	var notes []string
	note := func(format string, a ...any) { notes = append(notes, fmt.Sprintf(format, a...)) }
	hosts := []Host{lldpHost("lab-h1", "leaf-01", "swp1"), lldpHost("lab-h2", "leaf-01", "swp2"), lldpHost("lab-h3", "leaf-02", "swp1"), lldpHost("lab-h4", "", "")}
	if got := discoverCabling(t.Context(), hosts, declared, nil, note); len(got) != 0 {
		t.Errorf("cabled as declared: findings %+v", got)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "lab-h4") || !strings.Contains(notes[0], "install lldpd") {
		t.Errorf("notes %q, want one about lab-h4's missing lldpd", notes)
	}
	// the switches' side: leaf-02 sees leaf-01 on swp49 and nobody on
	// swp2 (lab-h4 runs no lldpd): not a missing cable; leaf-01 sees no
	// one on swp2 although lab-h2 says it is there: the host's word holds
	leaves := func(context.Context) ([]topology.Observation, []error) {
		return []topology.Observation{
			{Device: "leaf-01", Neighbors: []fabric.Neighbor{{LocalPort: "swp49", SystemName: "leaf-02", PortIDType: "ifname", PortID: "swp49"},
				{LocalPort: "swp1", SystemName: "lab-h1", PortIDType: "ifname", PortID: "eth0"}}},
			{Device: "leaf-02", Neighbors: []fabric.Neighbor{{LocalPort: "swp49", SystemName: "leaf-01", PortIDType: "ifname", PortID: "swp49"}}},
		}, nil
	}
	if got := discoverCabling(t.Context(), hosts, declared, leaves, note); len(got) != 0 {
		t.Errorf("with the leaves' tables: findings %+v", got)
	}
	hosts[1] = lldpHost("lab-h2", "leaf-02.example.com", "swp2")
	got := discoverCabling(t.Context(), hosts, declared, nil, note)
	if len(got) != 1 || got[0].Kind != topology.WrongLeaf || got[0].At.String() != "lab-h2:eth0" {
		t.Fatalf("lab-h2 on leaf-02: findings %+v, want one wrong-leaf at lab-h2:eth0", got)
	}
}
