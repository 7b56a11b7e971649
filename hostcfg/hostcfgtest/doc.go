// Package hostcfgtest builds hostcfg.Host values on fixture hosts for tests,
// the way net/http/httptest builds servers.
//
// A fixture host is a directory (hostcfg/testdata/hosts/<name>) holding sys/,
// config/ and debug/ trees shaped like a real host's /sys, /sys/kernel/config
// and /sys/kernel/debug, and a host.json describing what only the kernel
// knows: the netdevs netlink reports, each netdev's DCB driver flavour
// (served by the fake DCB kernel hostcfg/dcbnl/dcbfake through the real dcbnl
// encoder and decoder), and its ethtool view.
//
//	f := hostcfgtest.Load(t, "testdata/hosts/mlx5-ofed")
//	obs, err := f.Host.Observe(ctx, desired)
//	f.Kernel.FailNext("ens1f0np0", dcbnl.AttrIEEEPFC, syscall.EIO)   // inject a driver failure
//	f.Links.FailNext("setmtu", "ens1f0np0", syscall.EBUSY)
//
// Load works on a private copy, so tests may apply freely. Links and Ethtool
// are fakes of the kernel-only backends with the kernel's rules (MTU bounds,
// EOPNOTSUPP for drivers without pause, IPoIB pkey rules); ConfigFS emulates
// configfs's mkdir/rmdir of rdma_cm/<dev>. Everything here is safe for
// concurrent use.
package hostcfgtest
