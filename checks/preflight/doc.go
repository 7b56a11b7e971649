// Package preflight proves a host is ready for RDMA before any traffic runs:
// the agent gathers Facts on the host, the controller judges them.
//
// On the host (the agent's "preflight" op):
//
//	g := &preflight.Gatherer{Sys: sysfs.NewFS("/sys")}
//	g.Register(handler)               // observes through handler.Open
//	facts := g.Gather(ctx, preflight.Args{Intent: hostIntent, Peers: peers})
//
// Facts hold hostcfg's observation of the intent's netdevs (RDMA device and
// port, ACTIVE/LinkUp, rate, GIDs and the RoCE v2 IPv4 GID index perftest -x
// needs, MTU and every lossless setting) with the plan against the intent,
// the PCIe link of the NICs and GPUs (/sys/bus/pci/devices/<bdf>/
// current_link_speed, max_link_speed, current_link_width, max_link_width,
// aer_dev_{correctable,nonfatal,fatal}, numa_node and the resolved device path),
// the GPUDirect modules in /proc/modules (nvidia_peermem, nv_peer_mem), the
// perftest version (`ib_write_bw --version`), the NCCL library version and
// the lookup of every peer's name and address. On GPU servers (gpuhost.go)
// also: nvidia-smi -q (GPU model, driver, CUDA, VBIOS, PCIe replay counter),
// /proc/driver/nvidia/version (the open kernel module), every libnccl on disk
// (system library directories, pip's nvidia/nccl/lib, conda) and the one
// each PyTorch loads, libnccl mapped by running processes, the kernel's
// CONFIG_DMA_SHARED_BUFFER and the driver's DMA-BUF attribute (asked through
// python3's ctypes; fabricctl has no cgo), the IOMMU groups, lspci -vvv (ACS
// and MaxReadReq) and nvidia-smi nvlink -e. The host's NCCL version is the one
// PyTorch loads when PyTorch is installed.
//
// On the controller:
//
//	results := preflight.Evaluate(facts, preflight.Options{ExpectedRate: 400})
//	results = append(results, preflight.Fleet(allFacts)...) // versions agree
//
// Evaluate returns one checks.Result per property and target (IDs
// preflight/port-active, preflight/roce-gid, …): a port that is not ACTIVE
// fails with checks.PortDown, a missing RoCE v2 GID with checks.QPBringUp
// (perftest cannot bring a QP up without it), a missing ib_write_bw is an
// error with checks.MissingTool. Lossless settings that differ from the fabric
// file fail; settings the device cannot do at all (rxe has no DCB) warn.
// GPU↔NIC affinity is classified by pcitopo like nvidia-smi topo -m; a GPU
// whose closest NIC is NODE or SYS away warns. GPUDirect RDMA passes with a
// peer-memory module or with DMA-BUF (the driver's attribute, or the open
// kernel module on a kernel with DMA-BUF); AER without aer_dev_* files in
// sysfs is a skip saying the kernel does not own PCIe error reporting.
//
// Gatherer is safe for concurrent use; Evaluate and Fleet are pure.
package preflight
