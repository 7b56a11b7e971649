package junos

import (
	"testing"

	"github.com/fabricctl/fabricctl/switchcfg/drivertest"
)

// TestCountersGolden: every sample under testdata/counters parses into
// its golden counters, through the driver's CounterReader.
func TestCountersGolden(t *testing.T) {
	drivertest.CounterGolden(t, New(), "counters/*.json", 3)
}

// TestCounterPorts: the errors land on the Ethernet port that counted
// them, by kind, channels included; ae bundles, em0, lo0 and irb are not
// read, and a port without MAC statistics has its input-error-list.
func TestCounterPorts(t *testing.T) {
	drivertest.CounterPorts(t, New(), "counters/own-qfx-leaf-errors.json", map[string]uint64{
		"et-0/0/0 framing-errors": 1841, "et-0/0/0 input-crc-errors": 1841, "et-0/0/0 input-code-violations": 12,
		"et-0/0/1:3 input-drops": 77, "xe-0/0/48 input-crc-errors": 4, "et-0/0/2 framing-errors": 0, "et-0/0/2 input-drops": 0,
	}, []string{"ae0", "em0", "lo0", "irb"}, 3*4+2)
}

// TestCounterErrors: output that is not the JSON is an error naming the
// command and the port, never an empty list.
func TestCounterErrors(t *testing.T) {
	drivertest.CounterErrors(t, New(), ErrCounters, map[string]string{
		"error: syntax error, expecting <command>: extensiv\n":  "line 1, column 1",
		`{"lldp-neighbors-information": []}`:                    "no interface-information",
		`{"interface-information": {"physical-interface": []}}`: "line 1",
		`{"interface-information": [{"physical-interface": [{"name": [{"data": "et-0/0/0"}], "input-error-list": [{"framing-errors": [{"data": "12a"}]}]}]}]}`: `physical-interface[0] (et-0/0/0): framing-errors "12a" is not a count`,
		`{"interface-information": [{"physical-interface": [{"name": [{"data": "et-0/0/0"}]}, {"name": [{"data": "et-0/0/0"}]}]}]}`:                            "physical-interface[1] (et-0/0/0): listed twice",
	})
}

// FuzzParseInterfacesExtensive: any output parses or fails with
// ErrCounters, without panicking.
func FuzzParseInterfacesExtensive(f *testing.F) {
	drivertest.CounterFuzz(f, New(), "counters/*.json", ErrCounters)
}
