package nccl

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/checks"
)

// TestBadNumbers: a rank, nNodes, port or GRAPH bandwidth no number holds,
// and nccl-tests figures past their type, are bad-number findings (status
// error) quoting their line; the line is not read (no rank 0 or largest
// int invented), an nccl-tests table with one is not judged, and the
// Analysis still encodes as JSON.
func TestBadNumbers(t *testing.T) {
	huge := "1" + strings.Repeat("0", 400)
	const p = "gpu-01:20511:20602 [0] NCCL INFO "
	log := p + "comm 0x1 rank 100000000000000000000000 nRanks 4 nNodes 2 localRanks 2 localRank 0\n" +
		p + "comm 0x2 rank 1 nRanks 4 nNodes 99999999999999999999 localRanks 2 localRank 1\n" +
		p + "NET/IB : Using [0]mlx5_0:99999999999999999999/RoCE [1]mlx5_1:1/RoCE; OOB eth0:10.0.0.1<0>\n" +
		p + "Pattern 4, crossNic 0, nChannels 16, bw " + huge + "/40.000000, type NVL/PIX, sameChannels 1\n" +
		p + "Channel 00/0 : 0[0] -> 99999999999999999999[1] via P2P/CUMEM\n"
	tests := "#       size         count    type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n" +
		"     1048576        262144   float     sum      -1    307.5    3.41    6.39      0    225.1    4.66    8.74      0\n" +
		"     1e23        524288   float     sum      -1    407.5    5.15    9.65      0    405.1    5.18    9.71      0\n" +
		"# Out of bounds values : 99999999999999999999 OK\n" +
		"# Avg bus bandwidth    : " + huge + "\n"
	a, err := Analyze(Options{}, Source{Name: "job.log", R: strings.NewReader(log)}, Source{Name: "tests.log", R: strings.NewReader(tests)})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"job.log:1": "rank 100000000000000000000000", "job.log:2": "nNodes 99999999999999999999", "job.log:3": "port 99999999999999999999",
		"job.log:4": "bandwidth 1000", "job.log:5": "rank 99999999999999999999", "tests.log:3": "3 figure(s) of nccl-tests output",
	}
	for _, f := range a.Findings {
		if f.Kind != BadNumber {
			continue
		}
		if f.Status != checks.StatusError || !strings.Contains(f.Message, want[f.Where]) || want[f.Where] == "" {
			t.Errorf("%+v", f)
		}
		delete(want, f.Where)
	}
	if len(want) > 0 {
		t.Errorf("no bad-number finding at %v: %+v", want, a.Findings)
	}
	h := a.Hosts[0]
	if len(h.Ranks) != 1 || h.Ranks[0] != 1 || len(h.IBDevices) != 1 || len(h.Paths) != 0 || len(h.Links) != 0 {
		t.Errorf("a line with a bad number was read: %+v", h)
	}
	if pt := a.Tests[0]; len(pt.Rows) != 1 || pt.AvgBusBW != 0 || pt.OutOfBounds != -1 || len(pt.NotNumbers) != 3 {
		t.Errorf("nccl-tests: %+v", pt)
	}
	if _, err := json.Marshal(a); err != nil {
		t.Error(err)
	}
}
