package hostcfg

import (
	"context"
	"slices"

	"github.com/Mellanox/rdmamap"

	"github.com/fabricctl/fabricctl/hostcfg/dcbnl"
	"github.com/fabricctl/fabricctl/hostcfg/ethtool"
	"github.com/fabricctl/fabricctl/hostcfg/link"
	"github.com/fabricctl/fabricctl/hostcfg/sysfs"
)

// Links is netlink's view of the host's netdevs (*link.Handle).
type Links interface {
	Link(ctx context.Context, name string) (link.Link, error)
	Links(ctx context.Context) ([]link.Link, error)
	SetMTU(ctx context.Context, name string, mtu int) error
	AddIPoIB(ctx context.Context, parent, name string, pkey uint16) error
	Delete(ctx context.Context, name string) error
}

// DCB is DCB netlink: *dcbnl.Client, on the real kernel or on dcbfake.
// Every write is a read-modify-write of one attribute that reports the
// pre-image and whether the read-back converged.
type DCB interface {
	GetIEEE(ctx context.Context, ifname string) (dcbnl.IEEEState, error)
	UpdateDCBX(ctx context.Context, ifname string, mode uint8) (dcbnl.Change[uint8], error)
	UpdateETS(ctx context.Context, ifname string, mutate func(*dcbnl.ETS)) (dcbnl.Change[dcbnl.ETS], error)
	UpdatePFC(ctx context.Context, ifname string, mutate func(*dcbnl.PFC)) (dcbnl.Change[dcbnl.PFC], error)
	UpdateTrust(ctx context.Context, ifname string, want []dcbnl.Selector) (dcbnl.Change[[]dcbnl.Selector], error)
	ReconcileApps(ctx context.Context, ifname string, want []dcbnl.App, scope ...dcbnl.Selector) (dcbnl.AppChanges, error)
}

var _ DCB = (*dcbnl.Client)(nil)

// Ethtool is the SIOCETHTOOL ioctl (*ethtool.Conn).
type Ethtool interface {
	Pause(ctx context.Context, ifname string) (ethtool.Pause, error)
	SetPause(ctx context.Context, ifname string, p ethtool.Pause) error
	DriverInfo(ctx context.Context, ifname string) (ethtool.DriverInfo, error)
}

var _ Ethtool = (*ethtool.Conn)(nil)

// RDMAMapper finds the RDMA device port behind a netdev. sysfs.FS is one
// (any root, fixtures included); RdmamapMapper uses Mellanox/rdmamap, which
// only knows the live /sys.
type RDMAMapper interface {
	PortForNetdev(ctx context.Context, netdev string) (sysfs.PortRef, error)
	NetdevsWithRDMA(ctx context.Context) ([]string, error)
}

var (
	_ RDMAMapper = sysfs.FS{}
	_ RDMAMapper = RdmamapMapper{}
	_ Links      = (*link.Handle)(nil)
)

// RdmamapMapper maps netdevs with github.com/Mellanox/rdmamap (GID table
// ndevs for RoCE, node GUID for IPoIB) and finds the port and the reverse
// mapping in Sys, which must be the live /sys that rdmamap reads.
type RdmamapMapper struct {
	Sys sysfs.FS
}

// PortForNetdev asks rdmamap for the device, then picks the port whose GID
// table names netdev (the only port when there is one). When rdmamap finds
// nothing it falls back to Sys's own mapping (which also knows rxe's parent file).
func (m RdmamapMapper) PortForNetdev(ctx context.Context, netdev string) (sysfs.PortRef, error) {
	if err := ctx.Err(); err != nil {
		return sysfs.PortRef{}, err
	}
	dev, err := rdmamap.GetRdmaDeviceForNetdevice(netdev)
	if err != nil || dev == "" {
		return m.Sys.PortForNetdev(ctx, netdev)
	}
	ports, err := m.Sys.Ports(ctx, dev)
	if err != nil || len(ports) == 0 {
		return m.Sys.PortForNetdev(ctx, netdev)
	}
	for _, p := range ports {
		gids, _ := m.Sys.GIDs(ctx, dev, p)
		if slices.ContainsFunc(gids, func(g sysfs.GID) bool { return g.Netdev == netdev }) {
			return sysfs.PortRef{Device: dev, Port: p}, nil
		}
	}
	if len(ports) == 1 {
		return sysfs.PortRef{Device: dev, Port: ports[0]}, nil
	}
	return m.Sys.PortForNetdev(ctx, netdev)
}

// NetdevsWithRDMA lists the netdevs behind RDMA devices (from Sys; rdmamap has no reverse map).
func (m RdmamapMapper) NetdevsWithRDMA(ctx context.Context) ([]string, error) {
	return m.Sys.NetdevsWithRDMA(ctx)
}
