package hostparse

import (
	"strings"
	"testing"
)

// TestShowGIDsCutPort: indented rows (pasted into markdown) are read; the
// row the capture cut off names the port it belongs to, and only that
// port's GIDs past the cut are unknown.
func TestShowGIDsCutPort(t *testing.T) {
	g, err := ParseShowGIDs(open(t, "showgids/indented_cut_rows.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Entries) != 7 || !g.Truncated || g.Cut == nil || *g.Cut != (GIDPort{Dev: "mlx5_5", Port: 1}) {
		t.Fatalf("entries %d truncated %v cut %+v", len(g.Entries), g.Truncated, g.Cut)
	}
	if !g.CutIn("mlx5_5", 1) || g.CutIn("mlx5_4", 1) {
		t.Error("CutIn")
	}
	// A row cut before its port column belongs to the port listed last.
	h, _ := ParseShowGIDs(strings.NewReader("DEV\tPORT\tINDEX\tGID\nmlx5_0\t1\t0\tfe80:0000:0000:0000:0000:0000:0000:0001\t\t\tv1\teth0\nmlx5_\n"))
	if h.Cut == nil || *h.Cut != (GIDPort{Dev: "mlx5_0", Port: 1}) {
		t.Errorf("cut before the port column: %+v", h.Cut)
	}
}

// TestShowGIDsLinkLayer: an InfiniBand port shows fe80::<GUID> GIDs typed
// v1 without a netdev, or is named as InfiniBand; a RoCE port has netdevs,
// IPv4 addresses or v2 GIDs; an old script without VER says nothing.
func TestShowGIDsLinkLayer(t *testing.T) {
	g, err := ParseShowGIDs(open(t, "showgids/infiniband_ports.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, dev := range []string{"mlx5_0", "mlx5_1", "ibp65s0"} {
		if ll := g.LinkLayer(dev, 1); ll != "InfiniBand" {
			t.Errorf("%s: %q", dev, ll)
		}
	}
	r, _ := ParseShowGIDs(open(t, "showgids/roce_v2_ipv4_and_shared_ip.txt"))
	if ll := r.LinkLayer("mlx5_0", 1); ll != "Ethernet" {
		t.Errorf("RoCE port: %q", ll)
	}
	// mlx4 RoCE v1 only: v1 GIDs, but with a netdev.
	v1, _ := ParseShowGIDs(strings.NewReader("mlx4_0\t1\t0\tfe80:0000:0000:0000:0202:c9ff:fe00:0001\t\t\tv1\teth2\n"))
	if ll := v1.LinkLayer("mlx4_0", 1); ll != "Ethernet" {
		t.Errorf("RoCE v1 port: %q", ll)
	}
	old, _ := ParseShowGIDs(strings.NewReader("qedr0\t1\t0\tfe80:0000:0000:0000:020e:1eff:fed7:0001\n"))
	if ll := old.LinkLayer("qedr0", 1); ll != "" {
		t.Errorf("no VER column: %q", ll)
	}
}
