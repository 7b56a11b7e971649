package nxos

import (
	"testing"

	"github.com/fabricctl/fabricctl/switchcfg/drivertest"
)

// TestCountersGolden: every sample under testdata/counters parses into
// its golden counters, through the driver's CounterReader.
func TestCountersGolden(t *testing.T) {
	drivertest.CounterGolden(t, New(), "counters/*.json", 3)
}

// TestCounterPorts: the sections' rows merge by port, the errors land on
// the port that counted them, by kind, whether the counters are numbers
// or strings and the table one or one per section; mgmt0, port-channels,
// Stomped-CRC and Rcv-Err are not read.
func TestCounterPorts(t *testing.T) {
	notRead := []string{"mgmt0", "port-channel10"}
	drivertest.CounterPorts(t, New(), "counters/own-n9k-leaf-errors.json", map[string]uint64{
		"Ethernet1/1 eth_fcs_err": 1841, "Ethernet1/1 eth_symbol_err": 12, "Ethernet1/1 eth_indisc": 0,
		"Ethernet1/2 eth_indisc": 77, "Ethernet1/49/2 eth_align_err": 3, "Ethernet1/49/2 eth_fcs_err": 0,
	}, notRead, 3*4)
	drivertest.CounterPorts(t, New(), "counters/own-genie-eth1-1-strings.json", map[string]uint64{
		"Ethernet1/1 eth_fcs_err": 0, "Ethernet1/1 eth_align_err": 0, "Ethernet1/1 eth_symbol_err": 0, "Ethernet1/1 eth_indisc": 0,
	}, notRead, 4)
	drivertest.CounterPorts(t, New(), "counters/own-table-per-section.json", map[string]uint64{
		"Ethernet1/1 eth_fcs_err": 1841, "Ethernet1/1 eth_indisc": 0, "Ethernet1/2 eth_indisc": 77, "Ethernet1/2 eth_symbol_err": 0,
	}, notRead, 2*4)
}

// TestCounterErrors: output that is not the table is an error naming the
// command and the row, never an empty list.
func TestCounterErrors(t *testing.T) {
	drivertest.CounterErrors(t, New(), ErrCounters, map[string]string{
		"% Invalid command at '^' marker.\n":                           "line 1, column 1",
		`{"TABLE_nbor_detail": {}}`:                                    "no TABLE_interface",
		`["TABLE_interface"]`:                                          "a list, want an object",
		`{"TABLE_interface": {"ROW_intf": []}}`:                        "TABLE_interface: no ROW_interface",
		`{"TABLE_interface": {"ROW_interface": [{"eth_fcs_err": 1}]}}`: "ROW_interface[0]: no interface",
		`{"TABLE_interface": {"ROW_interface": [{"interface": "Ethernet1/1", "eth_fcs_err": -1}]}}`:                                           `ROW_interface[0].eth_fcs_err: "-1" is not a count`,
		`{"TABLE_interface": {"ROW_interface": [{"interface": "Ethernet1/1", "eth_fcs_err": [1]}]}}`:                                          "ROW_interface[0].eth_fcs_err: a list",
		`{"TABLE_interface": {"ROW_interface": [{"interface": "Eth1/1", "eth_fcs_err": 1}, {"interface": "Ethernet1/1", "eth_fcs_err": 2}]}}`: "ROW_interface[1].eth_fcs_err: Ethernet1/1 given twice",
	})
}

// FuzzParseCountersErrors: any output parses or fails with ErrCounters,
// without panicking.
func FuzzParseCountersErrors(f *testing.F) {
	drivertest.CounterFuzz(f, New(), "counters/*.json", ErrCounters)
}
