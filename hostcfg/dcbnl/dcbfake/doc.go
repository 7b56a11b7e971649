// Package dcbfake is a fake Linux DCB kernel for tests: a dcbnl.Transport
// that decodes the real request bytes and answers with real reply bytes, so
// code under test exercises the same encode/decode path as on a host.
//
// It follows net/dcb/dcbnl.c: the netlink attribute policy (ERANGE for a
// short struct, EINVAL for a missing name, liberal parsing otherwise),
// ENODEV for an unknown name, EOPNOTSUPP for a device without dcbnl ops,
// EPERM for RTM_SETDCB when SetUnprivileged is on, the order in which one
// IEEE_SET is applied (ETS, MAXRATE, PFC, BUFFER, REWR, APP, APP_TRUST; the
// first failure stops the rest and earlier parts stay), the in-band u8
// status, the kernel's APP list (exact duplicate EEXIST, same selector and
// protocol with another priority is a second entry, delete needs an exact
// match or ENOENT, newest entry first), and the reply layout (IEEE and APP
// nests without NLA_F_NESTED, rewrite and trust tables with it). Its error
// replies are checked byte for byte against the running kernel's. CEE
// commands are not modelled (EOPNOTSUPP).
//
// Two driver flavours sit behind the dcbnl ops: Generic stores what it is
// given and has app trust; MLX5 models mlx5_core (see the constant's doc):
// no app trust, DSCP trust implied by selector-5 entries, one entry per DSCP
// with replace-on-add, a link flap counted whenever pfc_en changes, ETS
// validation, firmware rounding.
//
//	k := dcbfake.New()
//	k.AddDevice("ens1f0np0", dcbfake.MLX5)
//	k.AddDeviceWithoutDCB("veth0")
//	c := dcbnl.New(k)
//	... run the code under test with c ...
//	if len(k.Writes()) != 0 { t.Fatal("a second apply wrote") }
//	if k.LinkFlaps("ens1f0np0") != 1 { ... }
//
// Failures are injected per attribute (FailNext: the next ETS/PFC/APP/…
// driver operation fails in-band with the given errno), per APP entry
// (FailApp) or per request (FailNextRequest: an NLMSG_ERROR before the
// driver). Every request is recorded (Requests, Writes) with its command,
// interface, IEEE attributes and outcome. State returns what IEEE_GET would
// report without recording anything.
//
// A Kernel is safe for concurrent use; requests are processed one at a time.
package dcbfake
