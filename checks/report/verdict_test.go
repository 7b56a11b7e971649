package report

import (
	"testing"

	"github.com/fabricctl/fabricctl/checks"
)

func TestHostVerdicts(t *testing.T) {
	r := &Report{
		Results: []checks.Result{
			{ID: "preflight/port-active", Target: "h1/mlx5_0", Status: checks.StatusPass},
			{ID: "preflight/rdma-device", Target: "h3/eth0", Status: checks.StatusFail, Summary: "netdev eth0 has no RDMA device"},
			{ID: "preflight/agent", Target: "h5", Status: checks.StatusError, Summary: "unreachable"},
			{ID: "preflight/versions", Target: "fleet/perftest", Status: checks.StatusFail},
		},
		Pairs: []Pair{
			{A: "h1", B: "h2", Test: "write_bw", Status: checks.StatusPass},
			{A: "h1", B: "h3", Test: "write_bw", Status: checks.StatusFail},
			{A: "h2", B: "h3", Test: "write_bw", Status: checks.StatusFail},
			{A: "h4", B: "h1", Test: "write_bw", Status: checks.StatusFail, Summary: "low"},
			{A: "h4", B: "h2", Test: "write_bw", Status: checks.StatusFail, Summary: "low"},
			{A: "h6", B: "h7", Test: "write_bw", Status: checks.StatusFail},
		},
	}
	got := map[string]HostVerdict{}
	for _, v := range r.HostVerdicts([]string{"h1", "h2", "h3", "h4", "h5", "h6", "h7", "h8"}) {
		got[v.Host] = v
	}
	want := map[string]bool{"h1": false, "h2": false, "h3": true, "h4": true, "h5": false, "h6": false, "h7": false, "h8": false}
	for h, failed := range want {
		if got[h].Failed != failed {
			t.Errorf("%s: %+v, want failed=%v", h, got[h], failed)
		}
	}
	if _, ok := got["fleet"]; ok {
		t.Error("fleet is not a host")
	}
	if got["h3"].Reason != "preflight/rdma-device h3/eth0: netdev eth0 has no RDMA device" {
		t.Errorf("h3 reason %q", got["h3"].Reason)
	}
	if !got["h5"].Undecided || got["h4"].FailedPairs != 2 || got["h1"].Pairs != 3 {
		t.Errorf("h5 %+v h4 %+v h1 %+v", got["h5"], got["h4"], got["h1"])
	}
}
