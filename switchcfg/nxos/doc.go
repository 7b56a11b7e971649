// Package nxos is the Cisco NX-OS (Nexus 9000) switch driver (platform
// "cisco-nxos").
//
// Render turns a fabric.SwitchIntent into the NX-OS modular QoS of
// DESIGN.md §5:
//
//	class-map type qos match-any roce           one per class: match dscp 26 (match cos 3 for pcp trust)
//	policy-map type qos FABRICCTL-QOS           class roce / set qos-group 3 (the traffic class);
//	                                            an unnamed class taking the rest of the DSCPs is class-default
//	policy-map type queuing FABRICCTL-QUEUING   one c-out-8q-qN class per queue: priority level 1 (strict),
//	                                            bandwidth remaining percent N, random-detect minimum-threshold
//	                                            X kbytes maximum-threshold Y kbytes drop-probability P weight 0 ecn
//	policy-map type network-qos FABRICCTL-NETWORK-QOS   c-8q-nqN: mtu, pause pfc-cos P (no-drop classes)
//	system qos                                  service-policy type network-qos / queuing output
//	priority-flow-control watch-dog-interval on (+ watch-dog interval, shutdown-multiplier, auto-restore multiplier)
//	interface Ethernet1/1                       mtu, priority-flow-control mode on,
//	                                            service-policy type qos input FABRICCTL-QOS
//
// Within what it manages the rendering is the full state: every c-out-8q
// queue class and every c-8q-nq class is written whole ("no priority level 1",
// "no random-detect", "no pause pfc-cos N" where the intent has none: NX-OS
// takes the no forms with their values), ports get "no priority-flow-control
// mode on" without PFC, and class-maps drop the match of the other trust
// ("no match cos P", "no match dscp 0-63"). An intent without a watchdog
// renders no watchdog line. Above 100 m of cable the pause buffer
// thresholds Cisco requires are written in the ingress queuing policy
// FABRICCTL-INPUT-QUEUING (pauseBuffer in render.go says how they are
// computed); docs/switches.md has the sources.
// One thing is not undone: a class removed from the intent stays in
// FABRICCTL-QOS (its name is unknown to a pure render); remove it with
// "policy-map type qos FABRICCTL-QOS" / "no class NAME".
//
// Parse reads `show running-config` (the only ReadbackCommands entry; echoed
// command, "!" header lines and trailing prompt are ignored). The ports are
// the Ethernet interfaces with a QoS statement (PFC mode, a service-policy);
// the classes are the qos-groups of the type qos policy those ports share
// (their own or the system one), named after their class-maps (class-default
// reads as an unnamed class with every DSCP no other class matches); trust is
// dscp or pcp by what the class-maps match. Scheduling and ECN come from the
// ports' queuing policy, PFC from the network-qos policy under `system qos`,
// counted only when every port has `priority-flow-control mode on` (or
// `mode auto`, NX-OS's default: PFC as DCBX agrees it). Settings
// the ports disagree on read as empty; ParsePorts reads over the intent's
// ports only. A configuration without QoS parses to
// an intent with no ports, classes or PFC, so switchcfg.Compare plans a full
// push. NX-OS does not carry the RoCE/CNP roles or the cable length.
//
// The configuration is read one top-level block at a time; only the blocks
// read (interfaces, class and policy maps, system qos) are built, with at
// most 2^21 words in all. A line longer than switchcfg.MaxCLILine, more than
// switchcfg.MaxBlocks ports, maps and policies, and a number out of its range
// in a policy (a bandwidth percent, an ECN threshold or probability, an MTU,
// a pause buffer) are refused with the line; Unparsed lists at most
// switchcfg.MaxUnparsed statements and counts the rest.
//
// Units: "kbytes" are taken as 1000 bytes (BytesPerKbyte), as in Cisco's and
// NVIDIA's RoCE recipes (150 KB → 150 kbytes); a threshold that is not whole
// kbytes is written in bytes, so thresholds read back exactly. Watchdog times: the interval is the poll interval (ms),
// detection = interval × shutdown-multiplier, restoration = interval ×
// auto-restore multiplier; the NX-OS watchdog always drops.
//
// Render first runs switchcfg.Limits.Check (switchcfg.CheckIntent: a
// malformed intent wraps switchcfg.ErrInvalidIntent), then rejects, with an
// error naming the platform and wrapping switchcfg.ErrNotSupported:
//   - more than MaxNoDropClasses (3) no-drop priorities: Nexus 9000
//     cloud-scale switches support up to three no-drop classes;
//   - a queue other than the traffic class (in 8q mode qos-group N is served
//     by c-out-8q-qN);
//   - with dscp trust, a lossy class whose priority differs from its
//     traffic class (NX-OS keeps no priority for it);
//   - more than MaxStrictClasses (1) strict class, or a strict class with a
//     bandwidth share (priority level 1 takes none);
//   - an MTU outside MinMTU..MaxMTU (576..9216; the profiles' default
//     switchMtu 9216 fits);
//   - watchdog times that are not whole multiples of a 100..1000 ms interval
//     (shutdown-multiplier 1..10, auto-restore multiplier 0..100), or an
//     action other than drop;
//   - two classes on one qos-group, class names that cannot name a class-map.
//
// Push works under a checkpoint, because NX-OS applies lines as they are
// entered; exactly these commands, each through Session.Send:
//
//	checkpoint <name>
//	configure terminal
//	<each rendered line>
//	end
//	show diff rollback-patch checkpoint <name> running-config
//	(PushOptions.Verify)                          a difference: rollback to the checkpoint
//	copy running-config startup-config            when the patch is not empty (a lost reply: sent again on a new session)
//	rollback running-config checkpoint <name>     on a dry run, or any failure after the checkpoint
//	no checkpoint <name>                          once done (kept after a failure, for a manual rollback)
//
// An empty patch means the lines changed nothing: Push returns Changed=false.
// A dry run applies the lines and rolls them back, so ports see the change
// briefly. PushOptions.ConfirmTimeout does not apply.
//
// When the connection drops mid-push, the lines sent so far are live and the
// rollback cannot go through the dead session. With PushOptions.Reconnect
// set, Push dials a new session and runs Recover there (the
// switchcfg.Recoverer): `rollback running-config checkpoint <name>`, then
// `show diff rollback-patch checkpoint <name> running-config` must be empty,
// then `no checkpoint <name>`; on success the PushError says RolledBack.
// Without Reconnect (or when recovery fails) RolledBack is false, the
// checkpoint stays on the switch, PushError.Checkpoint names it and the error
// names RollbackCommand(checkpoint): call Recover on a new session.
//
// A command the switch rejects must come back from Session.Send as a
// *switchcfg.LineError (the Session contract; the session wrapper and its
// replay do so); Push names that line in its *switchcfg.PushError.
//
// The Driver is also a switchcfg.NeighborReader: it reads the switch's
// LLDP neighbours with `show lldp neighbors detail | json`
// (CmdLLDPNeighbors) and ParseLLDPNeighbors turns NX-OS's table (detail
// or summary, one row as an object or many as a list) into
// fabric.Neighbor values, the local port written out as the fabric file
// names it (PortName: Eth1/1 is Ethernet1/1):
//
//	out, _ := sess.Send(ctx, nxos.CmdLLDPNeighbors)
//	ns, err := nxos.ParseLLDPNeighbors([]byte(out)) // err wraps nxos.ErrLLDP
//
// It is a switchcfg.CounterReader too: ParseCountersErrors reads the
// Ethernet ports' receive errors from `show interface counters errors |
// json` (CmdCountersErrors), merging the rows of each section
// (CounterFields says which count as which kind).
//
// Driver holds no state: Render, Parse, Push, ParseNeighbors and
// ParseCounters are safe for concurrent use, one Session per goroutine.
package nxos
