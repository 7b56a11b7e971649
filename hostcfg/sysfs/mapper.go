package sysfs

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
)

// ErrNoRDMADevice is wrapped when no RDMA device port serves a netdev.
var ErrNoRDMADevice = errors.New("no rdma device")

// PortRef names one port of an RDMA device.
type PortRef struct {
	Device string `json:"device"`
	Port   int    `json:"port"`
}

func (p PortRef) String() string { return p.Device + "/" + strconv.Itoa(p.Port) }

// PortForNetdev finds the RDMA device port behind netdev, looking, in order, at:
//   - /sys/class/infiniband/<dev>/ports/<n>/gid_attrs/ndevs/<i> (RoCE: the GID table names the netdev),
//   - /sys/class/infiniband/<dev>/parent (rxe and siw name their netdev there; port 1),
//   - /sys/class/infiniband/<dev>/device/net/<netdev> (IPoIB and RoCE netdevs of
//     the same PCI function; the port is /sys/class/net/<netdev>/dev_port + 1).
//
// It wraps ErrNoRDMADevice when none matches.
func (s FS) PortForNetdev(ctx context.Context, netdev string) (PortRef, error) {
	devs, err := s.RDMADevices(ctx)
	if err != nil {
		return PortRef{}, err
	}
	for _, dev := range devs {
		if p, ok := s.portByParent(ctx, dev, netdev); ok {
			return p, nil
		}
		if p, ok := s.portByPCI(ctx, dev, netdev); ok {
			return p, nil
		}
	}
	for _, dev := range devs {
		ports, err := s.Ports(ctx, dev)
		if err != nil {
			continue
		}
		for _, port := range ports {
			if slices.Contains(s.portNetdevs(ctx, dev, port), netdev) {
				return PortRef{dev, port}, nil
			}
		}
	}
	if err := ctx.Err(); err != nil {
		return PortRef{}, err
	}
	return PortRef{}, fmt.Errorf("finding the rdma device of %s under %s: %w", netdev, s.Path("class", "infiniband"), ErrNoRDMADevice)
}

func (s FS) portByParent(ctx context.Context, dev, netdev string) (PortRef, bool) {
	parent, err := s.readLine(ctx, "class", "infiniband", dev, "parent")
	if err != nil || parent != netdev {
		return PortRef{}, false
	}
	return PortRef{dev, 1}, true
}

func (s FS) portByPCI(ctx context.Context, dev, netdev string) (PortRef, bool) {
	if !s.exists("class", "infiniband", dev, "device", "net", netdev) {
		return PortRef{}, false
	}
	port := 1
	if n, err := s.readInt(ctx, "class", "net", netdev, "dev_port"); err == nil && n >= 0 {
		port = n + 1
	}
	if !s.exists("class", "infiniband", dev, "ports", strconv.Itoa(port)) {
		return PortRef{}, false
	}
	return PortRef{dev, port}, true
}

// portNetdevs returns the distinct netdev names in a port's gid_attrs/ndevs.
// Only entries with a non-empty GID are read (rxe has 1024 slots).
func (s FS) portNetdevs(ctx context.Context, dev string, port int) []string {
	gids, err := s.GIDs(ctx, dev, port)
	if err != nil {
		return nil
	}
	var out []string
	for _, g := range gids {
		if g.Netdev != "" && !slices.Contains(out, g.Netdev) {
			out = append(out, g.Netdev)
		}
	}
	return out
}

// NetdevsWithRDMA lists every netdev an RDMA device port serves (the
// expansion of a host's "every RDMA netdev"), sorted and without duplicates.
func (s FS) NetdevsWithRDMA(ctx context.Context) ([]string, error) {
	devs, err := s.RDMADevices(ctx)
	if err != nil {
		return nil, err
	}
	var out []string
	add := func(n string) {
		if n != "" && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	for _, dev := range devs {
		if parent, err := s.readLine(ctx, "class", "infiniband", dev, "parent"); err == nil {
			add(parent)
		}
		if names, err := s.list(ctx, "class", "infiniband", dev, "device", "net"); err == nil {
			for _, n := range names {
				add(n)
			}
		}
		ports, _ := s.Ports(ctx, dev)
		for _, port := range ports {
			for _, n := range s.portNetdevs(ctx, dev, port) {
				add(n)
			}
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	slices.Sort(out)
	return out, nil
}
