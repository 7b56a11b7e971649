package cumulus

import (
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/switchcfg/drivertest"
)

// TestCongestionGolden: every sample under testdata/congestion reads into
// its golden counters and unread lines.
func TestCongestionGolden(t *testing.T) { drivertest.CongestionGolden(t, New(), 2) }

// TestCongestionCommands: one command per front-panel port, none for
// other interfaces.
func TestCongestionCommands(t *testing.T) {
	got := New().CongestionCommands([]string{"swp2", "eth0", "swp1s0", "bond0", "swp2"})
	want := "nv show interface swp1s0 counters qos -o json|nv show interface swp2 counters qos -o json"
	if strings.Join(got, "|") != want {
		t.Errorf("commands %q, want %q", got, want)
	}
}

// TestCongestionValues: each port's counters come from its own command,
// by group, index and field; "n/a" is absent; an index or a value that is
// not one is unread; without ecn-marked-frames per class the port's ECN
// marks are still read, under port-stats.
func TestCongestionValues(t *testing.T) {
	r := drivertest.CongestionSample(t, New(), "own-sn5600-incast.txt")
	want := map[string]uint64{
		"swp1 pfc-stats 3 tx-pause-frames": 15010, "swp1 pfc-stats 3 tx-pause-duration": 812000,
		"swp1 egress-queue-stats 3 ecn-marked-frames": 52118, "swp7 pfc-stats 3 rx-pause-frames": 37,
		"swp7 pfc-stats 5 tx-pause-frames": 412, "swp7 egress-queue-stats 3 tx-uc-buffer-discards": 76993,
		"swp7 egress-queue-stats 3 wred-discards": 12, "swp1 port-stats tx-stats ecn-marked-packets": 52118,
	}
	for k, v := range want {
		port, name, _ := strings.Cut(k, " ")
		if got, ok := r.Of(port)[name]; !ok || got != v {
			t.Errorf("%s = %d (read %v), want %d", k, got, ok, v)
		}
	}
	if v, ok := r.Of("swp1")["pfc-stats 5 tx-pause-duration"]; ok {
		t.Errorf("n/a read as %d", v)
	}
	if len(r.Unread) != 2 || r.Unread[0].Text != "pfc-stats.x" || r.Unread[1].Text != "port-stats.tx-stats.ecn-marked-packets" {
		t.Errorf("unread %+v, want pfc-stats.x and the port's ecn count", r.Unread)
	}
	old := drivertest.CongestionSample(t, New(), "own-spectrum2-no-tc-ecn.txt").Of("swp49")
	if _, ok := old["egress-queue-stats 3 ecn-marked-frames"]; ok || old["port-stats tx-stats ecn-marked-packets"] != 9 {
		t.Errorf("spectrum-2: %v, want no per-class ECN and 9 on the port", old)
	}
}

// TestCongestionErrors: output that is not the command's JSON is an error
// naming the command.
func TestCongestionErrors(t *testing.T) {
	drivertest.CongestionErrorsOf(t, New(), "own-spectrum2-no-tc-ecn.txt", CongestionCommand("swp49"), ErrCongestion, map[string]string{
		"Error: The requested item does not exist.\n": "line 1",
		"[1, 2]":          "not an object",
		`{"link": {}}`:    "none of pfc-stats",
		`{"pfc-stats": 3`: "line 1",
	}, false)
}

// FuzzParseCongestion: any output parses or fails with ErrCongestion,
// without panicking.
func FuzzParseCongestion(f *testing.F) {
	drivertest.CongestionFuzz(f, New(), []string{"swp1", "swp2"}, ErrCongestion)
}
