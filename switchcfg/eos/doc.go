// Package eos is the Arista EOS switch driver (platform "arista-eos").
//
// Render turns a fabric.SwitchIntent into the EOS commands of DESIGN.md §5,
// laid out as `show running-config` prints them:
//
//	qos map cos 3 to traffic-class 3                 one per class: priority → traffic class
//	qos map dscp 26 to traffic-class 3               trust dscp classification
//	qos map traffic-class 3 to uc-tx-queue 3         class → egress queue (tx-queue on sand models)
//	priority-flow-control pause watchdog default timeout 0.2   (+ polling-interval, recovery-time, action)
//	interface Ethernet1/1
//	   mtu 9214
//	   qos trust dscp                                (cos for pcp trust)
//	   priority-flow-control on
//	   priority-flow-control priority 3 no-drop
//	   priority-flow-control pause watchdog
//	   uc-tx-queue 3                                 (tx-queue 3 on sand models)
//	      no priority                                (priority strict for strict classes)
//	      bandwidth percent 50
//	      random-detect ecn minimum-threshold 150 kbytes maximum-threshold 1500 kbytes max-mark-probability 100
//
// The rendering is the full state of what fabricctl manages, not a patch:
// map entries of priorities, DSCPs and traffic classes no class uses are
// removed ("no qos map dscp 5 to traffic-class N" for every N), PFC
// priorities outside the intent, tx-queues without a class, bandwidth and ECN
// a class does not set, per-port watchdog overrides and service-profile are
// reset with "no" commands. Pushing it therefore also undoes what drifted in;
// ports outside the intent are never touched, and an intent without a
// watchdog renders no watchdog line (the switch's stays).
//
// The queue commands follow the switch's model (Info.Models): Trident and
// Tomahawk switches ("strata", the default; also vEOS) take uc-tx-queue and
// "qos map traffic-class T to uc-tx-queue Q", Jericho ("sand") tx-queue.
// The watchdog acts globally by drop or no-drop and per port by drop or
// notify-only: drop → global drop, forward → global no-drop, alert → the
// ports' notify-only; a port without an action reads as "errdisable", EOS's
// default. docs/switches.md has the sources.
//
// Parse reads `show running-config` (the only ReadbackCommands entry; `show
// running-config all` too: maps to traffic classes above 7 are no class,
// `default qos trust` is DSCP on routed ports) back into the intent, its
// model the family its queue commands show. Interfaces inherit what their `service-profile` qos
// profile sets, and their own lines win. The ports of the result are the
// Ethernet interfaces with any QoS setting; per-port settings (MTU, trust,
// PFC, watchdog enablement, tx-queue scheduling and ECN) count only when all
// those ports agree, and read as empty otherwise, so one drifted port shows.
// ParsePorts does the same over the intent's ports only, so uplinks with
// other QoS do not blur the reading. A line longer than switchcfg.MaxCLILine,
// more than switchcfg.MaxBlocks interface and profile blocks, and a number
// out of its range (a watchdog timeout or polling interval of no
// millisecond, an MTU, a map value, a percent) are refused with the line;
// Unparsed lists at most switchcfg.MaxUnparsed lines and counts the rest.
// EOS does not carry class names, the RoCE/CNP class roles or the cable
// length: they stay empty. A tx-queue is strict unless `no priority` is set
// on it or on a higher queue (EOS's round-robin rule), or `priority strict`
// is written on it. ECN thresholds in segments or time units have no byte
// value and read as no ECN.
//
// Units: EOS "kbytes" are taken as 1000 bytes (BytesPerKbyte), the unit of
// the vendor RoCE recipes (150 KB → 150 kbytes); a threshold that is not whole
// kbytes is written in bytes, so thresholds read back exactly. Watchdog
// times are seconds on the CLI and milliseconds in the intent; actions map
// drop → drop, forward → no-drop, alert → notify-only.
//
// Render first runs switchcfg.Limits.Check (switchcfg.CheckIntent: a
// malformed intent wraps switchcfg.ErrInvalidIntent), then rejects, with an
// error naming the platform and wrapping switchcfg.ErrNotSupported:
//   - more than MaxNoDropPriorities (2) no-drop priorities: a conservative
//     choice for the fixed-configuration (Trident/Tomahawk) leaves, whose
//     lossless headroom is provisioned per priority; platforms with deeper
//     buffers allow more, but one driver renders for all of them;
//   - an MTU outside MinMTU..MaxMTU (68..9214: 9214 is EOS's largest
//     interface MTU; an unset switchMtu resolves to it, an explicit 9216
//     is refused and the error says to write switchMtu: max);
//   - an unknown model;
//   - a strict class whose tx-queue is not above every round-robin class's
//     (`no priority` makes all lower queues round-robin);
//   - two classes on one traffic class (the maps are functions);
//   - watchdog times outside EOS's ranges (timeout and recovery 10 ms–60 s,
//     polling 5 ms–30 s) and unknown actions.
//
// Push runs one EOS configuration session, exactly these commands:
//
//	configure session <name>
//	<each rendered line>
//	show session-config diffs
//	abort                                  no diff, dry run, or any failure before the commit
//	commit timer <hh:mm:ss>                PushOptions.Timeout()
//	(PushOptions.Verify)                   a difference: configure session <name> abort (rolls back now)
//	configure session <name> commit        confirms; without it EOS rolls back when the timer ends
//	copy running-config startup-config     saves
//
// After a lost connection Push reads `show configuration sessions` (on a
// new session from PushOptions.Reconnect): pending is aborted,
// pendingCommitTimer verified and confirmed, completed saved; a lost save
// is sent again.
//
// Every command goes through Session.Send, in the mode the previous one left
// (the session wrapper never changes mode by itself). A failed save leaves
// the confirmed change running, unsaved, and says so. switchcfg.Observe
// runs the read-back through ParsePorts.
//
// A command the switch rejects must come back from Session.Send as a
// *switchcfg.LineError (the Session contract; the session wrapper and its
// replay do so); Push names that line in its *switchcfg.PushError.
//
// The Driver is also a switchcfg.NeighborReader (`show lldp neighbors |
// json`, ParseLLDPNeighbors) and a switchcfg.CounterReader:
// ParseInterfaceCounters reads the Ethernet ports' receive errors from
// `show interfaces | json` (CmdInterfaces; CounterFields says which count
// as which kind).
//
// Driver holds no state: Render, Parse, Push, ParseNeighbors and
// ParseCounters are safe for concurrent use, one Session per goroutine.
package eos
