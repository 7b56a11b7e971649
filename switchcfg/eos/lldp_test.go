package eos

import (
	"os"
	"testing"

	"github.com/fabricctl/fabricctl/switchcfg/drivertest"
)

// TestLLDPGolden: every sample under testdata/lldp parses into its
// golden neighbours, through the driver's NeighborReader.
func TestLLDPGolden(t *testing.T) {
	drivertest.NeighborGolden(t, New(), "lldp/*.json", 3)
}

// TestLLDPPortNames: what checks/topology matches on: the neighbour's port
// ID as sent (the summary carries no description), its subtype inferred.
func TestLLDPPortNames(t *testing.T) {
	b, err := os.ReadFile("testdata/lldp/own-gpu-leaf.json")
	if err != nil {
		t.Fatal(err)
	}
	ns, err := ParseLLDPNeighbors(b)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"Ethernet1/1": "ens1f0np0", "Ethernet2/1": "5254.0063.000c", "Ethernet49/1": "512", "Ethernet50/1": "Ethernet1/1"}
	if len(ns) != len(want) {
		t.Fatalf("%d neighbours, want %d", len(ns), len(want))
	}
	for _, n := range ns {
		if n.PortName() != want[n.LocalPort] {
			t.Errorf("%s: port %q, want %q", n.LocalPort, n.PortName(), want[n.LocalPort])
		}
	}
}

// TestLLDPErrors: output that is not the table is an error naming
// the line, never an empty neighbour list.
func TestLLDPErrors(t *testing.T) {
	drivertest.NeighborErrors(t, New(), ErrLLDP, map[string]string{
		"% Invalid input detected at '^' marker.\n": "invalid character",
		`{"tablesInserts": 1}`:                      "no lldpNeighbors",
		`{"lldpNeighbors": [{"neighborDevice": "spine-01", "neighborPort": "Ethernet1"}]}`: "lldpNeighbors[0]",
	})
}

// FuzzParseLLDPNeighbors: any output parses or fails with ErrLLDP,
// without panicking; every neighbour has a local port.
func FuzzParseLLDPNeighbors(f *testing.F) {
	drivertest.NeighborFuzz(f, New(), "lldp/*.json", ErrLLDP, nil)
}
