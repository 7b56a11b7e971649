package topology

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/fabric/lldp"
)

// labObservations parses the lldpcli captures of one two-leaf lab scenario
// (testdata/lab-two-leaf/SCENARIO/DEVICE.json, see the README there); a
// device without a capture in the scenario falls back to "healthy".
func labObservations(t *testing.T, scenario string, devices ...string) []Observation {
	t.Helper()
	var obs []Observation
	for _, d := range devices {
		data, err := os.ReadFile(filepath.Join("testdata", "lab-two-leaf", scenario, d+".json"))
		if os.IsNotExist(err) {
			data, err = os.ReadFile(filepath.Join("testdata", "lab-two-leaf", "healthy", d+".json"))
		}
		if err != nil {
			t.Fatal(err)
		}
		ns, err := lldp.Parse(data)
		if err != nil {
			t.Fatalf("%s/%s: %v", scenario, d, err)
		}
		obs = append(obs, Observation{Device: d, Neighbors: ns})
	}
	return obs
}

func labTwoLeaf(t *testing.T) *Topology {
	t.Helper()
	f, err := fabric.Load(filepath.Join("..", "..", "profiles", "lab", "two-leaf.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return Declared(f)
}

var (
	labHosts  = []string{"lab-h1", "lab-h2", "lab-h3", "lab-h4"}
	labLeaves = []string{"leaf-01", "leaf-02"}
)

// TestLabTwoLeafCaptures: real lldpcli output of the two-leaf lab (the VMs'
// own lldpd and the leaves') against profiles/lab/two-leaf.yaml. Healthy,
// every declared cable is discovered and nothing else, from the hosts'
// tables, the leaves' or both; with lab-h1 recabled to leaf-02:swp3
// (fabricctl lab recable) exactly that cable is reported, as wrong-leaf,
// whichever side was read.
func TestLabTwoLeafCaptures(t *testing.T) {
	declared := labTwoLeaf(t)
	both := append(slices.Clone(labHosts), labLeaves...)
	for _, c := range []struct {
		name     string
		scenario string
		devices  []string
		want     string // findings as KIND AT DECLARED DISCOVERED, "|"-joined
	}{
		{"healthy, hosts and leaves", "healthy", both, ""},
		{"healthy, hosts only", "healthy", labHosts, ""},
		{"healthy, leaves only", "healthy", labLeaves, ""},
		{"recabled, hosts and leaves", "recabled", both, "wrong-leaf lab-h1:eth0 leaf-01:swp1 leaf-02:swp3"},
		{"recabled, hosts only", "recabled", labHosts, "wrong-leaf lab-h1:eth0 leaf-01:swp1 leaf-02:swp3"},
		{"recabled, leaves only", "recabled", labLeaves, "wrong-leaf lab-h1:eth0 leaf-01:swp1 leaf-02:swp3"},
	} {
		t.Run(c.name, func(t *testing.T) {
			obs := labObservations(t, c.scenario, c.devices...)
			disc := Discover(obs, declared)
			var got []string
			for _, f := range Compare(declared, disc, Observed(obs)) {
				g := string(f.Kind) + " " + f.At.String()
				for _, e := range []*fabric.Endpoint{f.Declared, f.Discovered} {
					if e != nil {
						g += " " + e.String()
					}
				}
				got = append(got, g)
			}
			if strings.Join(got, "|") != c.want {
				t.Errorf("findings %q, want %q", strings.Join(got, "|"), c.want)
			}
			if c.scenario == "healthy" {
				// every cable an observed device ends is discovered as declared
				for _, l := range declared.Links {
					if !slices.Contains(c.devices, l.A.Device) && !slices.Contains(c.devices, l.B.Device) {
						continue
					}
					if len(disc.LinksAt(l.A)) != 1 || disc.LinksAt(l.A)[0].String() != l.String() {
						t.Errorf("declared %s: discovered %v", l, disc.LinksAt(l.A))
					}
				}
			}
		})
	}
}
