package hostcfg_test

import (
	"slices"
	"testing"

	"github.com/fabricctl/fabricctl/hostcfg"
)

// TestPartitionsOnRoCEHost: a RoCE host that is a member of the fabric's InfiniBand partitions
// (they select hosts by label) has no pkey table to verify; its plan is the plan without the
// partitions, with no "infiniband" row. An InfiniBand host still gets them (TestPartitions).
func TestPartitionsOnRoCEHost(t *testing.T) {
	f := load(t, "rxe")
	d := desired(t, "rxe")
	_, without := plan(t, f, d)
	d.Partitions = desired(t, "mlx5-ib").Partitions
	if len(d.Partitions) == 0 {
		t.Fatal("mlx5-ib's desired state has no partitions")
	}
	_, with := plan(t, f, d)
	if slices.ContainsFunc(with.Issues, func(i hostcfg.Issue) bool { return i.Interface == "infiniband" }) {
		t.Errorf("a RoCE host's plan has an infiniband issue: %+v", with.Issues)
	}
	if len(with.Issues) != len(without.Issues) || len(with.Changes) != len(without.Changes) {
		t.Errorf("partitions changed a RoCE host's plan: %d issues, %d changes; without them %d, %d",
			len(with.Issues), len(with.Changes), len(without.Issues), len(without.Changes))
	}

	ib := load(t, "mlx5-ib")
	_, p := plan(t, ib, desired(t, "mlx5-ib"))
	if !slices.ContainsFunc(p.Issues, func(i hostcfg.Issue) bool { return i.Setting == "pkey.0x0003" }) {
		t.Errorf("an InfiniBand host lost its pkey checks: %+v", p.Issues)
	}
}
