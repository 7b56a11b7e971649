package sonic

import (
	"testing"

	"github.com/fabricctl/fabricctl/switchcfg/drivertest"
)

// TestCountersGolden: every sample under testdata/counters parses into
// its golden counters, through the driver's CounterReader.
func TestCountersGolden(t *testing.T) {
	drivertest.CounterGolden(t, New(), "counters/*.txt", 3)
}

// TestCounterPorts: RX_ERR and RX_DRP land on their port, thousands
// separators read, N/A absent; backplane ports are not read.
func TestCounterPorts(t *testing.T) {
	drivertest.CounterPorts(t, New(), "counters/sonic-utilities-before-clear.txt", map[string]uint64{
		"Ethernet0 RX_ERR": 10, "Ethernet0 RX_DRP": 100, "Ethernet4 RX_DRP": 1000, "Ethernet8 RX_ERR": 100,
	}, nil, 3*2)
	drivertest.CounterPorts(t, New(), "counters/sonic-utilities-multi-asic-all.txt", map[string]uint64{
		"Ethernet0 RX_ERR": 10, "Ethernet4 RX_DRP": 1000,
	}, []string{"Ethernet-BP0", "Ethernet-BP4", "Ethernet-BP256", "Ethernet-BP260"}, 2*2)
}

// TestCounterErrors: output that is not the table is an error naming the
// command and the line, never an empty list.
func TestCounterErrors(t *testing.T) {
	const head = "    IFACE    STATE    RX_OK    RX_ERR    RX_DRP\n---------  -------  -------  --------  --------\n"
	drivertest.CounterErrors(t, New(), ErrCounters, map[string]string{
		"Usage: show interfaces [OPTIONS] COMMAND [ARGS]...\nError: No such command \"counter\".\n": "no IFACE header",
		"    IFACE    STATE\nEthernet0  U\n":                                                                        "line 1",
		"IFACE  STATE  RX_OK\n-----  -----  -----\n":                                                                "no RX_ERR column",
		head + "Ethernet0        U        8       1x0       100\n":                                                  `line 3: ` + ErrCounters.Error() + `: Ethernet0 RX_ERR "1x0" is not a count`,
		head + "Ethernet0        U        8         1       100\nEthernet0        U        8         1       100\n": "line 4",
	})
}

// FuzzParseCounters: any output parses or fails with ErrCounters,
// without panicking.
func FuzzParseCounters(f *testing.F) {
	drivertest.CounterFuzz(f, New(), "counters/*.txt", ErrCounters)
}
