package link_test

import (
	"context"
	"errors"
	"strings"
	"syscall"
	"testing"

	"github.com/fabricctl/fabricctl/hostcfg/hostcfgtest"
	"github.com/fabricctl/fabricctl/hostcfg/link"
)

func TestMTUInNetns(t *testing.T) {
	ns, path := hostcfgtest.NetNS(t)
	hostcfgtest.Veth(t, ns, "fx0", "fx1")
	h, err := link.OpenNetns(path)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	ctx := context.Background()

	l, err := h.Link(ctx, "fx0")
	if err != nil || l.MTU != 1500 || l.Kind != "veth" || l.EncapType != "ether" {
		t.Fatalf("Link(fx0) = %+v, %v", l, err)
	}
	if err := h.SetMTU(ctx, "fx0", 9000); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(hostcfgtest.IP(t, "-n", ns, "link", "show", "fx0"), "mtu 9000") {
		t.Error("ip link does not show mtu 9000 after SetMTU")
	}
	if err := h.SetMTU(ctx, "fx0", 70000); !errors.Is(err, syscall.EINVAL) {
		t.Errorf("SetMTU(70000) = %v, want EINVAL (veth's max is 65535)", err)
	}
	if _, err := h.Link(ctx, "nosuch0"); !errors.Is(err, link.ErrNotFound) {
		t.Errorf("Link(nosuch0) = %v, want ErrNotFound", err)
	}
	ls, err := h.Links(ctx)
	if err != nil || len(ls) != 3 || ls[0].Name != "fx0" || ls[2].Name != "lo" {
		t.Errorf("Links = %+v, %v; want fx0 fx1 lo", ls, err)
	}
	// The namespace is separate: the caller's namespace has no fx0.
	if own, err := link.Open(); err == nil {
		defer own.Close()
		if _, err := own.Link(ctx, "fx0"); !errors.Is(err, link.ErrNotFound) {
			t.Errorf("fx0 visible outside its namespace: %v", err)
		}
	}
	if err := h.AddIPoIB(ctx, "fx0", "fx0.8002", 0x0002); err == nil {
		t.Error("AddIPoIB on a veth parent succeeded")
	}
	if err := h.AddIPoIB(ctx, "fx0", "fx0.8000", 0x8000); err == nil {
		t.Error("AddIPoIB accepted pkey 0x8000")
	}
	if err := h.Delete(ctx, "fx1"); err != nil {
		t.Fatal(err)
	}
	if _, err := h.Link(ctx, "fx0"); !errors.Is(err, link.ErrNotFound) {
		t.Errorf("deleting one end of a veth pair should remove both: %v", err)
	}
}

func TestIPoIBChildName(t *testing.T) {
	for _, tc := range []struct {
		parent string
		pkey   uint16
		want   string
	}{{"ib0", 0x0002, "ib0.8002"}, {"ib1", 0x8abc, "ib1.8abc"}, {"ibp1s0", 0x7fff, "ibp1s0.ffff"}} {
		if got := link.IPoIBChildName(tc.parent, tc.pkey); got != tc.want {
			t.Errorf("IPoIBChildName(%s, %#x) = %s, want %s", tc.parent, tc.pkey, got, tc.want)
		}
	}
}
