package sonic

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/switchcfg"
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
	for _, tc := range []struct{ in, where string }{
		{"% Invalid input detected\n", "line 1"},
		{"LocalPort    RemoteDevice\nEthernet0    x\n", "line 1"},
		{"LocalPort    RemoteDevice    RemotePortID\n-----------  --------------  ------------\n   spine-01                    Ethernet1\n", "line 3"},
	} {
		_, err := ParseLLDPTable(tc.in)
		if !errors.Is(err, ErrLLDPTable) || !strings.Contains(err.Error(), tc.where) {
			t.Errorf("%q: error %v, want ErrLLDPTable at %s", tc.in, err, tc.where)
		}
	}
	if _, err := New().ParseNeighbors(switchcfg.Readback{}); err == nil {
		t.Error("no output: no error")
	}
}

// FuzzParseLLDPTable: any output parses or fails with ErrLLDPTable,
// without panicking; every neighbour has a local port.
func FuzzParseLLDPTable(f *testing.F) {
	files, _ := filepath.Glob("testdata/lldp/*.txt")
	for _, p := range files {
		b, _ := os.ReadFile(p)
		f.Add(string(b))
	}
	f.Fuzz(func(t *testing.T, in string) {
		ns, err := ParseLLDPTable(in)
		if err != nil {
			if !errors.Is(err, ErrLLDPTable) {
				t.Fatalf("error %v does not wrap ErrLLDPTable", err)
			}
			return
		}
		for _, n := range ns {
			if n.LocalPort == "" {
				t.Fatalf("neighbour without local port: %+v", n)
			}
		}
	})
}
