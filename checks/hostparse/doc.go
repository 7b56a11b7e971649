// Package hostparse reads the text that host tools print, so that a preflight
// can work from live hosts and from captured outputs alike
// (fabricctl check --from-dir):
//
//	ParseDevInfo       ibv_devinfo [-v]     devices, ports (state, MTU, LIDs, link layer), GID tables
//	ParseIBStat        ibstat               CAs and ports (state, physical state, rate, LIDs)
//	ParseShowGIDs      show_gids            the GID table with RoCE versions, IPv4 and netdevs
//	ParseIBDev2Netdev  ibdev2netdev [-v]    RDMA device port → netdev
//	ParseTopo          nvidia-smi topo -m   the GPU/NIC matrix, affinities, NIC legend
//	ParsePCI           lspci -vv[v]         NUMA node, LnkCap vs LnkSta, AER status bits
//	ParseP2PBandwidth  p2pBandwidthLatencyTest  peer access per GPU pair, bandwidth and latency matrices
//	ParseKernelLog     dmesg, journalctl -k NVIDIA Xid events per GPU bus id, judged by NVIDIA's
//	                                        Xid catalog (XidCatalog, JudgeXid)
//
// Typical questions:
//
//	gids, err := hostparse.ParseShowGIDs(out)
//	e, err := gids.RoCEv2IPv4("mlx5_0", 1, "ens1f0np0") // e.Index is perftest's -x
//
//	topo, err := hostparse.ParseTopo(out)
//	p, err := topo.Path("GPU0", "mlx5_0") // pcitopo.PIX, resolved through the NIC Legend
//
//	devs, err := hostparse.ParsePCI(out)
//	for _, d := range devs { problems = append(problems, d.Problems()...) }
//
// The parsers are forgiving where real captures are messy: tabs or spaces,
// shell prompts, pasted "# comments", markdown emphasis, captures that start
// or stop mid-block (Partial, Truncated), values redacted as "...". A value
// that should be a number and is text ("N/A", "...") becomes a warning
// located by line; one that reads as a number but is none its field holds (a
// counter of 1e23, a negative count, a NaN rate) is left out and listed,
// located, in BadNumbers (NumberErrors): never read as zero, and no NaN or
// infinity is ever returned. ibdev2netdev, which has no place for one,
// refuses a port number that does not fit. Only unreadable input, a line
// over 1 MiB or input with nothing the tool prints (ErrNoData) is an error.
//
// ParseTopo reads a matrix in time linear in its cells, and Cell and Path
// look a pair up in constant time: a 1,500-device matrix is 2.25 million
// cells, not billions of steps.
//
// All functions are pure and safe for concurrent use.
package hostparse
