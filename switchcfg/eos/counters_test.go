package eos

import (
	"testing"

	"github.com/fabricctl/fabricctl/switchcfg/drivertest"
)

// TestCountersGolden: every sample under testdata/counters parses into
// its golden counters, through the driver's CounterReader.
func TestCountersGolden(t *testing.T) {
	drivertest.CounterGolden(t, New(), "counters/*.json", 3)
}

// TestCounterPorts: the errors land on the port that counted them, by
// kind; Port-Channels, subinterfaces, VLANs and loopbacks are not read,
// nor runts; Management1 without inputErrorsDetail has its discards.
func TestCounterPorts(t *testing.T) {
	drivertest.CounterPorts(t, New(), "counters/own-gpu-leaf-errors.json", map[string]uint64{
		"Ethernet1/1 fcsErrors": 1841, "Ethernet1/1 symbolErrors": 12, "Ethernet2/1 inDiscards": 77,
		"Ethernet49/1 alignmentErrors": 3, "Ethernet50/1 fcsErrors": 0, "Management1 inDiscards": 0,
	}, []string{"Port-Channel10", "Ethernet50/1.100", "Vlan100", "Loopback0"}, 4*4+1)
}

// TestCounterErrors: output that is not the JSON is an error naming the
// command and where, never an empty list.
func TestCounterErrors(t *testing.T) {
	drivertest.CounterErrors(t, New(), ErrCounters, map[string]string{
		"% Invalid input detected at '^' marker.\n": "line 1, column 1",
		`{"lldpNeighbors": []}`:                     "no interfaces object",
		"{\"interfaces\": {\"Ethernet1\": {\"hardware\": \"ethernet\",\n \"interfaceCounters\": {\"inDiscards\": -1}}}}":          "line 2",
		`{"interfaces": {"Ethernet1": {"hardware": "ethernet", "interfaceCounters": {"inputErrorsDetail": {"fcsErrors": 1.5}}}}}`: "line 1",
		`{"interfaces": []}`:          "line 1",
		`{"interfaces": {}} trailing`: "text after the JSON document",
	})
}

// FuzzParseInterfaceCounters: any output parses or fails with
// ErrCounters, without panicking.
func FuzzParseInterfaceCounters(f *testing.F) {
	drivertest.CounterFuzz(f, New(), "counters/*.json", ErrCounters)
}
