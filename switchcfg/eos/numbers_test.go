package eos

import (
	"strings"
	"testing"
)

// TestParseRefusesBadNumbers (issue 28): a number out of its range —
// negative, zero where it means nothing, NaN, past int — is refused naming
// the line, never read or wrapped.
func TestParseRefusesBadNumbers(t *testing.T) {
	for _, tc := range []struct{ config, want string }{
		{"priority-flow-control pause watchdog default timeout 0\n", `line 2: "priority-flow-control pause watchdog default timeout 0"`},
		{"priority-flow-control pause watchdog default polling-interval -0.5\n", `"-0.5" is not a time`},
		{"priority-flow-control pause watchdog default timeout NaN\n", `"NaN" is not a time`},
		{"priority-flow-control pause watchdog default recovery-time 1e23\n", `"1e23" is not a time`},
		{"interface Ethernet1\n   mtu -9214\n", `line 3: "mtu -9214"`},
		{"interface Ethernet1\n   mtu 99999999999999999999\n", `"99999999999999999999" is not a number`},
		{"qos map dscp 64 to traffic-class 3\n", `"64" is not a number`},
		{"qos map cos 3 to traffic-class -1\n", `"-1" is not a number`},
		{"interface Ethernet1\n   tx-queue 3\n      bandwidth percent 101\n", `"101" is not a number`},
		{"interface Ethernet1\n   tx-queue 3\n      random-detect ecn minimum-threshold -5 kbytes maximum-threshold 10 kbytes max-mark-probability 10\n", `threshold "-5"`},
		{"interface Ethernet1\n   tx-queue 3\n      random-detect ecn minimum-threshold 5 kbytes maximum-threshold 10 kbytes max-mark-probability 101\n", `"101" is not a number`},
		{"interface Ethernet1\n   priority-flow-control pause watchdog port timer timeout 0 polling-interval auto recovery-time 0\n", `"0" is not a time`},
	} {
		_, err := New().Parse(readback("hostname leaf\n" + tc.config))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v", tc.config, err)
		}
	}
}
