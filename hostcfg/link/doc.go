// Package link reads and changes netdevs over RTNETLINK with
// github.com/vishvananda/netlink: the MTU, and InfiniBand partitions' IPoIB
// children.
//
//	h, err := link.Open()                      // or OpenNetns("/run/netns/h1")
//	defer h.Close()
//	l, err := h.Link(ctx, "ens1f0np0")         // wraps ErrNotFound when absent
//	err = h.SetMTU(ctx, "ens1f0np0", 9000)
//	err = h.AddIPoIB(ctx, "ib0", link.IPoIBChildName("ib0", 0x0002), 0x0002)   // ib0.8002
//
// Link is the subset of RTM_GETLINK fabricctl uses; its fields name the
// netlink attribute they come from. ParentDev (IFLA_PARENT_DEV_NAME) gives a
// netdev's PCI address even inside a network namespace, where sysfs shows
// another namespace's devices. A Handle is safe for concurrent use.
package link
