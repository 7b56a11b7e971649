package sonic

import (
	"testing"

	"github.com/fabricctl/fabricctl/switchcfg/drivertest"
)

// TestLLDPTableGolden: every sample under testdata/lldp parses into its
// golden neighbours, through the driver's NeighborReader.
func TestLLDPTableGolden(t *testing.T) {
	drivertest.NeighborGolden(t, New(), "lldp/*.txt", 3)
}

// TestLLDPTablePortNames: what checks/topology matches on: a host's
// interface name, the description when the ID is a MAC or an ifIndex.
func TestLLDPTablePortNames(t *testing.T) {
	ns, err := ParseLLDPTable(string(readFixture(t, "lldp/own-leaf-hosts-uplinks.txt")))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"Ethernet0": "ens1f0np0", "Ethernet4": "ens1f0np0", "Ethernet248": "Ethernet1/1", "Ethernet252": "et-0/0/1:3", "eth0": "swp23"}
	if len(ns) != len(want) {
		t.Fatalf("%d neighbours, want %d", len(ns), len(want))
	}
	for _, n := range ns {
		if n.PortName() != want[n.LocalPort] {
			t.Errorf("%s: port %q, want %q", n.LocalPort, n.PortName(), want[n.LocalPort])
		}
	}
}

// TestLLDPTableErrors: output that is not the table is an error naming
// the line, never an empty neighbour list.
func TestLLDPTableErrors(t *testing.T) {
	drivertest.NeighborErrors(t, New(), ErrLLDPTable, map[string]string{
		"% Invalid input detected\n":                  "line 1",
		"LocalPort    RemoteDevice\nEthernet0    x\n": "line 1",
		"LocalPort    RemoteDevice    RemotePortID\n-----------  --------------  ------------\n   spine-01                    Ethernet1\n": "line 3",
	})
}

// FuzzParseLLDPTable: any output parses or fails with ErrLLDPTable,
// without panicking; every neighbour has a local port.
func FuzzParseLLDPTable(f *testing.F) {
	drivertest.NeighborFuzz(f, New(), "lldp/*.txt", ErrLLDPTable, nil)
}
