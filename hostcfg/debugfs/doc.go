// Package debugfs reads and writes upstream mlx5's congestion-control
// parameters in debugfs, below a root that is a parameter ("/sys/kernel/debug"
// on a live host, a fixture directory in tests).
//
// Upstream mlx5 has no /sys/class/net/<if>/ecn tree; it exposes DCQCN and CNP
// settings as one decimal file each in mlx5/<pci address>/cc_params/:
//
//	d := debugfs.NewFS("/sys/kernel/debug")
//	cc, err := d.CCParams("0000:08:00.0")        // wraps fs.ErrNotExist when absent
//	dscp, _ := cc.Get(ctx, "np_cnp_dscp")
//	_ = cc.Set(ctx, "rp_ai_rate", 10)
//
// FileName and VendorName translate between the vendor sysfs names that
// fabric.HostDCQCN uses (roce_rp/rpg_ai_rate) and the cc_params files
// (rp_ai_rate). There is no per-priority ECN switch here: that lives in
// firmware (mlxconfig), and hostcfg reports it as unsupported.
//
// FS and CCParams hold only paths: they are safe for concurrent use.
package debugfs
