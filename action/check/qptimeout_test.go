package check

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/fabricctl/fabricctl/checks/perftest"
	"github.com/fabricctl/fabricctl/checks/rdma"
	"github.com/fabricctl/fabricctl/fabric"
)

// TestQPTimeoutReachesPerftest: the fabric's qpTimeout of each suite is the -u of every perftest
// the suite runs (the sweep the runner builds, the tests PairwiseTest and LoopbackTest give the
// NCCL rerun and check --local, and the test as it travels to a Slurm task), and without it no -u
// is passed, so perftest keeps its own 14.
func TestQPTimeoutReachesPerftest(t *testing.T) {
	gid := 3
	e := rdma.Endpoint{Host: "h1", Device: "mlx5_0", Port: 1, GIDIndex: &gid}
	argv := func(tt rdma.Test) []string {
		t.Helper()
		a, err := perftest.Args(tt.Spec(e, e.Device, 18600, "10.0.0.2"))
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	u := func(a []string) string {
		if i := slices.Index(a, "-u"); i >= 0 && i+1 < len(a) {
			return a[i+1]
		}
		return ""
	}
	c := &fabric.Checks{Loopback: &fabric.Loopback{QPTimeout: 18}, Pairwise: &fabric.Pairwise{QPTimeout: 20}}
	pt, _ := PairwiseTest(c)
	lt, _ := LoopbackTest(c)
	sw := pairwiseSweep(Options{Checks: c})
	var sent rdma.Test // as a Slurm task receives it
	b, _ := json.Marshal(pt)
	if err := json.Unmarshal(b, &sent); err != nil {
		t.Fatal(err)
	}
	for name, got := range map[string]string{
		"pairwise sweep": u(argv(sw.Test)), "PairwiseTest": u(argv(pt)), "over JSON": u(argv(sent)),
		"loopback sweep": u(argv(loopbackSweep(Options{Checks: c}).Test)), "LoopbackTest": u(argv(lt)),
	} {
		want := "20"
		if name == "loopback sweep" || name == "LoopbackTest" {
			want = "18"
		}
		if got != want {
			t.Errorf("%s: -u %q, want %q", name, got, want)
		}
	}
	plain, _ := PairwiseTest(&fabric.Checks{Pairwise: &fabric.Pairwise{}})
	if a := argv(plain); slices.Contains(a, "-u") {
		t.Errorf("no qpTimeout in the fabric, yet %q", a)
	}
}
