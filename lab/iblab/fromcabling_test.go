package iblab

import (
	"os"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/fabric"
)

// TestFromFabricCabling: a fabric that declares its InfiniBand cabling is
// simulated as declared: the lab fabric's is the demo's shape.
func TestFromFabricCabling(t *testing.T) {
	f, err := fabric.Load(labFabric, fabric.Options{})
	if err != nil {
		t.Fatal(err)
	}
	topo, guids, err := FromFabric(f)
	if err != nil {
		t.Fatal(err)
	}
	if topo.SMNode != "sm-01" || len(topo.Nodes) != 8 || len(topo.Links) != 7 || topo.CabledPorts() != 14 {
		t.Fatalf("topology: SM %s, %d nodes, %d links", topo.SMNode, len(topo.Nodes), len(topo.Links))
	}
	net := topo.Net()
	for _, w := range []string{"switchguid=0x0008f10400000201\nSwitch\t8 \"leaf-01\"\n[1]\t\"ib-h1\"[1]\n[2]\t\"ib-h2\"[1]\n[3]\t\"sm-01\"[1]\n[7]\t\"spine-01\"[1]\n",
		"caguid=0x0002c90300003000\nHca\t1 \"ib-h3\"\n[1]\t\"leaf-02\"[1]\n"} {
		if !strings.Contains(net, w) {
			t.Errorf("net file lacks\n%s\nin\n%s", w, net)
		}
	}
	if g := guids["ib-h4"]; len(g) != 1 || g[0] != "0x0002c90300004001" {
		t.Errorf("ib-h4's port GUIDs: %v", g)
	}
	if _, ok := guids["sm-01"]; ok {
		t.Error("a subnet manager is no partition host")
	}
}

func TestFromFabricCablingHCAs(t *testing.T) {
	src := strings.Replace(mustRead(t, labFabric), "      - endpoints: [ib-h4:1, leaf-02:2]\n", "      - endpoints: [ib-h4/mlx5_0:1, leaf-02:2]\n      - endpoints: [ib-h4/mlx5_1:1, leaf-02:3]\n", 1)
	f, err := fabric.Load("ib.yaml", fabric.Options{ReadFile: func(string) ([]byte, error) { return []byte(src), nil }})
	if err != nil {
		t.Fatal(err)
	}
	topo, guids, err := FromFabric(f)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(topo.Net(), "Hca\t1 \"ib-h4 mlx5_1\"\n[1]\t\"leaf-02\"[3]\n") || len(guids["ib-h4"]) != 2 {
		t.Errorf("two HCAs of ib-h4: %v\n%s", guids["ib-h4"], topo.Net())
	}
	bad := strings.Replace(mustRead(t, labFabric), "{name: ib-h1, address: 10.98.0.11,", `{name: ib-h1, portGuids: ["0x0002c90300001001", "0x0002c90300001003"], address: 10.98.0.11,`, 1)
	bad = strings.Replace(bad, "[ib-h1:1, leaf-01:1]", "[ib-h1:2, leaf-01:1]", 1)
	f, err = fabric.Load("ib.yaml", fabric.Options{ReadFile: func(string) ([]byte, error) { return []byte(bad), nil }})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := FromFabric(f); err == nil || !strings.Contains(err.Error(), "port GUIDs must be consecutive") {
		t.Errorf("non-consecutive port GUIDs: %v", err)
	}
}

func mustRead(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
