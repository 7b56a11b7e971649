// Package pcitopo classifies how two PCIe devices (a GPU and a NIC, say) reach
// each other, with the names nvidia-smi topo -m and NCCL use:
//
//	PIX   through at most one PCIe switch (the same switch)
//	PXB   through several PCIe switches, without the host bridge
//	PHB   through a PCIe host bridge (the CPU), the same one for both
//	NODE  between host bridges of the same NUMA node
//	SYS   across NUMA nodes (QPI/UPI/xGMI)
//
// The input is what sysfs says, read elsewhere: the resolved path of each
// device (readlink -f /sys/bus/pci/devices/<bdf>, or of
// /sys/class/infiniband/<dev>/device) and its numa_node. The classification
// itself is pure, so it is tested on constructed trees:
//
//	gpu := pcitopo.Device{Name: "GPU0", SysfsPath: "/sys/devices/pci0000:15/0000:15:01.0/0000:16:00.0/0000:17:00.0/0000:18:00.0", NUMANode: 0}
//	nic := pcitopo.Device{Name: "mlx5_0", SysfsPath: "/sys/devices/pci0000:15/0000:15:01.0/0000:16:00.0/0000:17:01.0/0000:19:00.0", NUMANode: 0}
//	p, err := pcitopo.Classify(gpu, nic) // PIX: both hang below one switch
//
// A sysfs path lists the host bridge (pci0000:15), then one BDF per PCIe hop:
// the root port, then an upstream and a downstream port for every switch, then
// the device. Classify counts the switches the path between the two devices
// crosses from that alternation; plain PCI-to-PCI bridges that are not switch
// ports are rare on GPU servers and count like a switch port.
//
// Everything here is pure and safe for concurrent use.
package pcitopo
