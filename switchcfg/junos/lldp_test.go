package junos

import (
	"testing"

	"github.com/fabricctl/fabricctl/fabric"
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
	drivertest.NeighborPorts(t, New(), map[string]string{
		"lldp/suzieq-junos-spine01-detail.json": "xe-0/0/3→exit02:xe-0/0/0 xe-0/0/1→leaf02:xe-0/0/0",
		"lldp/suzieq-mixed-leaf3-qfx.json":      "xe-0/0/0→spine1-nxos:Ethernet1/3 xe-0/0/1→spine2-nxos:Ethernet1/3",
		"lldp/own-qfx-leaf.json":                "et-0/0/1:3→gpu-017.pod2.example.net:ens1f0np0 et-0/0/2→gpu-018:ens2f0np0 xe-0/1/0→spine-01:et-0/0/49 me0→oob-sw-01:Interface 27",
		"lldp/own-empty.json":                   "",
	})
}

// TestLLDPErrors: output that is not the table is an error saying where,
// never an empty neighbour list.
func TestLLDPErrors(t *testing.T) {
	drivertest.NeighborErrors(t, New(), ErrLLDP, map[string]string{
		"\nerror: the lldp subsystem is not running\n": "line 2, column 1",
		"{\n  \"lldp-neighbors-information\": [\n    {\"lldp-neighbor-information\": [{\"lldp-local-port-id\": [{\"data\": 5}]}]}]}": "line 3, column",
		`{"route-information": []}`: "no lldp-neighbors-information",
		`{"lldp-neighbors-information": [{"lldp-neighbor-information": [{"lldp-local-port-id": [{"data": "519"}], "lldp-remote-system-name": [{"data": "spine-01"}]}]}]}`: "lldp-neighbor-information[0]: no local port name",
		"{\"lldp-neighbors-information\": []}\n{master:0}\n": "text after the JSON document",
		"": "no JSON document",
	})
}

// FuzzParseLLDPNeighbors: any output parses or fails with ErrLLDP,
// without panicking; every local port is a name without a logical unit.
func FuzzParseLLDPNeighbors(f *testing.F) {
	drivertest.NeighborFuzz(f, New(), "lldp/*.json", ErrLLDP, func(n fabric.Neighbor) string {
		if unitRE.MatchString(n.LocalPort) || fabric.InferPortIDType(n.LocalPort) == "local" {
			return "local port is not a port name"
		}
		return ""
	})
}
