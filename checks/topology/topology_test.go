package topology

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/fabric/lldp"
	"github.com/google/go-cmp/cmp"
)

func rail(i int) *int { return &i }

// railFabric: two hosts with one NIC per rail, a leaf per rail, one spine.
func railFabric() *fabric.Fabric {
	f := &fabric.Fabric{}
	f.Spec.Hosts = []fabric.Host{
		{Name: "gpu-01", Links: map[string]string{"ens1f0np0": "leaf-r0:swp1", "ens2f0np0": "leaf-r1:swp1"}},
		{Name: "gpu-02", Links: map[string]string{"ens1f0np0": "leaf-r0:swp2", "ens2f0np0": "leaf-r1:swp2"}},
	}
	f.Spec.Switches = []fabric.Switch{
		{Name: "leaf-r0", Rail: rail(0)},
		{Name: "leaf-r1", Rail: rail(1)},
		{Name: "spine-01"},
	}
	f.Spec.Links = []fabric.Link{
		{Endpoints: []string{"leaf-r0:swp31", "spine-01:Ethernet0"}},
		{Endpoints: []string{"spine-01:Ethernet1", "leaf-r1:swp31"}},
	}
	return f
}

func nb(local, system, port string) fabric.Neighbor {
	return fabric.Neighbor{LocalPort: local, SystemName: system, PortIDType: "ifname", PortID: port}
}

func TestDeclared(t *testing.T) {
	d := Declared(railFabric())
	roles := map[string]Role{}
	for _, n := range d.Nodes {
		roles[n.Name] = n.Role
	}
	want := map[string]Role{"gpu-01": RoleHost, "gpu-02": RoleHost, "leaf-r0": RoleLeaf, "leaf-r1": RoleLeaf, "spine-01": RoleSpine}
	if diff := cmp.Diff(want, roles); diff != "" {
		t.Errorf("roles (-want +got):\n%s", diff)
	}
	var links []string
	for _, l := range d.Links {
		links = append(links, string(l.Kind)+" "+l.String())
	}
	wantLinks := []string{
		"access gpu-01:ens1f0np0 <-> leaf-r0:swp1", "access gpu-01:ens2f0np0 <-> leaf-r1:swp1",
		"access gpu-02:ens1f0np0 <-> leaf-r0:swp2", "access gpu-02:ens2f0np0 <-> leaf-r1:swp2",
		"fabric leaf-r0:swp31 <-> spine-01:Ethernet0", "fabric leaf-r1:swp31 <-> spine-01:Ethernet1",
	}
	if diff := cmp.Diff(wantLinks, links); diff != "" {
		t.Errorf("links (-want +got):\n%s", diff)
	}
}

func TestCompare(t *testing.T) {
	healthyHosts := []Observation{
		{Device: "gpu-01", Neighbors: []fabric.Neighbor{nb("ens1f0np0", "leaf-r0.dc1.example.net", "swp1"), nb("ens2f0np0", "LEAF-R1", "swp1"), nb("eno1", "oob-sw", "Ethernet1")}},
		{Device: "gpu-02", Neighbors: []fabric.Neighbor{nb("ens1f0np0", "leaf-r0", "swp2"), nb("ens2f0np0", "leaf-r1", "swp2")}},
	}
	cases := []struct {
		name string
		obs  []Observation
		want []string // kind + message
	}{
		{"healthy, management port ignored", healthyHosts, nil},
		{"host on the wrong rail", []Observation{
			{Device: "gpu-01", Neighbors: []fabric.Neighbor{nb("ens1f0np0", "leaf-r1", "swp5"), nb("ens2f0np0", "leaf-r1", "swp1")}},
		}, []string{"wrong-rail gpu-01:ens1f0np0 is on leaf-r1:swp5 of rail 1, declared leaf-r0:swp1 of rail 0"}},
		{"swapped NICs", []Observation{
			{Device: "gpu-01", Neighbors: []fabric.Neighbor{nb("ens1f0np0", "leaf-r1", "swp1"), nb("ens2f0np0", "leaf-r0", "swp1")}},
		}, []string{"swapped ens1f0np0 and ens2f0np0 of host gpu-01 are swapped: ens1f0np0 is on leaf-r1:swp1 and ens2f0np0 on leaf-r0:swp1"}},
		{"wrong port", []Observation{
			{Device: "gpu-02", Neighbors: []fabric.Neighbor{nb("ens1f0np0", "leaf-r0", "swp9"), nb("ens2f0np0", "leaf-r1", "swp2")}},
		}, []string{"wrong-port gpu-02:ens1f0np0 is on leaf-r0:swp9, declared leaf-r0:swp2 (same switch, another port)"}},
		{"unknown device on a fabric NIC", []Observation{
			{Device: "gpu-02", Neighbors: []fabric.Neighbor{nb("ens1f0np0", "patch-sw", "ge-0/0/1"), nb("ens2f0np0", "leaf-r1", "swp2")}},
		}, []string{"wrong-leaf gpu-02:ens1f0np0 is on patch-sw:ge-0/0/1 (a device the fabric does not know), declared leaf-r0:swp2"}},
		{"missing", []Observation{
			{Device: "gpu-02", Neighbors: []fabric.Neighbor{nb("ens2f0np0", "leaf-r1", "swp2")}},
		}, []string{"missing gpu-02:ens1f0np0 <-> leaf-r0:swp2: no LLDP neighbour on gpu-02:ens1f0np0 (unplugged, link down or LLDP off at the far end)"}},
		{"miscabled uplink and an unexpected inter-leaf cable", []Observation{
			{Device: "leaf-r0", Neighbors: []fabric.Neighbor{nb("swp1", "gpu-01", "ens1f0np0"), nb("swp2", "gpu-02", "ens1f0np0"),
				nb("swp31", "spine-01", "Ethernet5"), nb("swp30", "leaf-r1", "swp30")}},
		}, []string{
			"unexpected leaf-r0:swp30 is cabled to leaf-r1:swp30, which the fabric does not declare",
			"miscabled leaf-r0:swp31 is cabled to spine-01:Ethernet5, declared spine-01:Ethernet0",
		}},
		{"both ends observed, one finding per cable", []Observation{
			{Device: "gpu-02", Neighbors: []fabric.Neighbor{nb("ens1f0np0", "leaf-r0", "swp9"), nb("ens2f0np0", "leaf-r1", "swp2")}},
			{Device: "leaf-r0", Neighbors: []fabric.Neighbor{nb("swp1", "gpu-01", "ens1f0np0"), nb("swp9", "gpu-02", "ens1f0np0"), nb("swp31", "spine-01", "Ethernet0")}},
		}, []string{"wrong-port gpu-02:ens1f0np0 is on leaf-r0:swp9, declared leaf-r0:swp2 (same switch, another port)"}},
	}
	declared := Declared(railFabric())
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			disc := Discover(c.obs, declared)
			var got []string
			for _, f := range Compare(declared, disc, Observed(c.obs)) {
				got = append(got, string(f.Kind)+" "+f.Message)
			}
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("findings (-want +got):\n%s", diff)
			}
		})
	}
}

// TestDiscoverFromRealShapes runs a host's lldpcli output (FQDN system
// names, a Junos leaf sending its ifIndex as port ID) through the parser
// and Discover against a declared fabric.
func TestDiscoverFromRealShapes(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "fabric", "lldp", "testdata", "own-gpu-two-rails.json"))
	if err != nil {
		t.Fatal(err)
	}
	ns, err := lldp.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	f := &fabric.Fabric{}
	f.Spec.Hosts = []fabric.Host{{Name: "gpu-0007", Links: map[string]string{"ens1f0np0": "leaf-r0-03:swp7", "ens2f0np0": "leaf-r1-03:et-0/0/7:1"}}}
	f.Spec.Switches = []fabric.Switch{{Name: "leaf-r0-03", Rail: rail(0)}, {Name: "leaf-r1-03", Rail: rail(1)}}
	declared := Declared(f)
	obs := []Observation{{Device: "gpu-0007", Neighbors: ns}}
	disc := Discover(obs, declared)
	if fs := Compare(declared, disc, Observed(obs)); len(fs) != 0 {
		t.Errorf("findings on a correctly cabled host: %+v", fs)
	}
	var got []string
	for _, l := range disc.Links {
		got = append(got, l.String())
	}
	want := "gpu-0007:eno1 <-> oob-sw-12:Ethernet12|gpu-0007:ens1f0np0 <-> leaf-r0-03:swp7|gpu-0007:ens2f0np0 <-> leaf-r1-03:et-0/0/7:1"
	if strings.Join(got, "|") != want {
		t.Errorf("discovered %q, want %q", strings.Join(got, "|"), want)
	}
}

// TestNewIndexesAfterSorting: nodes given out of name order (switches
// before hosts) keep their roles and link kinds; New once classified links
// with the positions of the nodes before sorting them.
func TestNewIndexesAfterSorting(t *testing.T) {
	topo := New([]Node{{Name: "leaf-01", Role: RoleLeaf}, {Name: "spine-1", Role: RoleSpine}, {Name: "a-host", Role: RoleHost}},
		[]Link{{A: fabric.Endpoint{Device: "leaf-01", Port: "swp1"}, B: fabric.Endpoint{Device: "a-host", Port: "eth0"}},
			{A: fabric.Endpoint{Device: "spine-1", Port: "swp1"}, B: fabric.Endpoint{Device: "leaf-01", Port: "swp9"}}})
	var got []string
	for _, l := range topo.Links {
		got = append(got, string(l.Kind)+" "+l.String())
	}
	want := []string{"access a-host:eth0 <-> leaf-01:swp1", "fabric leaf-01:swp9 <-> spine-1:swp1"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("links (-want +got):\n%s", diff)
	}
	if r := topo.Role("spine-1"); r != RoleSpine {
		t.Errorf("spine-1 is %q", r)
	}
}

// TestDiscoverAbbreviatedPort: switches name their own ports in long form in
// the declared cabling (Ethernet1/54, GigabitEthernet0/1) while neighbours and
// some read-backs send the CLI's short form (Eth1/54, Gi0/1, Et7). A short
// name that abbreviates exactly one declared port of the device is that
// port; one that could be several, or a different number, is not.
func TestDiscoverAbbreviatedPort(t *testing.T) {
	f := &fabric.Fabric{}
	f.Spec.Hosts = []fabric.Host{
		{Name: "h1", Links: map[string]string{"eth0": "n9k-01:Ethernet1/54"}},
		{Name: "h2", Links: map[string]string{"eth0": "ios-01:GigabitEthernet0/1"}},
		{Name: "h3", Links: map[string]string{"eth0": "eos-01:Ethernet7"}},
		{Name: "h4", Links: map[string]string{"eth0": "eos-01:Ethernet8"}},
	}
	f.Spec.Switches = []fabric.Switch{{Name: "n9k-01"}, {Name: "ios-01"}, {Name: "eos-01"}}
	declared := Declared(f)
	nb := func(sys, port string) []fabric.Neighbor {
		return []fabric.Neighbor{{LocalPort: "eth0", SystemName: sys, PortID: port, PortIDType: "ifname"}}
	}
	ok := []Observation{
		{Device: "h1", Neighbors: nb("n9k-01", "Eth1/54")},
		{Device: "h2", Neighbors: nb("ios-01.example.net", "Gi0/1")},
		{Device: "h3", Neighbors: nb("eos-01", "Et7")},
		{Device: "h4", Neighbors: nb("eos-01", "ethernet8")},
	}
	if fs := Compare(declared, Discover(ok, declared), Observed(ok)); len(fs) != 0 {
		t.Errorf("findings on correctly cabled hosts that see short port names: %+v", fs)
	}
	for _, c := range []struct{ port, why string }{
		{"Eth1/5", "another number"},
		{"Gi0/1", "another interface type"},
		{"E", "no number"},
	} {
		bad := []Observation{{Device: "h1", Neighbors: nb("n9k-01", c.port)}}
		if fs := Compare(declared, Discover(bad, declared), Observed(bad)); len(fs) == 0 {
			t.Errorf("%s (%s) was taken for n9k-01:Ethernet1/54", c.port, c.why)
		}
	}
}
