package ethtool_test

import (
	"context"
	"errors"
	"syscall"
	"testing"

	"github.com/fabricctl/fabricctl/hostcfg/ethtool"
	"github.com/fabricctl/fabricctl/hostcfg/hostcfgtest"
)

// TestVethInNetns asks a real kernel about a veth in a fresh namespace:
// veth reports its driver but has no pause parameters (EOPNOTSUPP), and a
// name from another namespace is ENODEV.
func TestVethInNetns(t *testing.T) {
	ns, path := hostcfgtest.NetNS(t)
	hostcfgtest.Veth(t, ns, "fx0", "fx1")
	c, err := ethtool.OpenNetns(path)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()

	d, err := c.DriverInfo(ctx, "fx0")
	if err != nil || d.Driver != "veth" {
		t.Errorf("DriverInfo(fx0) = %+v, %v; want driver veth", d, err)
	}
	if _, err := c.Pause(ctx, "fx0"); !errors.Is(err, syscall.EOPNOTSUPP) {
		t.Errorf("Pause(fx0) = %v, want EOPNOTSUPP (veth has no pause parameters)", err)
	}
	if err := c.SetPause(ctx, "fx0", ethtool.Pause{}); !errors.Is(err, syscall.EOPNOTSUPP) {
		t.Errorf("SetPause(fx0) = %v, want EOPNOTSUPP", err)
	}
	if _, err := c.Pause(ctx, "nosuchdev0"); !errors.Is(err, syscall.ENODEV) {
		t.Errorf("Pause(nosuchdev0) = %v, want ENODEV", err)
	}
	// lo exists in every namespace and has no ethtool driver info either.
	if _, err := c.Pause(ctx, "lo"); !errors.Is(err, syscall.EOPNOTSUPP) {
		t.Errorf("Pause(lo) = %v, want EOPNOTSUPP", err)
	}
}

func TestBadNames(t *testing.T) {
	c, err := ethtool.Open()
	if err != nil {
		t.Skipf("no socket: %v", err)
	}
	defer c.Close()
	for _, n := range []string{"", "a-name-longer-than-15"} {
		if _, err := c.Pause(context.Background(), n); err == nil {
			t.Errorf("Pause(%q) succeeded", n)
		}
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Pause(context.Background(), "lo"); err == nil {
		t.Error("Pause on a closed Conn succeeded")
	}
}
