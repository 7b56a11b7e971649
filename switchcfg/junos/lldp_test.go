package junos

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
	drivertest.NeighborGolden(t, New(), "lldp/*.json", 5)
}

// TestLLDPPortNames: what checks/topology matches on. The local port is
// the switch port as the fabric file writes it, whichever element holds
// it (the brief form's lldp-local-port-id, the detail form's
// lldp-local-interface next to an ifIndex, an old Junos's logical unit);
// the neighbour's port is its name even when it sends an ifIndex.
func TestLLDPPortNames(t *testing.T) {
	for file, want := range map[string]string{
		"suzieq-junos-spine01-detail.json": "xe-0/0/3→exit02:xe-0/0/0 xe-0/0/1→leaf02:xe-0/0/0",
		"suzieq-mixed-leaf3-qfx.json":      "xe-0/0/0→spine1-nxos:Ethernet1/3 xe-0/0/1→spine2-nxos:Ethernet1/3",
		"own-qfx-leaf.json":                "et-0/0/1:3→gpu-017.pod2.example.net:ens1f0np0 et-0/0/2→gpu-018:ens2f0np0 xe-0/1/0→spine-01:et-0/0/49 me0→oob-sw-01:Interface 27",
	} {
		b, err := os.ReadFile(filepath.Join("testdata/lldp", file))
		if err != nil {
			t.Fatal(err)
		}
		ns, err := ParseLLDPNeighbors(b)
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		var got []string
		for _, n := range ns {
			got = append(got, n.LocalPort+"→"+n.SystemName+":"+n.PortName())
		}
		if strings.Join(got, " ") != want {
			t.Errorf("%s: %q, want %q", file, strings.Join(got, " "), want)
		}
	}
}

// TestLLDPErrors: output that is not the table is an error saying where,
// never an empty neighbour list.
func TestLLDPErrors(t *testing.T) {
	for _, tc := range []struct{ in, where string }{
		{"\nerror: the lldp subsystem is not running\n", "line 2, column 1"},
		{"{\n  \"lldp-neighbors-information\": [\n    {\"lldp-neighbor-information\": [{\"lldp-local-port-id\": [{\"data\": 5}]}]}]}", "line 3, column"},
		{`{"route-information": []}`, "no lldp-neighbors-information"},
		{`{"lldp-neighbors-information": [{"lldp-neighbor-information": [{"lldp-local-port-id": [{"data": "519"}], "lldp-remote-system-name": [{"data": "spine-01"}]}]}]}`,
			"lldp-neighbor-information[0]: no local port name"},
		{"{\"lldp-neighbors-information\": []}\n{master:0}\n", "text after the JSON document"},
		{"", "no JSON document"},
	} {
		_, err := ParseLLDPNeighbors([]byte(tc.in))
		if !errors.Is(err, ErrLLDP) || !strings.Contains(err.Error(), tc.where) {
			t.Errorf("%q: error %v, want ErrLLDP at %s", tc.in, err, tc.where)
		}
	}
	if _, err := New().ParseNeighbors(switchcfg.Readback{}); err == nil || !strings.Contains(err.Error(), CmdLLDPNeighbors) {
		t.Errorf("no output: error %v, want one naming %q", err, CmdLLDPNeighbors)
	}
}

// FuzzParseLLDPNeighbors: any output parses or fails with ErrLLDP,
// without panicking; every neighbour has a local port name without a
// logical unit.
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
			if n.LocalPort == "" || unitRE.MatchString(n.LocalPort) {
				t.Fatalf("neighbour with local port %q: %+v", n.LocalPort, n)
			}
		}
	})
}
