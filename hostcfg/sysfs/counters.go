package sysfs

import (
	"context"
	"slices"
	"strconv"
)

// PortNetdev returns the netdev of one RDMA port, looking, in order, at
// /sys/class/infiniband/<dev>/parent (rxe and siw: port 1), at the netdevs
// of the device's PCI function (/sys/class/infiniband/<dev>/device/net/<if>
// whose dev_port + 1 is port), and at the first netdev, by name, of the
// port's GID table (gid_attrs/ndevs). It returns "" when the port has none
// (an InfiniBand port without IPoIB).
func (s FS) PortNetdev(ctx context.Context, dev string, port int) string {
	if parent, err := s.readLine(ctx, "class", "infiniband", dev, "parent"); err == nil && parent != "" {
		if port == 1 {
			return parent
		}
		return ""
	}
	if names, err := s.list(ctx, "class", "infiniband", dev, "device", "net"); err == nil {
		for _, n := range names {
			p := 1
			if dp, err := s.readInt(ctx, "class", "net", n, "dev_port"); err == nil && dp >= 0 {
				p = dp + 1
			}
			if p == port {
				return n
			}
		}
	}
	nds := s.portNetdevs(ctx, dev, port)
	slices.Sort(nds)
	if len(nds) > 0 {
		return nds[0]
	}
	return ""
}

// NetStatistics reads every /sys/class/net/<if>/statistics/* file (the
// kernel's rtnl_link_stats64: rx_crc_errors, rx_dropped, rx_missed_errors…).
// It wraps ErrNotExist when the directory is absent.
func (s FS) NetStatistics(ctx context.Context, ifname string) (map[string]uint64, error) {
	return s.counterDir(ctx, "class", "net", ifname, "statistics")
}

// carrierFiles are the link state counters under /sys/class/net/<if>/.
var carrierFiles = []string{"carrier_changes", "carrier_down_count", "carrier_up_count"}

// NetCarrierCounts reads /sys/class/net/<if>/carrier_changes,
// carrier_down_count and carrier_up_count, those the kernel has (the last
// two since Linux 5.2). Files that are absent are left out, never read as
// zero; a netdev without any is an empty map.
func (s FS) NetCarrierCounts(ctx context.Context, ifname string) (map[string]uint64, error) {
	out := map[string]uint64{}
	for _, f := range carrierFiles {
		v, err := s.readLine(ctx, "class", "net", ifname, f)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			continue // absent, or EINVAL while the link is administratively down
		}
		if n, err := strconv.ParseUint(v, 10, 64); err == nil {
			out[f] = n
		}
	}
	return out, nil
}
