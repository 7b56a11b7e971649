// Package junos is the Junos (QFX) class-of-service driver (platform "junos").
//
// Render turns a fabric.SwitchIntent into set statements (Config.Format
// "set"), one hierarchy of DESIGN.md §5 after the other:
//
//	forwarding-classes class roce queue-num 3 / no-loss / pfc-priority 3     one class per intent class
//	classifiers dscp FABRICCTL-CLASSIFIER forwarding-class roce loss-priority low code-points 011010
//	                                         (6-bit binary; ieee-802.1 with 3-bit code points for pcp trust)
//	drop-profiles roce-dp interpolate fill-level [ 5 50 ] / drop-probability [ 0 100 ]   ([ 0.11 1.14 ] on Evolved)
//	schedulers roce-sched transmit-rate percent 50 / priority strict-high / drop-profile-map
//	                      loss-priority any protocol any drop-profile roce-dp / explicit-congestion-notification
//	scheduler-maps FABRICCTL-SCHEDULER-MAP forwarding-class roce scheduler roce-sched
//	congestion-notification-profile FABRICCTL-CNP input dscp code-point 011010 pfc
//	                                              output ieee-802.1 code-point 011 flow-control-queue 3
//	                                              pfc-watchdog poll-interval / detection / recovery / watchdog-action
//	interfaces et-0/0/0 mtu 9216
//	class-of-service interfaces et-0/0/0 congestion-notification-profile / scheduler-map / unit * classifiers
//
// Before the set statements come delete statements for everything Render
// defines — its classifier, scheduler map, the congestion-notification
// profile's PFC lists (its pfc-watchdog only when the intent has a
// watchdog), each class's forwarding class, scheduler and drop profile, each
// port's bindings, the shared buffer when PFC is on — so the rendering is
// the full state: in the private
// candidate `show | compare` shows only real differences, and stale
// leftovers go away. Other class-of-service configuration is left alone.
//
// A class's queue may differ from its priority: Juniper's AI/ML designs put
// PFC priority 3 on queue 4 (Queue 4, pfc-priority 3, flow-control-queue 4).
//
// Parse reads `show configuration class-of-service` and `show configuration
// interfaces`, as set statements (`| display set`, what ReadbackCommands
// asks for) or curly braces, sub-hierarchy or whole configuration: each
// read-back key names the command, and curly text of a sub-hierarchy is taken
// relative to it. Prompts, "{master:0}", comments and inactive statements are
// skipped; DSCP and IEEE 802.1 code-point aliases (af31, ef, cs6, ...) are
// understood. The ports are the interfaces with class-of-service bindings; a
// wildcard entry (et-*, et-0/0/*) stands for every matching port of the
// interfaces hierarchy except channelized parents (number-of-sub-ports), and
// a port's own entry overrides the wildcard's settings. The classifier,
// scheduler map and congestion-notification profile count only when every
// port uses the same one; a mixed one reads as missing so drift shows
// (ParsePorts: every port of the intent). The
// classes are the forwarding classes of that classifier, named after them.
// PFC counts for a no-loss class whose code points the profile's input
// pauses; its priority is its pfc-priority (or, with pcp trust, its code
// point). Junos carries no priority for a lossy class under DSCP trust: it
// reads as the queue number, and the traffic class always equals the
// priority. The MTU is the one every port sets. Junos does not carry the
// RoCE/CNP roles or the cable length.
//
// The text is read line by line, one statement held at a time, so memory
// grows with the longest statement, never with the file or its nesting.
// Refused, with the line: text none of whose statements begins as Junos
// configuration does (a top-level hierarchy, or a class-of-service one),
// and its syntax errors (switchcfg.ErrNotThisFormat); blocks nested deeper
// than 64 levels (Junos's own nest fewer than 20); a statement of more than
// 65536 words; more than switchcfg.MaxBlocks interfaces, entries, classes,
// profiles and maps; a number out of its range (an MTU, a queue, a percent, a
// watchdog time, a member-range). Unparsed lists at most
// switchcfg.MaxUnparsed statements and counts the rest.
//
// Units: drop-profile fill levels are percents of the queue buffer of the
// switch's model (Info.Models: the QFX families' packet buffers, qfx5120's
// 32 MB by default) or of the profile's queueBuffer, in steps the switch's
// configuration schema takes (Juniper's YANG, 24.4R1): whole percents on
// classic Junos (uint32), hundredths on Junos OS Evolved, the
// QFX5130/5220/5230/5240 (decimal64: `fill-level [ 0.11 1.14 ]` is the
// RoCE ramp 150 KB–1.5 MB of a QFX5130's 132 MB). Render rounds each
// threshold to the nearest step, half up, at least one step above zero;
// the two must differ (Junos refuses `fill-level [ 1 1 ]`, and the ramp
// would be lost), so when both land on one step the one beyond it moves a
// step out (fillLevels). Each level stays within one step of its threshold:
// ParseIntent multiplies back for the switch's model, and drift compares
// within one step (ThresholdQuantumFor). The ECN mark probability is the
// last interpolate point's drop probability. With PFC the shared buffer
// is partitioned as Juniper's AI/ML design does (66/24/10 ingress, 66/10
// egress). A lossy
// class under DSCP trust carries no priority on Junos: it reads as its
// lowest DSCP's class selector, else its queue (readPriorities), and
// validation asks for that priority. Watchdog: poll-interval and recovery are milliseconds,
// detection counts poll intervals; a watchdog without times uses Junos's
// defaults, action drop.
//
// Render first runs switchcfg.Limits.Check (switchcfg.CheckIntent: a
// malformed intent wraps switchcfg.ErrInvalidIntent), then rejects, with an
// error naming the platform and wrapping switchcfg.ErrNotSupported:
//   - more than MaxNoLossClasses (6) no-loss forwarding classes, the QFX limit;
//   - more than 8 classes (unicast queues 0..7);
//   - a traffic class different from the priority (Junos has none);
//   - with dscp trust, a lossless class without DSCPs (DSCP-based PFC
//     pauses by code point);
//   - an ECN maximum threshold above the queue buffer (more than 100 % fill);
//     both thresholds below the first fill-level step (no two levels above
//     0 lie within a step of them); an ECN mark probability of 0
//     (`drop-probability [ 0 0 ]`);
//   - a lossy class under DSCP trust whose priority is not the one it reads
//     back as, an unknown model;
//   - an MTU outside MinMTU..MaxMTU (256..9216; the profiles' default
//     switchMtu 9216 fits);
//   - a watchdog action other than drop or forward, a detection time that is
//     not whole poll intervals, a watchdog without PFC;
//   - class names that cannot name a forwarding class, or whose scheduler
//     (NAME-sched) would pass Junos's 64 characters (at most 58).
//
// Push edits a private candidate, exactly these commands through Session.Send:
//
//	configure private
//	<each delete and set statement>
//	show | compare
//	rollback 0 + exit              no difference, dry run, or any failure before the commit
//	commit confirmed <minutes>     PushOptions.Timeout() rounded up to whole minutes
//	run show …                     PushOptions.Verify; a difference: rollback 1 + commit
//	commit                         confirms; without it Junos rolls back when the minutes end
//	exit
//
// A connection lost before the commit changed nothing (the private
// candidate dies with its session). After one lost later, Push reads
// `show system commit` on a new session (PushOptions.Reconnect): a
// confirmed commit still pending is verified and confirmed; none pending
// means the commit never ran, or the confirm took.
//
// A commit counts only with "commit complete" in its reply. Junos commits are
// persistent: there is no save step.
//
// A command the switch rejects must come back from Session.Send as a
// *switchcfg.LineError (the Session contract; the session wrapper and its
// replay do so); Push names that line in its *switchcfg.PushError.
//
// The Driver is also a switchcfg.NeighborReader: it reads the switch's
// LLDP neighbours with `show lldp neighbors | display json`
// (CmdLLDPNeighbors) and ParseLLDPNeighbors turns the brief or detail
// RPC reply into fabric.Neighbor values, the local port named as the
// fabric file writes it (an ifIndex in lldp-local-port-id or a logical
// unit is not a port name):
//
//	out, _ := sess.Send(ctx, junos.CmdLLDPNeighbors)
//	ns, err := junos.ParseLLDPNeighbors([]byte(out)) // err wraps junos.ErrLLDP
//
// It is a switchcfg.CounterReader too: ParseInterfacesExtensive reads the
// Ethernet ports' receive errors from `show interfaces extensive |
// display json` (CmdInterfacesExtensive; CounterFields says which count
// as which kind).
//
// A Driver is not modified by its methods: Render, Parse, Push,
// ParseNeighbors and ParseCounters are safe for concurrent use, one Session per goroutine.
package junos
