// Package sysfs reads and writes what fabricctl needs from a Linux sysfs
// tree whose root is a parameter, like prometheus/procfs's NewFS(root): "/sys"
// on a live host, a fixture directory in tests.
//
//	fs := sysfs.NewFS("/sys")
//	dev, _ := fs.NetDevice(ctx, "ens1f0np0")             // driver mlx5_core, bus id 0000:08:00.0
//	port, _ := fs.PortForNetdev(ctx, "ens1f0np0")        // mlx5_0/1
//	gids, _ := fs.GIDs(ctx, port.Device, port.Port)
//	g, ok := sysfs.RoCEv2IPv4(gids, "ens1f0np0")         // the index perftest -x needs
//
// What it covers, each under /sys/class:
//   - net/<if>/device: the driver and PCI address of a netdev;
//   - net/<if>/qos/trust and net/<if>/ecn/roce_{np,rp}/…: the MLNX_OFED vendor
//     trees (trust state, ECN per priority, CNP DSCP/priority, DCQCN parameters);
//   - infiniband/<dev>/ports/<n>/: state, phys_state, rate, link_layer, the
//     GID table with gid_attrs, pkeys, counters and hw_counters;
//   - the netdev ↔ RDMA device mapping (gid_attrs/ndevs, rxe's parent file,
//     device/net), which is also a hostcfg.RDMAMapper, and its reverse,
//     PortNetdev;
//   - net/<if>/statistics/* and the carrier counts net/<if>/carrier_*,
//     which `fabricctl counters` shows beside the ports' counters.
//
// The parsers of the kernel's formats (ParseCodeName, ParseRate, ParseGID,
// ParsePKey, ParseTrust) are pure and fuzzed. Struct fields name the file
// they mirror. Writes go to existing attributes only and are one write(2)
// each, as echo does. Errors name the path and wrap fs.ErrNotExist, ErrNoRDMADevice
// or the errno for errors.Is.
//
// An FS is a value holding only its root: it is safe for concurrent use.
package sysfs
