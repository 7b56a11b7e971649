package ufm

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/switchcfg/ufm/ufmtest"
)

func TestTargetConverges(t *testing.T) {
	srv := ufmtest.New("admin", "pw")
	srv.SetPorts("0x0002c903000e0b72")
	hs := httptest.NewServer(srv)
	defer hs.Close()
	t.Setenv("UFM_TEST_PW", "pw")
	c, err := New(hs.URL, "admin", "UFM_TEST_PW", hs.Client())
	if err != nil {
		t.Fatal(err)
	}
	sm := fabric.SubnetManagerIntent{Name: "ufm-01", Kind: "ufm", Partitions: []fabric.PartitionIntent{{
		Name: "storage", PKey: 2, IPoIB: true, MTU: 4096, MTUCode: 5, ServiceLevel: -1,
		Members: []fabric.PartitionMember{{GUID: "0x0002c903000e0b72", Membership: "full"}}}}}
	tg := &Target{Intent: sm, Backend: &Backend{Client: c}}
	ctx := context.Background()
	changes, err := tg.Plan(ctx)
	if err != nil || len(changes) == 0 {
		t.Fatalf("plan: %v %+v", err, changes)
	}
	remaining, err := tg.Apply(ctx, changes)
	if err != nil || len(remaining) != 0 {
		t.Fatalf("apply: %v %+v", err, remaining)
	}
	if _, ok := srv.Get(2); !ok {
		t.Fatal("pkey 0x0002 not created on the UFM double")
	}
	if again, _ := tg.Plan(ctx); len(again) != 0 {
		t.Errorf("converged UFM still plans %+v", again)
	}
}
