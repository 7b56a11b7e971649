package iblab

import (
	"context"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/switchcfg/opensm"
)

// TestIBLabUnknownGUIDAndBoth: a well-formed GUID that no port has is
// accepted by OpenSM in silence (verbose level only), so the push lands
// and plan warns about it without calling it drift; a "both" member's port
// holds the full key only, which the verification expects.
func TestIBLabUnknownGUIDAndBoth(t *testing.T) {
	l := up(t, nil)
	ctx := context.Background()
	sm := tenants()
	sm.Partitions[0].Members = append(sm.Partitions[0].Members, fabric.PartitionMember{GUID: "0x0002c90300009001", Membership: "full"})
	sm.Partitions[1].Members[1].Membership = "both"
	p := l.Pusher()
	if res, err := p.Push(ctx, sm, Demo().PortGUIDs()); err != nil {
		t.Fatalf("push: %+v %v", res, err)
	}
	got := tables(t, l)
	if got["lab-h4"] != "0x0002=full 0x7fff=limited" {
		t.Errorf("lab-h4, a member of both kinds: [%s], want the full key only", got["lab-h4"])
	}
	target := &opensm.Target{Intent: sm, Pusher: p, GUIDs: Demo().PortGUIDs()}
	ch, err := target.Plan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(ch) != 1 || !ch[0].Unsupported || !strings.Contains(ch[0].Component, "0x0002c90300009001") {
		t.Errorf("plan: %+v, want one warning naming the unknown GUID", ch)
	}
}

// TestIBLabDiscoversGUIDs: a fabric file that gives no port GUIDs gets them
// from the subnet at plan time (the HCAs' NodeDescriptions name the hosts),
// and apply lands the partitions.
func TestIBLabDiscoversGUIDs(t *testing.T) {
	l := up(t, nil)
	ctx := context.Background()
	target := &opensm.Target{Intent: tenants(), Pusher: l.Pusher()}
	ch, err := target.Plan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(ch) == 0 {
		t.Fatal("nothing to change on a fabric without partitions")
	}
	if rest, err := target.Apply(ctx, ch); err != nil || len(rest) != 0 {
		t.Fatalf("apply: %v, left %v", err, rest)
	}
	sameTables(t, "after apply", tables(t, l), isolated)
}

// TestIBLabApplyRepairsFallback: OpenSM started on a hand-broken file (CRLF
// line endings) and fell back to its default, every port a full member of
// 0x7fff. Plan names the file's line and column; apply replaces it and the
// ports are isolated again.
func TestIBLabApplyRepairsFallback(t *testing.T) {
	good := tenantsFile(t)
	l := up(t, []byte(strings.ReplaceAll(good, "\n", "\r\n")))
	ctx := context.Background()
	sameTables(t, "OpenSM started on a CRLF file", tables(t, l), fallback)
	target := &opensm.Target{Intent: tenants(), Pusher: l.Pusher(), GUIDs: Demo().PortGUIDs()}
	ch, err := target.Plan(ctx)
	if err != nil || len(ch) == 0 || ch[0].Setting != "file" || !strings.Contains(ch[0].Old, "partitions.conf:3:1: carriage return") {
		t.Fatalf("plan: %+v, %v", ch, err)
	}
	if rest, err := target.Apply(ctx, ch); err != nil || len(rest) != 0 {
		t.Fatalf("apply: %v, left %v", err, rest)
	}
	sameTables(t, "after apply", tables(t, l), isolated)
}
