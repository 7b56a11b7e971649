package analyze

import (
	"testing"

	"github.com/fabricctl/fabricctl/checks"
)

// TestShowGIDsInfiniBandPorts: an InfiniBand port has no RoCE GID to find;
// failing it for lacking a RoCE v2 IPv4 GID would be an invented failure.
func TestShowGIDsInfiniBandPorts(t *testing.T) {
	f, st := hostFixture(t, "showgids/infiniband_ports.txt")
	if f.Worst() != checks.StatusPass || st["show_gids/roce-gid mlx5_0/1"] != checks.StatusPass || st["show_gids/roce-gid ibp65s0/1"] != checks.StatusPass {
		t.Errorf("%+v", f.Findings)
	}
	// A RoCE v1-only port (mlx4: netdev, no v2) still fails.
	v1 := "DEV\tPORT\tINDEX\tGID\t\t\t\t\tIPv4  \t\tVER\tDEV\nmlx4_0\t1\t0\tfe80:0000:0000:0000:0202:c9ff:fe00:0001\t\t\tv1\teth2\nmlx4_0\t1\t1\t0000:0000:0000:0000:0000:ffff:0a00:0001\t10.0.0.1  \tv1\teth2\nn_gids_found=2\n"
	if f, _ := hostText("v1", v1); f.Worst() != checks.StatusFail {
		t.Errorf("RoCE v1 only: %+v", f.Findings)
	}
}

// TestShowGIDsCutCaptures: only the port the capture cut is unknown; one
// cut after its RoCE v2 GIDs and an IPv4 address (as a v1 GID) has the v2
// IPv4 GID the kernel adds with it; one cut before any address is unknown.
func TestShowGIDsCutCaptures(t *testing.T) {
	f, st := hostFixture(t, "showgids/indented_cut_rows.txt")
	if f.Kind != KindShowGIDs || f.Worst() != checks.StatusPass || st["show_gids/roce-gid mlx5_4/1"] != checks.StatusPass || st["show_gids/roce-gid mlx5_5/1"] != checks.StatusPass {
		t.Errorf("%+v", f.Findings)
	}
	early := "DEV\tPORT\tINDEX\tGID\t\t\t\t\tIPv4  \t\tVER\tDEV\nmlx5_0\t1\t0\tfe80:0000:0000:0000:0202:c9ff:fe00:0001\t\t\tv1\teth2\nmlx5_0\t1\t1\tfe80:0000:0000:0000:0202:c9ff:fe00:0001\t\t\tv2\teth2\nmlx5_0\t1\t2\t0000:0000\n"
	if f, st := hostText("early", early); f.Worst() != checks.StatusSkip || st["show_gids/roce-gid mlx5_0/1"] != checks.StatusSkip {
		t.Errorf("cut before any address: %+v", f.Findings)
	}
}

// TestShowGIDsIPv6Only: RoCE v2 GIDs of global IPv6 addresses only warn
// (NCCL looks for IPv4 unless told otherwise); they are not a missing GID.
func TestShowGIDsIPv6Only(t *testing.T) {
	v6 := "DEV\tPORT\tINDEX\tGID\t\t\t\t\tIPv4  \t\tVER\tDEV\nroce0\t1\t0\tfe80:0000:0000:0000:0202:c9ff:fe00:0001\t\t\tv2\teth2\nroce0\t1\t1\tfd00:0000:0000:0001:0202:c9ff:fe00:0001\t\t\tv2\teth2\nn_gids_found=2\n"
	if f, _ := hostText("v6", v6); f.Worst() != checks.StatusWarn || !hostMentions(f, checks.StatusWarn, "IPv6") {
		t.Errorf("%+v", f.Findings)
	}
}
