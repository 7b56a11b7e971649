package eos

import (
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/switchcfg/drivertest"
)

// TestCongestionGolden: every sample under testdata/congestion reads into
// its golden counters and unread lines.
func TestCongestionGolden(t *testing.T) { drivertest.CongestionGolden(t, New(), 2) }

// TestCongestionValues: pause per priority and per port, drops summed
// over drop precedences per traffic class, ECN marks per queue; "-" is
// absent; Port-Channels and Management are not read; what is no priority
// or no count is unread.
func TestCongestionValues(t *testing.T) {
	r := drivertest.CongestionSample(t, New(), "own-7050x-incast.txt")
	want := map[string]uint64{
		"Ethernet1/1 Priority 3 TxPfc": 15010, "Ethernet1/1 TxPfc": 15010, "Ethernet49/1 Priority 5 RxPfc": 412,
		"Ethernet49/1 Priority 3 RxPfc": 37, "Ethernet49/1 TxQ3 DropPkts": 4100, "Ethernet49/1 TxQ3 DropBytes": 4198400,
		"Ethernet1/1 TxQ3 EcnMarked": 52118, "Ethernet49/1 TxQ3 EcnMarked": 0, "Ethernet1/1 TxQ3 enqueuedPackets": 1204331,
		"Ethernet49/1 TxQ4-5 DropPkts": 3, "Ethernet1/1 McastTxQ0 DropPkts": 0,
	}
	for k, v := range want {
		port, name, _ := strings.Cut(k, " ")
		if got, ok := r.Of(port)[name]; !ok || got != v {
			t.Errorf("%s = %d (read %v), want %d", k, got, ok, v)
		}
	}
	if v, ok := r.Of("Ethernet1/1")["TxQ0 EcnMarked"]; ok {
		t.Errorf(`"-" read as %d`, v)
	}
	if got := strings.Join(r.Ports(), ","); got != "Ethernet1/1,Ethernet49/1" {
		t.Errorf("ports %s, want the two Ethernet ports", got)
	}
	var unread []string
	for _, u := range r.Unread {
		unread = append(unread, u.Text)
	}
	if strings.Join(unread, " ") != "interfaceCounters.Ethernet49/1.priorities.9 egressQueueCounters.interfaces.Ethernet49/1.mcastQueues.trafficClasses.TC3.dropPrecedences.DP0.droppedPackets" {
		t.Errorf("unread %q, want priority 9 and the count many", unread)
	}
}

// TestCongestionErrors: output that is not the command's JSON is an error
// naming the command.
func TestCongestionErrors(t *testing.T) {
	drivertest.CongestionErrors(t, New(), "own-quiet.txt", CmdPFCCounters, ErrCongestion, map[string]string{
		"% Invalid input\n":            "line 1",
		`{"interfaces": {}}`:           "no interfaceCounters",
		`{"interfaceCounters": [1]}`:   "interfaceCounters is not an object",
		`{"interfaceCounters": {}} {}`: "text after",
	})
	drivertest.CongestionErrors(t, New(), "own-quiet.txt", CmdQueueDrops, ErrCongestion, map[string]string{
		`{"egressQueueCounters": {}}`: "no egressQueueCounters.interfaces",
	})
	drivertest.CongestionErrors(t, New(), "own-quiet.txt", CmdECNCounters, ErrCongestion, map[string]string{
		`{}`: "no intfQueueCounters",
	})
}

// FuzzParseCongestion: any output parses or fails with ErrCongestion,
// without panicking.
func FuzzParseCongestion(f *testing.F) {
	drivertest.CongestionFuzz(f, New(), nil, ErrCongestion)
}
