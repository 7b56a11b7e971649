package opensm

import (
	"context"
	"errors"
	"testing"

	"github.com/fabricctl/fabricctl/fabric"
)

func TestTargetPlanApplyVerify(t *testing.T) {
	sm := fabric.SubnetManagerIntent{Name: "sm-01", Kind: "opensm", Partitions: []fabric.PartitionIntent{{
		Name: "storage", PKey: 2, IPoIB: true, ServiceLevel: -1,
		Members: []fabric.PartitionMember{{Host: "h1", Membership: "full"}}}}}
	f := newFake(nil)
	tg := &Target{Intent: sm, Pusher: newPusher(f), GUIDs: map[string][]string{"h1": {"0x0002c903000e0b72"}}}
	ctx := context.Background()
	changes, err := tg.Plan(ctx)
	if err != nil || len(changes) == 0 {
		t.Fatalf("plan on an empty SM: %v %+v", err, changes)
	}
	remaining, err := tg.Apply(ctx, changes)
	if err != nil || len(remaining) != 0 || f.hups != 1 {
		t.Fatalf("apply: err %v, remaining %+v, SIGHUPs %d", err, remaining, f.hups)
	}
	if again, _ := tg.Plan(ctx); len(again) != 0 {
		t.Errorf("converged SM still plans %+v", again)
	}
	// OpenSM dying on reload makes the push roll back, and the engine must see that.
	tg.Intent.Partitions[0].IPoIB = false
	f.onHUP = func(f *fakeRemote) { f.running = false }
	_, err = tg.Apply(ctx, nil)
	if !errors.Is(err, fabric.ErrRolledBack) {
		t.Fatalf("want a rolled-back error, got %v", err)
	}
}
