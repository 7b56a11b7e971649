package sim_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/switchcfg"
	"github.com/fabricctl/fabricctl/switchcfg/all"
	"github.com/fabricctl/fabricctl/switchcfg/sim"
)

// TestLLDPServed: each simulator serves its LLDP table in its NOS's shape,
// and the platform's driver (switchcfg.NeighborReader) reads back the same
// neighbours: port names, system names, a MAC port ID with the port name
// as description. A source that fails is an error, not an empty table.
func TestLLDPServed(t *testing.T) {
	table := []fabric.Neighbor{
		{LocalPort: "swp49", SystemName: "leaf-02", ChassisIDType: "mac", ChassisID: "52:11:23:ea:89:0d", PortIDType: "ifname", PortID: "swp49", PortDescription: "swp49", TTL: 20},
		{LocalPort: "swp1", SystemName: "lab-h1", ChassisIDType: "mac", ChassisID: "52:54:00:63:00:0b", PortIDType: "mac", PortID: "52:54:00:63:00:0b", PortDescription: "eth0", TTL: 120},
	}
	for _, platform := range []string{"sonic", "cumulus-nvue"} {
		t.Run(platform, func(t *testing.T) {
			d, err := all.Registry().Driver(platform)
			if err != nil {
				t.Fatal(err)
			}
			nr, ok := d.(switchcfg.NeighborReader)
			if !ok {
				t.Fatalf("%s's driver reads no LLDP", platform)
			}
			var fail error
			_, c := dial(t, sim.Options{Platform: platform, Neighbors: func() ([]fabric.Neighbor, error) { return table, fail }})
			rb := switchcfg.Readback{}
			for _, cmd := range nr.NeighborCommands() {
				rb[cmd] = []byte(c.ok(cmd))
			}
			ns, err := nr.ParseNeighbors(rb)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, n := range ns {
				got = append(got, n.LocalPort+"→"+n.SystemName+":"+n.PortName())
			}
			if strings.Join(got, " ") != "swp49→leaf-02:swp49 swp1→lab-h1:eth0" {
				t.Errorf("read back %v", got)
			}
			fail = errors.New("lldpd is not running")
			cmd := nr.NeighborCommands()[0]
			out, err := c.c.Send(t.Context(), cmd)
			if err == nil { // a shell without exit status: the text is not the table
				_, err = nr.ParseNeighbors(switchcfg.Readback{cmd: []byte(out)})
			}
			if err == nil || !strings.Contains(err.Error()+out, "lldpd is not running") {
				t.Errorf("failing source: %v, %q; want an error saying lldpd is not running", err, out)
			}
		})
	}
}
