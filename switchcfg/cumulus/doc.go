// Package cumulus is the switchcfg driver for NVIDIA Cumulus Linux managed
// with NVUE (platform "cumulus-nvue").
//
// Render turns a fabric.SwitchIntent into `nv set` / `nv unset` lines on the
// default-global QoS profiles:
//
//	nv set qos mapping default-global trust l3
//	nv set qos mapping default-global dscp 26 switch-priority 3
//	nv set qos egress-queue-mapping default-global switch-priority 3 traffic-class 3
//	nv set qos pfc default-global switch-priority 3
//	nv set qos congestion-control default-global traffic-class 3 min-threshold 150000
//	nv set qos egress-scheduler default-global traffic-class 6 mode strict
//	nv set interface swp1-32 qos pfc-watchdog state enable
//	nv set interface swp1-32 link mtu 9216
//
// The rendering is full state: it starts by unsetting the managed profiles,
// so NVUE's own `nv config diff` decides whether anything changes. With PFC
// it gives the default-lossless traffic pool half the buffer (Cumulus gives
// all of it to default-lossy unless told, and PFC needs the lossless pool);
// traffic classes no class uses get DWRR weight 0, so the weights total
// 100 %; an intent without a watchdog renders no watchdog line. When the
// intent is exactly what `nv set qos roce mode lossless` installs (DSCP
// default map, SP3 lossless with ECN 150000–1500000 B, SP6 strict for CNPs,
// everything else on TC0, TC0/TC3 DWRR 50/50, trust pcp+dscp) the one-liner is
// rendered instead of the knobs. Limits of the platform (queue = traffic
// class on Spectrum, drop-only watchdog detecting after whole polls, NVUE
// value ranges, an MTU outside 552..9216, NVUE's `link mtu` range, so the
// profiles' default switchMtu 9216 fits) fail Render with
// switchcfg.ErrNotSupported; an intent that
// contradicts itself fails with switchcfg.ErrInvalidIntent.
//
// Parse reads `nv config show -o json` (or its YAML form, and `nv config diff`
// documents) with DecodeConfig/ParseTree, and for audits also the operational
// `nv show qos roce` table (ParseShowRoCE) and qos_features.conf or the legacy
// traffic.conf (ParseQoSFeatures). Every source is folded onto the platform
// defaults (DSCP d → switch priority d/8, TC0 marking ECN at 150000 B, DWRR
// 12/13 %), so a read-back yields the effective state, not just the lines a
// user typed. Classes are the switch priorities that receive traffic under
// the trust mode, named "sp<N>"; Compare matches them by priority.
//
// DecodeConfig bounds what it builds: JSON of at most 262144 values and
// strings of at most 64 KiB, YAML of at most 2 MiB (yaml.v3 holds some 30
// bytes a byte; save a larger configuration as JSON) converted from its
// node tree in linear time, every alias use counted. Text that is no JSON
// or YAML, or no NVUE configuration, wraps switchcfg.ErrNotThisFormat. A
// threshold past 1 GiB, a cable length, probability or percent out of its
// range is refused with where it is; qos_features.conf holds at most
// switchcfg.MaxBlocks assignments.
//
// Not read: `netq check roce` (a pass/fail summary with no values),
// qos_infra.conf (buffer pools and alphas, outside the canonical intent), and
// NCLU `net add … storage-optimized` macros (their effect is read from the
// traffic.conf they produce). QoS profiles other than default-global are not
// read, since fabricctl never writes them.
//
// Push (switchcfg.Driver.Push) loads the lines, asks `nv config diff`,
// detaches when there is nothing to do, else applies with
// `nv config apply -y --confirm <t>s`, runs PushOptions.Verify while the
// apply waits for its confirm (a difference: `nv config apply --confirm-no`
// rolls it back now) and confirms with `nv config apply -y --confirm-yes`;
// any failure before the apply detaches the pending revision. After a lost
// connection Push asks `nv config apply --confirm-status` (on a new session
// from PushOptions.Reconnect) what NVUE did, and finishes the transaction
// from there (transaction.go).
//
// The Driver is also a switchcfg.NeighborReader (lldpcli's json0) and a
// switchcfg.CounterReader: ParseLinkStats reads the front-panel ports'
// receive errors from `ip -s -s -j link show` (CmdLinkStats; switchd
// keeps the swp netdevs' statistics in step with the ASIC).
//
// The Driver is stateless and safe for concurrent use; a Tree is not.
package cumulus
