package nxos

import (
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/switchcfg/drivertest"
)

// TestCongestionGolden: every sample under testdata/congestion reads into
// its golden counters and unread lines.
func TestCongestionGolden(t *testing.T) { drivertest.CongestionGolden(t, New(), 2) }

// TestCongestionValues: PFC frames per COS and per port, a QoS group's
// unicast and multicast counters, the port's ingress drops (not the
// slice's); what is no count or no known line is unread.
func TestCongestionValues(t *testing.T) {
	r := drivertest.CongestionSample(t, New(), "own-n9k-incast.txt")
	want := map[string]uint64{
		"Ethernet1/1 PFC COS 3 TxCount": 15010, "Ethernet1/1 TxPPP": 15010, "Ethernet1/49 PFC COS 5 RxCount": 412,
		"Ethernet1/49 PFC COS 3 RxCount": 37, "Ethernet1/49 RxPPP": 449,
		"Ethernet1/49 QOS GROUP 3 WRED/AFD & Tail Drop Pkts": 4100, "Ethernet1/1 QOS GROUP 3 Tx Pkts": 1204331,
		"Ethernet1/1 QOS GROUP 3 Multicast Tx Pkts": 0, "Ethernet1/49 Ingress Overflow Drop Pkts": 19490,
		"Ethernet1/1 CONTROL QOS GROUP Tx Pkts": 6060, "Ethernet1/1 Pause Flush Drop Pkts": 0,
	}
	for k, v := range want {
		port, name, _ := strings.Cut(k, " ")
		if got, ok := r.Of(port)[name]; !ok || got != v {
			t.Errorf("%s = %d (read %v), want %d", k, got, ok, v)
		}
	}
	if v, ok := r.Of("Ethernet1/49")["QOS GROUP 3 WD & Tail Drop Pkts"]; ok {
		t.Errorf("4x read as %d", v)
	}
	if len(r.Unread) != 2 || !strings.Contains(r.Unread[0].Reason, `"4x"`) || !strings.Contains(r.Unread[1].Text, "watchdog state") {
		t.Errorf("unread %+v, want 4x and the unknown line", r.Unread)
	}
}

// TestCongestionErrors: output that is not the command's is an error
// naming the command.
func TestCongestionErrors(t *testing.T) {
	drivertest.CongestionErrors(t, New(), "own-quiet.txt", CmdQueuing, ErrCongestion, map[string]string{
		"% Invalid command at '^' marker.\n": "no Egress or Ingress Queuing for line",
		"":                                   "no Egress or Ingress Queuing for line",
	})
}

// FuzzParseCongestion: any output parses or fails with ErrCongestion,
// without panicking.
func FuzzParseCongestion(f *testing.F) {
	drivertest.CongestionFuzz(f, New(), nil, ErrCongestion)
}
