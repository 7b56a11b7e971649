package nccl

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/checks"
	"github.com/google/go-cmp/cmp"
)

// TestH200Logs reads the NCCL logs captured on a real H200 server
// (../testdata/h200/README.md): NCCL 2.28.9 under PyTorch, with torchrun's
// "[default0]:" prefixes and PyTorch's "[rank0]:[E1203 …]" nested in them.
func TestH200Logs(t *testing.T) {
	analyze := func(name string) *Analysis {
		t.Helper()
		return analyzeCapture(t, filepath.Join("..", "testdata", "h200", name), name)
	}
	status := func(a *Analysis) map[string]checks.Status {
		m := map[string]checks.Status{}
		for _, f := range a.Findings {
			m[f.Host+"/"+string(f.Kind)] = f.Status
		}
		return m
	}

	// One rank, nNodes 1: the socket transport was chosen but never carried
	// data, so it is a warning, not a failure.
	one := analyze("nccl-1rank.log")
	if d := cmp.Diff(map[string]checks.Status{"vm/no-ib-device": checks.StatusWarn, "vm/socket-fallback": checks.StatusWarn}, status(one)); d != "" {
		t.Errorf("1 rank (-want +got):\n%s", d)
	}
	if h := one.Hosts[0]; !slices.Equal(h.Versions, []string{"2.28.9+cuda13.0"}) || h.GDRDMA != GDRUnknown || h.Bootstrap[0].String() != "eth0:192.0.2.2" {
		t.Errorf("%+v", h)
	}

	// Two ranks NCCL takes for two hosts: channels over NET/Socket, a real
	// socket fallback. One machine, so one host with both ranks, whose
	// ranks talk through the network transport (net-within-host).
	two := analyze("nccl-2host-socket-torchrun.log")
	if d := cmp.Diff(map[string]checks.Status{"vm/no-ib-device": checks.StatusFail, "vm/socket-fallback": checks.StatusFail, "vm/net-within-host": checks.StatusWarn}, status(two)); d != "" {
		t.Errorf("2 ranks (-want +got):\n%s", d)
	}
	if h := two.Hosts[0]; len(two.Hosts) != 1 || !slices.Equal(h.Ranks, []int{0, 1}) || len(h.PIDs) != 2 || h.Transports["NET/Socket"] != 8 || h.GDRDMA != GDRNo {
		t.Errorf("%+v", two.Hosts)
	}

	// Rank 1 skipped the second all_reduce: PyTorch's watchdog on rank 0.
	wd := analyze("nccl-2host-watchdog-timeout.log")
	st := status(wd)
	if st["vm/collective-timeout"] != checks.StatusFail || st["vm/nccl-error"] != checks.StatusFail {
		t.Errorf("%v", st)
	}
	for _, f := range wd.Findings {
		if f.Kind == CollectiveTimeout && !strings.HasPrefix(f.Message, "collective ALLREDUCE (SeqNum 2) timed out after 10000 ms on rank 0 (ran 10024 ms)") {
			t.Errorf("%+v", f)
		}
	}
}

// TestH200Issue18Captures reads issue 18's real H200 run
// (../collective/testdata/h200): nccl-tests 2.19.6's table with NCCL's INFO
// lines in the same stream, and the NCCL_DEBUG_FILE log of the PyTorch rank.
func TestH200Issue18Captures(t *testing.T) {
	read := func(name string) *Analysis {
		t.Helper()
		return analyzeCapture(t, filepath.Join("..", "collective", "testdata", "h200", name), name)
	}
	tests := read("all_reduce_perf-direct.txt")
	if len(tests.Tests) != 1 {
		t.Fatalf("%d tables", len(tests.Tests))
	}
	p := tests.Tests[0]
	if len(p.Rows) != 25 || p.Rows[0].Bytes != 8 || p.Rows[24].Bytes != 134217728 || p.OutOfBounds != 0 || p.Rows[24].Root != -1 || p.Rows[24].InPlace.Wrong != 0 {
		t.Errorf("%d rows, last %+v, out of bounds %d", len(p.Rows), p.Rows[len(p.Rows)-1], p.OutOfBounds)
	}
	rank := read("torch/nccl-vm-894.log")
	h := host(t, rank, "vm")
	if nvl, known := h.NVLinkPaths(); nvl || known || len(h.Paths) != 2 || h.Paths[0].Intra != "LOC" || len(h.Links) != 0 || h.Env["NCCL_NVLS_ENABLE"] != "0" {
		t.Errorf("%+v", h)
	}
}

// analyzeCapture analyses the file at path, named name in the findings.
func analyzeCapture(t *testing.T, path, name string) *Analysis {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	a, err := Analyze(Options{}, Source{Name: name, R: f})
	if err != nil {
		t.Fatal(err)
	}
	return a
}
