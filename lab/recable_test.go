package lab

import (
	"errors"
	"strings"
	"testing"
)

// TestPlanRecable: a two-leaf lab host can move to any free host port of
// either leaf; the trunk, the controller's port, another host's port, its
// own port, unknown hosts and leaves, and a one-bridge lab are refused with
// ErrRecable and a message naming the reason.
func TestPlanRecable(t *testing.T) {
	two, err := Plan(TwoLeafTopology(), Options{StateDir: "/st"})
	if err != nil {
		t.Fatal(err)
	}
	one, err := Plan(DefaultTopology(), Options{StateDir: "/st"})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		s                *State
		host, leaf, port string
		want             string // "" when allowed; else part of the error
	}{
		{two, "lab-h1", "leaf-02", "swp3", ""},
		{two, "lab-h1", "leaf-01", "swp4", ""},
		{two, "lab-h3", "leaf-01", "swp32x", ""},
		{two, "lab-h1", "leaf-02", "swp1", "is lab-h3's port"},
		{two, "lab-h1", "leaf-01", "swp1", "already on leaf-01:swp1"},
		{two, "lab-h1", "leaf-02", TrunkPort, "free interface name"},
		{two, "lab-h3", "leaf-01", ControllerPort, "free interface name"},
		{two, "lab-h1", "leaf-02", "br0", "free interface name"},
		{two, "lab-h1", "leaf-02", "swp 3", "free interface name"},
		{two, "lab-h9", "leaf-02", "swp3", `no lab host "lab-h9"`},
		{two, "lab-h1", "leaf-09", "swp3", `no leaf "leaf-09"`},
		{one, "lab-h1", "leaf-02", "swp3", "no leaves"},
	} {
		vi, to, err := c.s.planRecable(c.host, c.leaf, c.port)
		if c.want == "" {
			if err != nil || c.s.VMs[vi].Name != c.host || to.Name != c.leaf || to.Netns != c.s.Netns+"-"+c.leaf {
				t.Errorf("%s → %s:%s: vm %d leaf %+v err %v", c.host, c.leaf, c.port, vi, to, err)
			}
			continue
		}
		if err == nil || !errors.Is(err, ErrRecable) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s → %s:%s: error %v, want ErrRecable with %q", c.host, c.leaf, c.port, err, c.want)
		}
	}
}

func TestParseLeafPort(t *testing.T) {
	if l, p, err := ParseLeafPort("leaf-02:swp3"); err != nil || l != "leaf-02" || p != "swp3" {
		t.Errorf("leaf-02:swp3: %q %q %v", l, p, err)
	}
	for _, bad := range []string{"", "leaf-02", ":swp3", "leaf-02:"} {
		if _, _, err := ParseLeafPort(bad); !errors.Is(err, ErrRecable) {
			t.Errorf("%q: error %v, want ErrRecable", bad, err)
		}
	}
}
