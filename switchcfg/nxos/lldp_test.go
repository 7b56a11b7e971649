package nxos

import (
	"testing"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/switchcfg/drivertest"
)

// TestLLDPGolden: every sample under testdata/lldp parses into its
// golden neighbours, through the driver's NeighborReader.
func TestLLDPGolden(t *testing.T) {
	drivertest.NeighborGolden(t, New(), "lldp/*.json", 6)
}

// TestLLDPPortNames: what checks/topology matches on. The local port is
// written out as the fabric file names it (Eth1/1 → Ethernet1/1, breakout
// lanes too, mgmt0 kept), whether the table is a list, one object or a
// list of tables; the neighbour's port is its name, or the description a
// Junos neighbour sends beside its ifIndex; the summary's Device ID is the
// system name.
func TestLLDPPortNames(t *testing.T) {
	drivertest.NeighborPorts(t, New(), map[string]string{
		"lldp/own-detail-leaf.json": "Ethernet1/1→gpu-017.pod2.example.net:ens1f0np0 Ethernet1/2→gpu-018:ens2f0np0 " +
			"Ethernet1/49/2→spine-01:et-0/0/49:1 Ethernet1/54→leaf-02.dc1.example.net:Eth1/54 mgmt0→oob-sw-01.example.net:Fa1/0/9",
		"lldp/own-detail-single.json":          "Ethernet1/1→leaf01:Ethernet1/1",
		"lldp/own-detail-table-list.json":      "Ethernet1/2→leaf02:Ethernet1/1 Ethernet1/3→leaf02:Ethernet1/2",
		"lldp/suzieq-nxos-exit01-summary.json": "Ethernet1/1→spine01:Ethernet1/5 Ethernet1/2→spine02:Ethernet1/5 Ethernet1/4→dcedge01:516",
		"lldp/own-empty.json":                  "",
	})
}

// TestPortName: NX-OS's short names are written out; others are kept.
func TestPortName(t *testing.T) {
	for in, want := range map[string]string{
		"Eth1/1": "Ethernet1/1", "eth1/49/2": "Ethernet1/49/2", "Ethernet1/3": "Ethernet1/3",
		"mgmt0": "mgmt0", "Eth1": "Eth1", "port-channel10": "port-channel10", "": "",
	} {
		if got := PortName(in); got != want {
			t.Errorf("PortName(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestLLDPErrors: output that is not the table is an error saying where,
// never an empty neighbour list.
func TestLLDPErrors(t *testing.T) {
	drivertest.NeighborErrors(t, New(), ErrLLDP, map[string]string{
		"% Invalid command at '^' marker.\n":                                                               "line 1, column 1",
		"{\"TABLE_nbor_detail\": {\"ROW_nbor_detail\": [\n  {\"l_port_id\": \"Eth1/1\",}]}}":               "line 2, column 26",
		`{"TABLE_interface": {"ROW_interface": []}}`:                                                       "no TABLE_nbor_detail",
		`{"TABLE_nbor_detail": {"ROW_nbor_detail": [{"sys_name": "spine-01", "port_id": "Ethernet1/1"}]}}`: "ROW_nbor_detail[0]: no l_port_id",
		`{"TABLE_nbor_detail": {"ROW_nbor_detail": [{"l_port_id": "Eth1/1"}, {"l_port_id": ["Eth1/2"]}]}}`: "ROW_nbor_detail[1].l_port_id: a list",
		`{"TABLE_nbor_detail": {"ROW_nbor": []}}`:                                                          "TABLE_nbor_detail: no ROW_nbor_detail",
		`{"TABLE_nbor_detail": {"ROW_nbor_detail": ["Eth1/1"]}}`:                                           "ROW_nbor_detail[0]: a string",
		`["TABLE_nbor_detail"]`:                          "a list, want an object",
		`{"neigh_hdr": "neigh_hdr", "neigh_count": "3"}`: "no TABLE_nbor_detail",
	})
}

// FuzzParseLLDPNeighbors: any output parses or fails with ErrLLDP,
// without panicking; no local port keeps NX-OS's short Ethernet name.
func FuzzParseLLDPNeighbors(f *testing.F) {
	drivertest.NeighborFuzz(f, New(), "lldp/*.json", ErrLLDP, func(n fabric.Neighbor) string {
		if PortName(n.LocalPort) != n.LocalPort {
			return "local port not written out"
		}
		return ""
	})
}
