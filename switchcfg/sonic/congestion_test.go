package sonic

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/internal/testutil"
	"github.com/fabricctl/fabricctl/switchcfg"
	"github.com/fabricctl/fabricctl/switchcfg/drivertest"
)

// TestCongestionGolden: every sample under testdata/congestion reads into
// its golden counters and unread lines.
func TestCongestionGolden(t *testing.T) { drivertest.CongestionGolden(t, New(), 2) }

// TestCongestionValues: pause lands on its port, direction and priority,
// drops and ECN marks on their queue; thousands separators read; N/A,
// backplane ports and cells that are no count are absent, the latter
// listed as unread with their line.
func TestCongestionValues(t *testing.T) {
	r := drivertest.CongestionSample(t, New(), "own-incast-leaf.txt")
	want := map[string]uint64{
		"Ethernet0 Tx PFC3": 15010, "Ethernet4 Rx PFC3": 37, "Ethernet8 Tx PFC5": 412, "Ethernet0 Rx PFC3": 0,
		"Ethernet4 UC3 Drop/pkts": 4100, "Ethernet0 UC3 Counter/pkts": 1204331, "Ethernet0 UC3 EcnMarked/pkts": 52118,
		"Ethernet4 UC3 WredDrp/pkts": 0, "Ethernet0 MC8 Counter/pkts": 0,
	}
	for k, v := range want {
		port, name, _ := strings.Cut(k, " ")
		if got, ok := r.Of(port)[name]; !ok || got != v {
			t.Errorf("%s = %d (read %v), want %d", k, got, ok, v)
		}
	}
	for _, absent := range []string{"Ethernet8 Tx PFC6", "Ethernet0 MC8 Drop/pkts", "Ethernet8 UC3 Drop/pkts", "Ethernet4 UC3X Drop/pkts"} {
		port, name, _ := strings.Cut(absent, " ")
		if v, ok := r.Of(port)[name]; ok {
			t.Errorf("%s read as %d, want absent", absent, v)
		}
	}
	if got := r.Ports(); strings.Join(got, ",") != "Ethernet0,Ethernet4,Ethernet8" {
		t.Errorf("ports %v, want the three front-panel ports (no Ethernet-BP0)", got)
	}
	var unread []string
	for _, u := range r.Unread {
		unread = append(unread, u.Command+":"+strings.Fields(u.Text)[1])
	}
	if strings.Join(unread, " ") != "show queue counters:UC3X show queue counters:UC3" {
		t.Errorf("unread %+v, want the UC3X row and Ethernet8's 1x", r.Unread)
	}
}

// TestCongestionErrors: output that is none of the tables is an error
// naming the command, never an empty reading.
func TestCongestionErrors(t *testing.T) {
	drivertest.CongestionErrors(t, New(), "own-single-asic-zero.txt", CmdPFCCounters, ErrCongestion, map[string]string{
		"Usage: show [OPTIONS] COMMAND [ARGS]...\nError: No such command \"pfc\".\n": "no table header",
		"":                    "no table header",
		"Port Rx PFC0 PFC1\n": "no table header",
	})
	drivertest.CongestionErrors(t, New(), "own-single-asic-zero.txt", CmdWREDCounters, ErrCongestion, map[string]string{
		"     Port    TxQ    WredDrp/pkts\nEthernet0 UC0 0\n": "no table header",
	})
}

// TestPublishedCongestion reads sonic-utilities' own test outputs of the
// three commands ($FABRICCTL_OUTPUT_CORPUS/switch-congestion/sonic,
// provenance.yaml beside them), pinned by sha256; it skips when they are
// absent.
func TestPublishedCongestion(t *testing.T) {
	dir := filepath.Join(testutil.OutputCorpus(t), "switch-congestion", "sonic")
	cases := []struct {
		file, sha string
		parse     func(*switchcfg.CongestionParse, string) error
		want      map[string]uint64
		ports     string
	}{
		{"pfcstat-show-pfc-counters.txt", "99ff9c81b0d469de59c2fcfe6d8cc144241f8771ff5e98494fb3a9ed41604593", parsePFCCounters,
			map[string]uint64{"Ethernet0 Rx PFC0": 1200, "Ethernet4 Rx PFC3": 403, "Ethernet8 Tx PFC7": 817, "Ethernet0 Tx PFC0": 1210}, "Ethernet0,Ethernet4,Ethernet8"},
		{"pfcstat-show-pfc-counters-all-asics.txt", "527ebda7dbad7ea9c3b099ed833d99a0113ae1de4da4eddf5a67f0f9ba05c4ff", parsePFCCounters,
			map[string]uint64{"Ethernet4 Tx PFC3": 413, "Ethernet0 Rx PFC0": 1200}, "Ethernet0,Ethernet4"},
		{"queuestat-show-queue-counters.txt", "f1ee9846a3a0159e34d3cc4530db2cd5c0991ce15ede3214955aac88e6bca27b", parseQueueCounters,
			map[string]uint64{"Ethernet0 UC3 Drop/pkts": 19, "Ethernet4 UC3 Counter/pkts": 60, "Ethernet8 MC10 Drop/pkts": 76}, "Ethernet0,Ethernet4,Ethernet8"},
		{"queuestat-show-queue-wredcounters.txt", "dbc3d35fc347cad8938a587aa217cd22fbb169c495bf7f6b0d51622c92af03cf", parseQueueCounters,
			map[string]uint64{"Ethernet0 UC3 EcnMarked/pkts": 19, "Ethernet4 UC3 WredDrp/pkts": 60, "Ethernet8 UC1 EcnMarked/pkts": 68}, "Ethernet0,Ethernet4,Ethernet8"},
	}
	read := 0
	for _, c := range cases {
		data, ok, err := testutil.ReadPinned(filepath.Join(dir, c.file), c.sha)
		if err != nil {
			t.Errorf("%s: %v", c.file, err)
			continue
		}
		if !ok {
			continue
		}
		read++
		p := switchcfg.CongestionParse{Command: c.file}
		if err := c.parse(&p, string(data)); err != nil {
			t.Errorf("%s: %v", c.file, err)
			continue
		}
		r := p.Done()
		if len(r.Unread) > 0 {
			t.Errorf("%s: unread %+v", c.file, r.Unread)
		}
		for k, v := range c.want {
			port, name, _ := strings.Cut(k, " ")
			if got, ok := r.Of(port)[name]; !ok || got != v {
				t.Errorf("%s: %s = %d (read %v), want %d", c.file, k, got, ok, v)
			}
		}
		if got := strings.Join(r.Ports(), ","); got != c.ports {
			t.Errorf("%s: ports %s, want %s", c.file, got, c.ports)
		}
		if _, ok := r.Of("Ethernet0")["ALL20 Counter/pkts"]; ok {
			t.Errorf("%s: ALL20's N/A read as a count", c.file)
		}
	}
	if read == 0 {
		t.Skipf("no published SONiC output in %s (set FABRICCTL_OUTPUT_CORPUS)", dir)
	}
	t.Logf("%d published SONiC outputs read", read)
}

// FuzzParseCongestion: any output parses or fails with ErrCongestion,
// without panicking.
func FuzzParseCongestion(f *testing.F) {
	drivertest.CongestionFuzz(f, New(), nil, ErrCongestion)
}
