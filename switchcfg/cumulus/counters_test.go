package cumulus

import (
	"testing"

	"github.com/fabricctl/fabricctl/switchcfg/drivertest"
)

// TestCountersGolden: every sample under testdata/counters parses into
// its golden counters, through the driver's CounterReader.
func TestCountersGolden(t *testing.T) {
	drivertest.CounterGolden(t, New(), "counters/*.json", 3)
}

// TestCounterPorts: the errors land on the front-panel port that counted
// them, by kind; eth0, bonds, bridges, VLANs and subinterfaces are not
// read (a bond's errors are its members').
func TestCounterPorts(t *testing.T) {
	drivertest.CounterPorts(t, New(), "counters/own-gpu-leaf-errors.json", map[string]uint64{
		"swp1 crc_errors": 1841, "swp1 frame_errors": 2, "swp2 dropped": 77, "swp49s1 crc_errors": 4, "swp49s0 crc_errors": 0,
	}, []string{"eth0", "bond1", "br_default", "vlan10", "swp1.100", "lo"}, 4*3)
}

// TestCounterErrors: output that is not the JSON is an error naming the
// command and where, never an empty list.
func TestCounterErrors(t *testing.T) {
	drivertest.CounterErrors(t, New(), ErrCounters, map[string]string{
		"Object \"link\" is unknown, try \"ip help\".\n": "line 1, column 1",
		`{"ifname": "swp1"}`:                             "line 1",
		`null`:                                           "no list of links",
		`[{"ifname": "swp1"}]`:                           "link 0 (swp1): no stats64",
		"[{\"ifname\": \"swp1\", \"stats64\": {\"rx\": {\n\"crc_errors\": -4}}}]": "line 2",
		`[{"ifname": "swp1", "stats64": {}}, {"ifname": "swp1", "stats64": {}}]`:  "link 1 (swp1): listed twice",
	})
}

// FuzzParseLinkStats: any output parses or fails with ErrCounters,
// without panicking.
func FuzzParseLinkStats(f *testing.F) {
	drivertest.CounterFuzz(f, New(), "counters/*.json", ErrCounters)
}
