package fabric

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// ibProfile is a valid InfiniBand profile for the IB cabling tests.
const ibProfile = `apiVersion: fabricctl.io/v1alpha1
kind: Profile
metadata:
  name: ibp
spec:
  infiniband:
    partitions:
      - name: tenant
        pkey: 0x0001
        members:
          - hosts: {names: [ib-h1, ib-h2]}
            membership: full
`

// ibFabric declares two hosts (ib-h1 with two port GUIDs), a subnet
// manager, two leaves and a spine, cabled.
const ibFabric = `apiVersion: fabricctl.io/v1alpha1
kind: Fabric
metadata:
  name: f
spec:
  include: [p.yaml]
  hosts:
    - {name: ib-h1, address: 10.0.0.1, profile: ibp, portGuids: ["0x0002c90300001001", "0x0002c90300001002"]}
    - {name: ib-h2, address: 10.0.0.2, profile: ibp}
  subnetManagers:
    - {name: sm-01, kind: opensm, address: 10.0.0.9, profile: ibp}
  infiniband:
    linkWidth: 4X
    linkSpeed: EDR
    switches:
      - {name: leaf-01, guid: "0x0008f10400000201", ports: 36}
      - {name: leaf-02, ports: 36}
      - {name: spine-01, guid: "0x0008f10400000100", ports: 8}
    links:
      - endpoints: [leaf-01:1, ib-h1:1]
      - endpoints: [ib-h1:2, leaf-02:1]
      - endpoints: [ib-h2/mlx5_1:1, leaf-02:2]
      - endpoints: [sm-01:1, leaf-01:3]
      - {endpoints: [leaf-01:35, spine-01:1], width: 4X, speed: HDR}
      - {endpoints: [leaf-02:35, spine-01:2]}
`

func loadIB(t *testing.T, fab string) (*Fabric, error) {
	t.Helper()
	return Load("f.yaml", Options{ReadFile: memFS(map[string]string{"f.yaml": fab, "p.yaml": ibProfile})})
}

func TestIBCablingResolves(t *testing.T) {
	f, err := loadIB(t, ibFabric)
	if err != nil {
		t.Fatalf("valid InfiniBand cabling rejected: %v", err)
	}
	var got []string
	for _, c := range f.IBCabling() {
		got = append(got, c.String()+" "+c.Width+" "+c.Speed+" @"+c.Path)
	}
	want := []string{
		"ib-h1:1 <-> leaf-01:1 4X EDR @spec.infiniband.links[0]",
		"ib-h1:2 <-> leaf-02:1 4X EDR @spec.infiniband.links[1]",
		"ib-h2/mlx5_1:1 <-> leaf-02:2 4X EDR @spec.infiniband.links[2]",
		"leaf-01:35 <-> spine-01:1 4X HDR @spec.infiniband.links[4]",
		"leaf-02:35 <-> spine-01:2 4X EDR @spec.infiniband.links[5]",
		"sm-01:1 <-> leaf-01:3 4X EDR @spec.infiniband.links[3]",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("IBCabling (-want +got):\n%s", d)
	}
	nodes := map[string]IBNode{}
	for _, n := range f.IBNodes() {
		nodes[n.Name] = n
	}
	if n := nodes["ib-h1"]; n.Kind != IBHost || n.PortGUIDs[2] != 0x0002c90300001002 {
		t.Errorf("ib-h1: %+v", n)
	}
	if n := nodes["ib-h2/mlx5_1"]; n.Host != "ib-h2" || n.HCA != "mlx5_1" || n.PortGUIDs != nil {
		t.Errorf("ib-h2/mlx5_1: %+v", n)
	}
	if n := nodes["sm-01"]; n.Kind != IBSubnetManager {
		t.Errorf("sm-01: %+v", n)
	}
	if n := nodes["leaf-01"]; n.Kind != IBSwitchNode || n.GUID != 0x0008f10400000201 || n.Ports != 36 {
		t.Errorf("leaf-01: %+v", n)
	}
	if len(nodes) != 6 {
		t.Errorf("%d nodes, want 6: %v", len(nodes), nodes)
	}
}

func TestIBCablingInvalid(t *testing.T) {
	P := func(old, new string) string { return edit(t, ibFabric, old, new) }
	cases := []struct {
		name, fab string
		want      []string
	}{
		{"bad default width", P("linkWidth: 4X", "linkWidth: 3X"),
			[]string{`f.yaml:13:16: spec.infiniband.linkWidth: "3X" is not one of 1X, 2X, 4X, 8X, 12X`}},
		{"bad default speed", P("linkSpeed: EDR", "linkSpeed: 100G"),
			[]string{`f.yaml:14:16: spec.infiniband.linkSpeed: "100G" is not one of SDR, DDR, QDR, FDR10, FDR, EDR, HDR, NDR, XDR`}},
		{"bad link width", P("width: 4X, speed: HDR", "width: 16X, speed: HDR"),
			[]string{`spec.infiniband.links[4].width: "16X" is not one of 1X, 2X, 4X, 8X, 12X`}},
		{"bad link speed", P("width: 4X, speed: HDR", "width: 4X, speed: hdr"),
			[]string{`spec.infiniband.links[4].speed: "hdr" is not one of SDR, DDR, QDR, FDR10, FDR, EDR, HDR, NDR, XDR`}},
		{"switch without a name", P("{name: leaf-02, ports: 36}", "{ports: 36}"),
			[]string{"spec.infiniband.switches[1].name: required"}},
		{"switch name not a name", P("{name: leaf-02, ports: 36}", "{name: Leaf_02, ports: 36}"),
			[]string{`spec.infiniband.switches[1].name: "Leaf_02": a switch name is lowercase letters`}},
		{"switch named like a host", P("{name: leaf-02, ports: 36}", "{name: ib-h2, ports: 36}"),
			[]string{`spec.infiniband.switches[1].name: "ib-h2" is already a host or subnet manager`}},
		{"switch twice", P("{name: leaf-02, ports: 36}", "{name: leaf-01, ports: 36}"),
			[]string{`spec.infiniband.switches[1].name: switch "leaf-01" is declared twice`}},
		{"bad guid", P(`guid: "0x0008f10400000100"`, `guid: "0x8f10400000100"`),
			[]string{`spec.infiniband.switches[2].guid: "0x8f10400000100" is not a GUID`}},
		{"guid twice", P(`guid: "0x0008f10400000100"`, `guid: "0x0008f10400000201"`),
			[]string{"spec.infiniband.switches[2].guid: GUID 0x0008f10400000201 is already switch leaf-01's"}},
		{"no ports", P("{name: leaf-02, ports: 36}", "{name: leaf-02}"),
			[]string{"spec.infiniband.switches[1].ports: 0 is outside 1..254"}},
		{"not node:port", P("[leaf-02:35, spine-01:2]", "[leaf-02:35, spine-01]"),
			[]string{`f.yaml:25:34: spec.infiniband.links[5].endpoints[1]: "spine-01" is not NODE:PORT`}},
		{"port not a number", P("[leaf-02:35, spine-01:2]", "[leaf-02:35, spine-01:swp2]"),
			[]string{`spec.infiniband.links[5].endpoints[1]: "spine-01:swp2": port "swp2" is not an InfiniBand port number 1..254`}},
		{"port past the switch", P("[leaf-02:35, spine-01:2]", "[leaf-02:35, spine-01:9]"),
			[]string{"spec.infiniband.links[5].endpoints[1]: switch spine-01 has ports 1..8 (spec.infiniband.switches[2].ports)"}},
		{"host port past its guids", P("[ib-h1:2, leaf-02:1]", "[ib-h1:3, leaf-02:1]"),
			[]string{"spec.infiniband.links[1].endpoints[0]: host ib-h1 lists 2 port GUIDs (spec.hosts[0].portGuids), so it has no port 3"}},
		{"bad hca", P("ib-h2/mlx5_1:1", "ib-h2/mlx 5:1"),
			[]string{`spec.infiniband.links[2].endpoints[0]: "mlx 5" is not an HCA name`}},
		{"unknown node", P("[leaf-02:35, spine-01:2]", "[leaf-02:35, spine-02:2]"),
			[]string{`spec.infiniband.links[5].endpoints[1]: no host, subnet manager or InfiniBand switch named "spine-02" (did you mean "spine-01"?)`}},
		{"three endpoints", P("[leaf-02:35, spine-01:2]", "[leaf-02:35, spine-01:2, spine-01:3]"),
			[]string{"spec.infiniband.links[5].endpoints: a link has exactly two endpoints (NODE:PORT), not 3"}},
		{"cable to itself", P("[leaf-02:35, spine-01:2]", "[leaf-02:35, leaf-02:34]"),
			[]string{"spec.infiniband.links[5].endpoints: a cable from leaf-02 to itself (ports 35 and 34)"}},
		{"port cabled twice", P("[leaf-02:35, spine-01:2]", "[leaf-02:35, spine-01:1]"),
			[]string{"spec.infiniband.links[5].endpoints[1]: spine-01:1 is already cabled by spec.infiniband.links[4]"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := loadIB(t, c.fab)
			var errs Errors
			if !errors.As(err, &errs) {
				t.Fatalf("want located errors, got %v", err)
			}
			for _, w := range c.want {
				found := false
				for _, e := range errs {
					found = found || strings.Contains(e.Error(), w)
				}
				if !found {
					t.Errorf("no error contains %q; got:\n%v", w, err)
				}
			}
			for _, e := range errs {
				if e.Pos.File == "" || e.Pos.Line == 0 {
					t.Errorf("error without a position: %v", e)
				}
			}
		})
	}
}

// TestIBCablingEthernetSwitch: an Ethernet switch is no InfiniBand node,
// and an IB switch may not reuse its name.
func TestIBCablingEthernetSwitch(t *testing.T) {
	fab := strings.Replace(ibFabric, "  subnetManagers:", `  switches:
    - {name: eth-01, platform: sonic, address: 10.0.1.1, profile: p, ports: [Ethernet0]}
  subnetManagers:`, 1)
	fab = strings.Replace(fab, "include: [p.yaml]", "include: [p.yaml, q.yaml]", 1)
	files := map[string]string{"f.yaml": edit(t, edit(t, fab, "{name: leaf-02, ports: 36}", "{name: eth-01, ports: 36}"), "[leaf-02:35, spine-01:2]", "[eth-01:1, spine-01:2]"),
		"p.yaml": ibProfile, "q.yaml": goodProfile}
	_, err := Load("f.yaml", Options{ReadFile: memFS(files)})
	for _, w := range []string{`spec.infiniband.switches[1].name: "eth-01" is already an Ethernet switch (spec.switches)`,
		`spec.infiniband.links[5].endpoints[0]: "eth-01" is an Ethernet switch (spec.switches); declare InfiniBand switches in spec.infiniband.switches`} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("want %q, got %v", w, err)
		}
	}
}
