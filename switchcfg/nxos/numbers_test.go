package nxos

import (
	"strings"
	"testing"
)

// TestParseRefusesBadNumbers (issue 28): a policy's numbers out of their
// range — a bandwidth of 101 %, a negative threshold, an MTU past int — were
// read as no setting at all, so the switch drifted instead of the capture
// being refused. They are located errors now, like every other number.
func TestParseRefusesBadNumbers(t *testing.T) {
	for _, tc := range []struct{ block, want string }{
		{"policy-map type queuing q\n  class type queuing c-out-q3\n    bandwidth remaining percent 101\n", `line 4: "101" is not a number in 0..100`},
		{"policy-map type queuing q\n  class type queuing c-out-q3\n    bandwidth percent -5\n", `"-5" is not a number in 0..100`},
		{"policy-map type queuing q\n  class type queuing c-out-q3\n    random-detect minimum-threshold -1 kbytes maximum-threshold 10 kbytes drop-probability 5 weight 0 ecn\n", `"-1" is not a number`},
		{"policy-map type queuing q\n  class type queuing c-out-q3\n    random-detect minimum-threshold 1 kbytes maximum-threshold 99999999999999999999 kbytes ecn\n", `"99999999999999999999" is not a number`},
		{"policy-map type queuing q\n  class type queuing c-out-q3\n    random-detect minimum-threshold 1 kbytes maximum-threshold 10 kbytes drop-probability 101 ecn\n", `"101" is not a number in 0..100`},
		{"policy-map type network-qos n\n  class type network-qos c-8q-nq3\n    mtu -9216\n", `"-9216" is not a number`},
		{"policy-map type queuing in\n  class type queuing c-in-q3\n    pause buffer-size -1 pause-threshold 1 resume-threshold 1\n", `"-1" is not a number`},
		{"priority-flow-control watch-dog interval 0\n", `"0" is not a number`},
	} {
		_, err := New().Parse(readback("hostname n9k\n" + tc.block))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v", tc.block, err)
		}
	}
}
