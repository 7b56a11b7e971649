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

// TestLLDPServed: each simulator serves its LLDP table in its NOS's shape
// over a real SSH session, and the platform's driver
// (switchcfg.NeighborReader) reads back the same neighbours: the switch's
// ports as the fabric file names them (NX-OS prints Eth1/49 and the driver
// writes it out again), system names, a MAC port ID with the port name as
// description (EOS's summary carries no description: the MAC stays). A
// source that fails is an error, not an empty table.
func TestLLDPServed(t *testing.T) {
	for _, tc := range []struct {
		platform, uplink, access string
		accessPort               string // the host's port as the driver reads it
	}{
		{"sonic", "Ethernet48", "Ethernet0", "eth0"},
		{"cumulus-nvue", "swp49", "swp1", "eth0"},
		{"arista-eos", "Ethernet49/1", "Ethernet1/1", "52:54:00:63:00:0b"},
		{"junos", "et-0/0/49", "et-0/0/1:3", "eth0"},
		{"cisco-nxos", "Ethernet1/49", "Ethernet1/1", "eth0"},
	} {
		t.Run(tc.platform, func(t *testing.T) {
			d, err := all.Registry().Driver(tc.platform)
			if err != nil {
				t.Fatal(err)
			}
			nr, ok := d.(switchcfg.NeighborReader)
			if !ok {
				t.Fatalf("%s's driver reads no LLDP", tc.platform)
			}
			table := []fabric.Neighbor{
				{LocalPort: tc.uplink, SystemName: "leaf-02", ChassisIDType: "mac", ChassisID: "52:11:23:ea:89:0d", PortIDType: "ifname", PortID: "swp49", PortDescription: "swp49", TTL: 20},
				{LocalPort: tc.access, SystemName: "lab-h1", ChassisIDType: "mac", ChassisID: "52:54:00:63:00:0b", PortIDType: "mac", PortID: "52:54:00:63:00:0b", PortDescription: "eth0", TTL: 120},
			}
			var fail error
			_, c := dial(t, sim.Options{Platform: tc.platform, Neighbors: func() ([]fabric.Neighbor, error) { return table, fail }})
			read := func(n int) string {
				t.Helper()
				rb := switchcfg.Readback{}
				for _, cmd := range nr.NeighborCommands() {
					rb[cmd] = []byte(c.ok(cmd))
				}
				ns, err := nr.ParseNeighbors(rb)
				if err != nil {
					t.Fatal(err)
				}
				if len(ns) != n {
					t.Fatalf("read back %d neighbours, want %d: %+v", len(ns), n, ns)
				}
				var got []string
				for _, n := range ns {
					got = append(got, n.LocalPort+"→"+n.SystemName+":"+n.PortName())
				}
				return strings.Join(got, " ")
			}
			want := tc.uplink + "→leaf-02:swp49 " + tc.access + "→lab-h1:" + tc.accessPort
			if got := read(2); got != want {
				t.Errorf("read back %q, want %q", got, want)
			}
			table = table[:1] // one neighbour (NX-OS: the row is an object)
			if got := read(1); got != tc.uplink+"→leaf-02:swp49" {
				t.Errorf("one neighbour: read back %q", got)
			}
			table = nil
			read(0)
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
