package eos

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/switchcfg"
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
	for _, tc := range []struct{ in, where string }{
		{"% Invalid input detected at '^' marker.\n", "invalid character"},
		{`{"tablesInserts": 1}`, "no lldpNeighbors"},
		{`{"lldpNeighbors": [{"neighborDevice": "spine-01", "neighborPort": "Ethernet1"}]}`, "lldpNeighbors[0]"},
	} {
		_, err := ParseLLDPNeighbors([]byte(tc.in))
		if !errors.Is(err, ErrLLDP) || !strings.Contains(err.Error(), tc.where) {
			t.Errorf("%q: error %v, want ErrLLDP at %s", tc.in, err, tc.where)
		}
	}
	if _, err := New().ParseNeighbors(switchcfg.Readback{}); err == nil {
		t.Error("no output: no error")
	}
}

// FuzzParseLLDPNeighbors: any output parses or fails with ErrLLDP,
// without panicking; every neighbour has a local port.
func FuzzParseLLDPNeighbors(f *testing.F) {
	files, _ := filepath.Glob("testdata/lldp/*.json")
	for _, p := range files {
		b, _ := os.ReadFile(p)
		f.Add(string(b))
	}
	f.Fuzz(func(t *testing.T, in string) {
		ns, err := ParseLLDPNeighbors([]byte(in))
		if err != nil {
			if !errors.Is(err, ErrLLDP) {
				t.Fatalf("error %v does not wrap ErrLLDP", err)
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
