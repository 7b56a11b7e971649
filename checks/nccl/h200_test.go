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
		f, err := os.Open(filepath.Join("..", "testdata", "h200", name))
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
	// socket fallback. One machine, so one host with both ranks.
	two := analyze("nccl-2host-socket-torchrun.log")
	if d := cmp.Diff(map[string]checks.Status{"vm/no-ib-device": checks.StatusFail, "vm/socket-fallback": checks.StatusFail}, status(two)); d != "" {
		t.Errorf("2 ranks (-want +got):\n%s", d)
	}
	if h := two.Hosts[0]; len(two.Hosts) != 1 || !slices.Equal(h.Ranks, []int{0, 1}) || len(h.PIDs) != 2 || h.Transports["NET/Socket"] != 8 || h.GDRDMA != GDRNo {
		t.Errorf("%+v", two.Hosts)
	}

	// Rank 1 skipped the second all_reduce: PyTorch's watchdog on rank 0.
	wd := analyze("nccl-2host-watchdog-timeout.log")
	st := status(wd)
	if st["vm/collective-timeout"] != checks.StatusFail || st["vm/nccl-warning"] != checks.StatusWarn {
		t.Errorf("%v", st)
	}
	for _, f := range wd.Findings {
		if f.Kind == CollectiveTimeout && !strings.HasPrefix(f.Message, "collective ALLREDUCE (SeqNum 2) timed out after 10000 ms on rank 0 (ran 10024 ms)") {
			t.Errorf("%+v", f)
		}
	}
}
