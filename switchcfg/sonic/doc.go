// Package sonic is the switchcfg driver for SONiC (platform "sonic"), which
// is configured through CONFIG_DB tables from a bash shell.
//
// Render turns a fabric.SwitchIntent into the QoS tables, as JSON:
//
//	DSCP_TO_TC_MAP|FABRICCTL       all 64 code points (DOT1P_TO_TC_MAP for pcp trust)
//	TC_TO_QUEUE_MAP|FABRICCTL      class priority → queue
//	TC_TO_PRIORITY_GROUP_MAP|…     lossless TC → PG of the same number, others → PG 0
//	MAP_PFC_PRIORITY_TO_QUEUE|…    PFC priority → queue
//	SCHEDULER|FABRICCTL_STRICT, FABRICCTL_DWRR_<weight>
//	WRED_PROFILE|FABRICCTL_Q<q>    ecn_all, green/yellow/red thresholds in bytes
//	PORT_QOS_MAP|EthernetN         the maps above, pfc_enable "3,4"
//	QUEUE|EthernetN|q              scheduler, wred_profile (<name>|asic0|EthernetN|q on model voq)
//	PFC_WD|EthernetN, PFC_WD|GLOBAL POLL_INTERVAL, pfcwd_sw_enable (watchdog set)
//	PFC_PRIORITY_TO_PRIORITY_GROUP_MAP, pfc_to_pg_map (mellanox, barefoot models)
//	BUFFER_QUEUE|EthernetN|q       the lossless profile on the lossless queues
//	CABLE_LENGTH|…|EthernetN "5m", PORT|EthernetN mtu
//
// The DSCP map is always written in full: SONiC's stock AZURE map sends DSCP
// 26 (RoCE's usual code point) to lossy TC 1, and a partial map would leave
// that in force. switchcfg.Compare reports the case as
// "classes[roce].dscp[26]: want lossless (priority 3), got lossy (priority 1)".
//
// SONiC's traffic class is the priority PFC pauses, so a class's trafficClass
// must equal its priority (its queue may differ); other limits (MTU
// MinMTU..MaxMTU, 1500..9216, so the profiles' default switchMtu 9216 fits;
// `config pfcwd` ranges) are in validate. Violations fail Render
// with switchcfg.ErrNotSupported; self-contradicting intents with
// switchcfg.ErrInvalidIntent.
//
// Parse reads `show runningconfiguration all` (DecodeConfigDB, then
// ParseConfigDB); `show pfcwd config` (ParseShowPFCWD) may stand in for the
// PFC_WD table. Not read: `show buffer configuration` (buffer pools and
// profiles, outside the canonical intent), and the CLI reference's `show ecn`,
// `show pfc priority` and `config …` examples, which show the same CONFIG_DB
// data fabricctl reads from the running configuration.
//
// orchagent arms the watchdog on pfcwd_sw_enable's priorities: an enabled
// watchdog writes the PFC priorities there, a disabled one "" (and the
// port's PFC_WD entry goes), an intent without one touches neither. The
// patch rewrites each port's BUFFER_QUEUE around the lossless queues and
// removes lossless BUFFER_PG entries pfc_enable no longer names (buffermgrd
// never deletes them); it refuses what GCU refuses whatever the patch
// (creating PFC_WD or its GLOBAL entry) and names the command that does it,
// and a poll interval above the watchdog times of ports outside the intent
// (sonic-pfcwd.yang wants every port's times >= POLL_INTERVAL).
//
// A line card of a VOQ chassis (DEVICE_METADATA switch_type voq) keys
// QUEUE and BUFFER_QUEUE by system port, "<hostname>|<asic>|EthernetN|q"
// (sonic-queue.yang, sonic-buffer-queue.yang); local keys fail SONiC's YANG
// there. Model voq renders them so, with the switch's name as hostname and
// asic0; the patch keys them by the switch's own DEVICE_METADATA hostname
// and asic_name whichever model rendered them, and leaves other line
// cards' entries alone; the reader reads the local line card's queues.
// Parse reads port by port, old "[TABLE|NAME]" references, and counts a
// priority lossless only where its queue's buffer is. docs/switches.md has
// the sources.
//
// DecodeConfigDB reads the document value by value: the tables it does not
// keep are skipped, never held, and those it keeps hold at most
// switchcfg.MaxBlocks entries and 262144 fields together. Numbers are read
// within their ranges or refused naming TABLE|key and field: watchdog
// times (POLL_INTERVAL, detection, restoration) 1 ms to an hour, MTU
// 68..65535, cable lengths from 1 m, scheduler weights and probabilities
// 0..100, WRED thresholds 0..2^31-1 bytes.
//
// Push (switchcfg.Driver.Push) reads the running configuration, computes
// an RFC 6902 patch for what fabricctl manages (BuildPatch; FABRICCTL*
// entries whole, shared entries field by field), and applies it with the
// generic config updater under a checkpoint: apply-patch --dry-run, then
// apply-patch, then PushOptions.Verify, then config save; rollback to the
// checkpoint on failure — over a new session (PushOptions.Reconnect) when
// the connection was lost — and a read-back that must equal the running
// configuration from before the push. A lost save is sent again. An
// empty patch is no change and touches nothing. ApplyPatch models the
// switch's side for simulators and tests.
//
// The Driver is also a switchcfg.NeighborReader (`show lldp table`) and a
// switchcfg.CounterReader: ParseCounters reads the front-panel ports'
// RX_ERR and RX_DRP from portstat's table, `show interfaces counters`
// (CmdCounters).
//
// The Driver is stateless and safe for concurrent use; a ConfigDB is not.
package sonic
