package ufm_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/switchcfg"
	"github.com/fabricctl/fabricctl/switchcfg/opensm"
	"github.com/fabricctl/fabricctl/switchcfg/ufm"
	"github.com/fabricctl/fabricctl/switchcfg/ufm/ufmtest"
	"github.com/google/go-cmp/cmp"
)

func intent() (fabric.SubnetManagerIntent, map[string][]string) {
	sm := fabric.SubnetManagerIntent{Name: "ufm-01", Kind: "ufm", Partitions: []fabric.PartitionIntent{
		{Name: "storage", PKey: 0x2, IPoIB: true, MTU: 4096, Rate: 200, ServiceLevel: 1, DefaultMembership: "limited",
			Members: []fabric.PartitionMember{{Host: "stor-01", Membership: "full"}, {Host: "gpu-01"}}},
		{Name: "tenant-a", PKey: 0x3, ServiceLevel: -1, DefaultMembership: "full",
			Members: []fabric.PartitionMember{{GUID: "0x0002c90300a1b220"}}},
	}}
	guids := map[string][]string{"stor-01": {"0x0002c90300a1b2f0"}, "gpu-01": {"0x0002c90300a1b210", "0x0002c90300a1b211"}}
	return sm, guids
}

func writes(reqs []string) []string {
	var out []string
	for _, r := range reqs {
		if !strings.HasPrefix(r, "GET ") {
			out = append(out, r)
		}
	}
	return out
}

func TestApplyCreatesThenNoop(t *testing.T) {
	srv, c := newUFM(t)
	b := &ufm.Backend{Client: c}
	sm, guids := intent()
	ctx := context.Background()
	res, err := b.Apply(ctx, sm, guids)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Changed || len(res.Diffs) != 2 {
		t.Errorf("result %+v", res)
	}
	got, _ := srv.Get(2)
	want := ufmtest.Partition{Name: "storage", IPoIB: true, QoS: ufmtest.QoS{MTULimit: 4, ServiceLevel: 1, RateLimit: 200}, Members: map[string]ufmtest.Member{
		"0002c90300a1b210": {GUID: "0002c90300a1b210", Membership: "limited"},
		"0002c90300a1b211": {GUID: "0002c90300a1b211", Membership: "limited"},
		"0002c90300a1b2f0": {GUID: "0002c90300a1b2f0", Membership: "full"},
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("0x2 on UFM (-want +got):\n%s", diff)
	}
	got, _ = srv.Get(3)
	if got.QoS != (ufmtest.QoS{MTULimit: 2, ServiceLevel: 0, RateLimit: 2.5}) || got.IPoIB || got.Members["0002c90300a1b220"].Membership != "full" {
		t.Errorf("0x3 on UFM: %+v", got)
	}
	wantWrites := []string{
		"POST /ufmRest/resources/pkeys/add", "PUT /ufmRest/resources/pkeys",
		"POST /ufmRest/resources/pkeys/add", "PUT /ufmRest/resources/pkeys",
	}
	if diff := cmp.Diff(wantWrites, writes(srv.Requests())); diff != "" {
		t.Errorf("writes (-want +got):\n%s", diff)
	}

	// Nothing to do the second time: no write at all.
	before := len(srv.Requests())
	res, err = b.Apply(ctx, sm, guids)
	if err != nil || res.Changed || len(res.Diffs) != 0 {
		t.Fatalf("second apply: %v %+v", err, res)
	}
	if w := writes(srv.Requests()[before:]); len(w) != 0 {
		t.Errorf("idempotent apply wrote: %v", w)
	}
}

// TestDriftAndRepair edits UFM behind fabricctl's back and checks that Plan
// names exactly the edited fields and Apply repairs them with the fewest calls.
func TestDriftAndRepair(t *testing.T) {
	srv, c := newUFM(t)
	b := &ufm.Backend{Client: c}
	sm, guids := intent()
	ctx := context.Background()
	if _, err := b.Apply(ctx, sm, guids); err != nil {
		t.Fatal(err)
	}
	p, _ := srv.Get(2)
	p.Members["0002c90300a1b211"] = ufmtest.Member{GUID: "0002c90300a1b211", Membership: "full"}
	p.QoS.ServiceLevel = 5
	p.Name = "renamed-in-the-gui" // UFM names are not compared
	srv.Put(2, p)
	srv.Put(0x40, ufmtest.Partition{Name: "k8s", IPoIB: true, QoS: ufmtest.QoS{MTULimit: 2, RateLimit: 2.5}}) // someone else's

	diffs, err := b.Plan(ctx, sm, guids)
	if err != nil {
		t.Fatal(err)
	}
	want := []opensm.Diff{
		{PKey: 2, Partition: "storage", Field: "sl", Want: "1", Got: "5"},
		{PKey: 2, Partition: "storage", Field: "member 0x0002c90300a1b211", Want: "limited", Got: "full"},
	}
	if d := cmp.Diff(want, diffs); d != "" {
		t.Errorf("plan (-want +got):\n%s", d)
	}
	before := len(srv.Requests())
	if _, err := b.Apply(ctx, sm, guids); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"PUT /ufmRest/resources/pkeys", "PUT /ufmRest/resources/pkeys/qos_conf"}, writes(srv.Requests()[before:])); d != "" {
		t.Errorf("repair writes (-want +got):\n%s", d)
	}
	if _, ok := srv.Get(0x40); !ok {
		t.Error("a pkey fabricctl does not own was deleted without Prune")
	}

	b.Prune = true
	if d, _ := b.Plan(ctx, sm, guids); len(d) != 1 || d[0].PKey != 0x40 || d[0].Got != "present" {
		t.Errorf("with Prune the foreign pkey is drift: %v", d)
	}
	if _, err := b.Apply(ctx, sm, guids); err != nil {
		t.Fatal(err)
	}
	if _, ok := srv.Get(0x40); ok {
		t.Error("Prune kept 0x40")
	}
	if _, ok := srv.Get(0x7fff); !ok {
		t.Error("Prune deleted the management pkey")
	}
}

// TestApplyRollsBack fails the third PUT (0x2's members and QoS are fixed,
// 0x3 is created, then setting 0x3's members fails): 0x3 is deleted again and
// 0x2 gets back its members (index0 ones included) and QoS.
func TestApplyRollsBack(t *testing.T) {
	srv, c := newUFM(t)
	b := &ufm.Backend{Client: c}
	ctx := context.Background()
	old := ufmtest.Partition{Name: "storage", IPoIB: false, QoS: ufmtest.QoS{MTULimit: 2, ServiceLevel: 0, RateLimit: 10},
		Members: map[string]ufmtest.Member{"0002c90300a1b2f0": {GUID: "0002c90300a1b2f0", Membership: "limited", Index0: true}, "0002c90300a1b299": {GUID: "0002c90300a1b299", Membership: "full"}}}
	srv.Put(2, old)
	sm, guids := intent()
	srv.Inject(ufmtest.Fault{Method: "PUT", PathPrefix: "/ufmRest/resources/pkeys", Nth: 3, Status: 500, Message: "internal error"})
	res, err := b.Apply(ctx, sm, guids)
	if err == nil || !res.RolledBack {
		t.Fatalf("err %v res %+v", err, res)
	}
	if !strings.Contains(err.Error(), "setting the GUIDs of pkey 0x3: UFM PUT /ufmRest/resources/pkeys: 500 Internal Server Error: internal error") {
		t.Errorf("error %v", err)
	}
	wantWrites := []string{
		"PUT /ufmRest/resources/pkeys", "PUT /ufmRest/resources/pkeys/qos_conf", // 0x2
		"POST /ufmRest/resources/pkeys/add", "PUT /ufmRest/resources/pkeys", // 0x3, fails
		"DELETE /ufmRest/resources/pkeys/0x3", // rollback, newest first
		"PUT /ufmRest/resources/pkeys", "POST /ufmRest/resources/pkeys", "PUT /ufmRest/resources/pkeys/qos_conf",
	}
	if d := cmp.Diff(wantWrites, writes(srv.Requests())); d != "" {
		t.Errorf("writes (-want +got):\n%s", d)
	}
	if _, ok := srv.Get(3); ok {
		t.Error("0x3 created by the failed apply is still there")
	}
	got, _ := srv.Get(2)
	if d := cmp.Diff(old, got); d != "" {
		t.Errorf("0x2 not restored (-want +got):\n%s", d)
	}
}

// TestApplyReadBackFails: a failing read-back after the writes rolls back too.
func TestApplyReadBackFails(t *testing.T) {
	srv, c := newUFM(t)
	b := &ufm.Backend{Client: c}
	sm, guids := intent()
	srv.Inject(ufmtest.Fault{Method: "GET", PathPrefix: "/ufmRest/resources/pkeys", Nth: 2, Status: 502, Message: "bad gateway"})
	res, err := b.Apply(context.Background(), sm, guids)
	if err == nil || !res.RolledBack {
		t.Fatalf("err %v res %+v", err, res)
	}
	if got := srv.PKeys(); len(got) != 1 || got[0] != 0x7fff {
		t.Errorf("left pkeys %x", got)
	}
}

func TestDesiredUnsupported(t *testing.T) {
	for _, tc := range []struct {
		name string
		p    fabric.PartitionIntent
		want string
	}{
		{"keyword", fabric.PartitionIntent{Name: "a", PKey: 5, Members: []fabric.PartitionMember{{Special: "ALL_CAS", Membership: "full"}}},
			`partition "a": not supported by platform: UFM's REST API takes port GUIDs, not ALL_CAS`},
		{"both", fabric.PartitionIntent{Name: "a", PKey: 5, Members: []fabric.PartitionMember{{GUID: "0x1", Membership: "both"}}},
			`partition "a": not supported by platform: UFM memberships are full or limited, not both (0x0000000000000001)`},
		{"default", fabric.PartitionIntent{Name: "mgmt", PKey: 0x7fff},
			`partition "mgmt": not supported by platform: UFM manages the default partition 0x7fff itself`},
		{"mtu", fabric.PartitionIntent{Name: "a", PKey: 5, IPoIB: true, MTU: 1024},
			`partition "a": not supported by platform: UFM's mtu_limit takes 2048 or 4096, not 1024`},
		{"no pkey", fabric.PartitionIntent{Name: "a"},
			`partition "a": not supported by platform: UFM needs an explicit pkey`},
	} {
		_, err := ufm.Desired(fabric.SubnetManagerIntent{Partitions: []fabric.PartitionIntent{tc.p}}, nil)
		if !errors.Is(err, switchcfg.ErrNotSupported) || err.Error() != tc.want {
			t.Errorf("%s: got %v\nwant %s", tc.name, err, tc.want)
		}
	}
}
