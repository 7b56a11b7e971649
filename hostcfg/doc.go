// Package hostcfg reads, plans and applies a Linux host's lossless RoCE and
// InfiniBand settings from a fabric.HostIntent: MTU, DCBX, trust, the DSCP
// map, ETS, PFC, global pause, ECN, CNP and DCQCN parameters, the rdma_cm
// RoCE defaults, and IPoIB children and pkey membership of partitions.
//
// The workflow is the careful operator's: read, diff, write only what
// differs, read again.
//
//	h, err := hostcfg.OpenLocal(hostcfg.Options{})     // real backends on /sys, configfs, debugfs
//	defer h.Close()
//	obs, err := h.Observe(ctx, desired)                 // every setting: value, backend, or why not
//	plan := hostcfg.Diff(desired, obs)                   // pure: changes in apply order, issues
//	res, err := h.Apply(ctx, plan)                       // pre-image, write, verify, roll back on failure
//	_, err = h.Apply(ctx, res.Undo)                      // later: put the host back as it was
//
// Backends. Each setting is served by the first backend that works for the
// netdev (DESIGN.md §4.1), chosen by probing and named in SettingState.Backend
// and Change.Backend: DCB netlink (hostcfg/dcbnl) for DCBX, ETS, PFC and the
// APP table; for trust the apptrust table, else the vendor
// /sys/class/net/<if>/qos/trust, else mlx5's rule that DSCP APP entries mean
// DSCP trust; the vendor /sys/class/net/<if>/ecn tree or upstream mlx5's
// debugfs cc_params for ECN, CNP and DCQCN; configfs rdma_cm for the RoCE
// mode and ToS; netlink for the MTU and IPoIB children; the ethtool ioctl for
// global pause; sysfs for pkeys, GIDs and the netdev ↔ RDMA mapping. The
// file-system backends take their root as a parameter, so fixture trees
// stand in for a host (see hostcfgtest). A setting the device or driver
// cannot do is reported as unsupported with the reason, never as success
// and never as a failure of the host.
//
// Values. Every value is canonical text (see values.go): observed values,
// desired values, plan changes and pre-images compare as strings and parse
// back, so a Plan is plain data that travels as JSON and Apply executes a
// decoded one (the agent protocol, and the undo plan of an apply).
//
// What the intent leaves unset is not managed: MTU 0, Trust "" (no QoS at
// all), DCBX 0, PFC.Delay 0, RoCE.Mode "" and DCQCN parameters not listed. ECN.Priorities
// drive roce_np/enable; roce_rp/enable follows them when DCQCN.Enabled.
//
// Apply order is fixed: MTU, DCBX, global pause, DSCP map, trust, ETS, PFC
// delay, PFC enable, ECN, CNP, DCQCN, RoCE defaults, IPoIB. Changing pfc_en
// flaps an mlx5 link and changing the MTU resets queues: the plan marks both
// Disruptive and Flaps; a trust change, and a DSCP map change that moves a
// DSCP to or from a lossless priority, are Disruptive too (disruptionOf in
// settings.go says why each is or is not). The unit of rollback is the interface: a failed write or
// read-back restores that interface's already-changed settings in reverse
// order and Apply moves on; errors are *SettingError values (interface,
// setting, backend, operation) joined with any failure to restore.
// ApplyRecorded tells a Recorder about each write before it happens: the
// apply journal (hostcfg/journal) keeps those pre-images durably, so an
// apply interrupted anywhere can be undone later, on every interface.
// Restore executes an undo plan setting by setting and, unlike Apply, never
// undoes a restore because a later one failed.
//
// Concurrency: Diff is pure. A Host's methods are safe for concurrent use
// when its backends are (all of this module's are); Observe reads up to
// eight netdevs at once.
package hostcfg
