package junos

import (
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/switchcfg/drivertest"
)

// TestCongestionGolden: every sample under testdata/congestion reads into
// its golden counters and unread lines.
func TestCongestionGolden(t *testing.T) { drivertest.CongestionGolden(t, New(), 2) }

// TestCongestionValues: PFC frames per priority from the extensive JSON,
// queue counters from both commands by queue number; "Not Available" is
// absent; ae0 and lo0 are not read; what is no priority, no queue, no
// count or no known line is unread.
func TestCongestionValues(t *testing.T) {
	r := drivertest.CongestionSample(t, New(), "own-qfx-incast.txt")
	want := map[string]uint64{
		"et-0/0/0 PFC priority 3 Transmitted": 15010, "et-0/0/0 PFC priority 3 Received": 0,
		"et-0/0/1:3 PFC priority 3 Received": 37, "et-0/0/1:3 PFC priority 5 Received": 412,
		"et-0/0/0 Queue 3 ECN-CE packets": 52118, "et-0/0/1:3 Queue 3 Tail-dropped packets": 4100,
		"et-0/0/1:3 Queue 3 RED-dropped packets": 12, "et-0/0/1:3 Queue 3 RED-dropped packets High": 10,
		"et-0/0/1:3 Queue counters 3 Dropped packets": 4100, "et-0/0/0 Queue 3 Transmitted packets": 1204331,
		"et-0/0/0 Queue 0 Total-dropped packets": 0,
	}
	for k, v := range want {
		port, name, _ := strings.Cut(k, " ")
		if got, ok := r.Of(port)[name]; !ok || got != v {
			t.Errorf("%s = %d (read %v), want %d", k, got, ok, v)
		}
	}
	if v, ok := r.Of("et-0/0/0")["Queue 3 Queued packets"]; ok {
		t.Errorf("Not Available read as %d", v)
	}
	if got := strings.Join(r.Ports(), ","); got != "et-0/0/0,et-0/0/1:3" {
		t.Errorf("ports %s, want et-0/0/0 and et-0/0/1:3", got)
	}
	var unread []string
	for _, u := range r.Unread {
		unread = append(unread, u.Reason)
	}
	if len(r.Unread) != 4 || !strings.Contains(unread[0], `"9"`) || !strings.Contains(unread[1], `"x"`) ||
		!strings.Contains(unread[2], `"1x00"`) || r.Unread[3].Line == 0 || !strings.Contains(r.Unread[3].Text, "Some new line") {
		t.Errorf("unread %+v, want priority 9, queue x, 1x00 and the unknown line", r.Unread)
	}
}

// TestCongestionErrors: output that is not the command's is an error
// naming the command.
func TestCongestionErrors(t *testing.T) {
	drivertest.CongestionErrors(t, New(), "own-quiet.txt", CmdInterfacesExtensive, ErrCongestion, map[string]string{
		"error: syntax error, expecting <command>\n": "line 1",
		`{"lldp-neighbors-information": []}`:         "no interface-information",
	})
	drivertest.CongestionErrors(t, New(), "own-quiet.txt", CmdInterfacesQueue, ErrCongestion, map[string]string{
		"error: syntax error\n": "Physical interface",
	})
}

// FuzzParseCongestion: any output parses or fails with ErrCongestion,
// without panicking.
func FuzzParseCongestion(f *testing.F) {
	drivertest.CongestionFuzz(f, New(), nil, ErrCongestion)
}
