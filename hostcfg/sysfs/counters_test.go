package sysfs_test

import (
	"errors"
	"maps"
	"os"
	"path/filepath"
	"testing"

	"github.com/fabricctl/fabricctl/hostcfg/sysfs"
)

// TestPortNetdev: the reverse of PortForNetdev on the fixture hosts —
// rxe's parent, mlx5's PCI function by dev_port, IPoIB — and "" for a port
// without a netdev.
func TestPortNetdev(t *testing.T) {
	for _, c := range []struct {
		host, dev string
		port      int
		want      string
	}{
		{"rxe", "rxe0", 1, "enp0s3"},
		{"mlx5-ofed", "mlx5_0", 1, "ens1f0np0"},
		{"mlx5-ofed", "mlx5_1", 1, "ens1f1np1"},
		{"mlx5-upstream", "mlx5_0", 1, "ens3f0np0"},
		{"mlx5-ib", "mlx5_0", 1, "ib0"},
		{"mlx5-ofed", "mlx5_0", 2, ""},
		{"rxe", "rxe0", 2, ""},
	} {
		fs := hostFS(c.host)
		if got := fs.PortNetdev(t.Context(), c.dev, c.port); got != c.want {
			t.Errorf("%s %s/%d: netdev %q, want %q", c.host, c.dev, c.port, got, c.want)
		}
		if c.want == "" {
			continue
		}
		// Round trip through PortForNetdev.
		ref, err := fs.PortForNetdev(t.Context(), c.want)
		if err != nil || ref != (sysfs.PortRef{Device: c.dev, Port: c.port}) {
			t.Errorf("%s: PortForNetdev(%s) = %v, %v", c.host, c.want, ref, err)
		}
	}
}

// TestNetStatisticsAndCarrier: statistics/* are read as numbers; carrier
// files the kernel lacks are absent, never zero; a netdev without a
// statistics directory is ErrNotExist.
func TestNetStatisticsAndCarrier(t *testing.T) {
	root := t.TempDir()
	for name, v := range map[string]string{
		"class/net/eth0/statistics/rx_crc_errors": "7\n", "class/net/eth0/statistics/rx_dropped": "0\n",
		"class/net/eth0/statistics/not_a_number": "x\n", "class/net/eth0/carrier_changes": "4\n",
		"class/net/eth0/carrier_down_count": "2\n", "class/net/eth1/mtu": "1500\n",
	} {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(v), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	fs := sysfs.NewFS(root)
	st, err := fs.NetStatistics(t.Context(), "eth0")
	if err != nil || !maps.Equal(st, map[string]uint64{"rx_crc_errors": 7, "rx_dropped": 0}) {
		t.Errorf("statistics %v, %v", st, err)
	}
	cc, err := fs.NetCarrierCounts(t.Context(), "eth0")
	if err != nil || !maps.Equal(cc, map[string]uint64{"carrier_changes": 4, "carrier_down_count": 2}) {
		t.Errorf("carrier counts %v, %v: carrier_up_count is absent and must stay so", cc, err)
	}
	if _, err := fs.NetStatistics(t.Context(), "eth1"); !errors.Is(err, sysfs.ErrNotExist) {
		t.Errorf("statistics of a netdev without them: %v, want ErrNotExist", err)
	}
	if cc, err := fs.NetCarrierCounts(t.Context(), "eth1"); err != nil || len(cc) != 0 {
		t.Errorf("carrier counts of a netdev without them: %v, %v; want none", cc, err)
	}
}
