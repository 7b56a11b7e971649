// Package dcbnl speaks Linux DCB netlink (RTM_GETDCB = 78, RTM_SETDCB = 79;
// include/uapi/linux/dcbnl.h), the interface behind iproute2's dcb and the
// vendors' mlnx_qos: IEEE 802.1Qaz ETS, PFC, the APP table (DSCP→priority),
// app trust, buffers, per-TC rate limits and the DCBX mode.
//
// # Three layers
//
// Pure encoders build one complete request each, byte for byte what
// iproute2 6.1 sends (nests carry NLA_F_NESTED, seq and pid are left 0 for
// the transport to stamp):
//
//	req, err := dcbnl.EncodeIEEESetApp("ens1f0np0", []dcbnl.App{
//		{Selector: dcbnl.SelDSCP, Protocol: 26, Priority: 3},
//	})
//
// Pure decoders read the kernel's reply messages (the DCB message plus the
// NLMSG_ERROR acknowledgement, in any order): DecodeIEEE for IEEE_GET,
// DecodeStatus for IEEE_SET, IEEE_DEL and SDCBX, DecodeDCBX for GDCBX. They
// accept nests with or without NLA_F_NESTED (the kernel sets it only on the
// trust and rewrite tables), skip unknown attributes, read structs longer
// than they know up to the known size, and return an error wrapping
// ErrMalformed — never a panic — for truncated or garbage input.
//
// A Client sends requests through a Transport: *Conn on a real
// NETLINK_ROUTE socket (OpenConn, or OpenConnNetns for a socket inside
// another network namespace), or dcbfake.Kernel in tests.
//
//	c, err := dcbnl.Open()
//	if err != nil { ... }
//	defer c.Close()
//	st, err := c.GetIEEE(ctx, "ens1f0np0")
//	if errors.Is(err, syscall.EOPNOTSUPP) { /* no DCB on this device (veth, lo) */ }
//	if errors.Is(err, syscall.ENODEV) { /* no such name in this netns */ }
//
// # Errors
//
// The kernel reports a failure in two ways, and both become *Error, whose
// Unwrap gives the syscall.Errno so errors.Is(err, syscall.EOPNOTSUPP)
// works. Before a driver is reached (unknown name: ENODEV; no dcbnl ops:
// EOPNOTSUPP; no CAP_NET_ADMIN: EPERM; bad attribute: EINVAL/ERANGE) it is
// an NLMSG_ERROR. Once the driver ran, the reply is not an error at all: it
// carries DCB_ATTR_IEEE as a u8 holding the negated errno (InBand is true),
// and for IEEE_SET the parts the kernel handled before the failing one
// stay applied — the kernel's order is ETS, MAXRATE, QCN, PFC, BUFFER,
// REWR, APP, APP_TRUST. SDCBX is different again: its DCB_ATTR_DCBX status
// is the driver's own u8 return (drivers return 1 to refuse), not an errno,
// so a refusal is an *Error matching ErrDCBXRejected.
//
// # Changing settings carefully
//
// The Set* and AddApps/DelApps methods send exactly what they are given, one
// attribute per message. The Update* helpers do what an operator should:
// read the whole struct, apply the caller's change to a copy, write only if
// the configuration differs, read back. The Change they return holds the
// pre-image for rollback (Before), what was asked (Want), what the device
// reports afterwards (After), whether anything was written, and whether
// After configures the device as Want does (drivers round: mlx5 keeps
// maxrate in 100 Mbit/s or 1 Gbit/s units). Because nothing is written when
// nothing differs, an unchanged pfc_en never flaps an mlx5 link:
//
//	ch, err := c.UpdatePFC(ctx, "ens1f0np0", func(p *dcbnl.PFC) {
//		p.PFCEn = 1 << 3 // lossless priority 3
//		p.Delay = 5      // mlx5: cable length in metres
//	})
//	// on a later failure elsewhere: c.SetPFC(ctx, "ens1f0np0", ch.Before)
//
// ReconcileApps brings the APP table to a desired set within the given
// selectors, adding missing entries first (one request each), re-reading,
// then deleting stale ones — so changing DSCP 26 from priority 3 to 5 never
// leaves it unmapped, and mlx5, which replaces an entry on add, is handled
// too. Its AppChanges lists what was added and deleted and the table
// before, so ReconcileApps(ctx, ifname, changes.Before, scope...) is the
// rollback. UpdateTrust fails with ErrNotReported (and EOPNOTSUPP) on a
// device whose GET reply has no trust table: on mlx5, DSCP trust is
// implied by the presence of selector-5 entries.
//
// # Concurrency
//
// Encoders and decoders are pure and safe for concurrent use. A Conn
// serialises its requests and is safe for concurrent use; so is a Client
// over a safe Transport. Separate read-modify-write calls on one device are
// not atomic against each other: serialise them per device.
package dcbnl
