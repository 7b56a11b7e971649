// Package opensm is fabricctl's OpenSM driver: it turns the canonical
// partition intent (fabric.SubnetManagerIntent) into OpenSM's partitions.conf,
// reads partitions.conf back into the intent, compares the two field by field,
// and pushes the file to the subnet manager's host with a backup, a SIGHUP and
// a rollback.
//
// # Render and parse (pure)
//
//	text, err := opensm.Render(sm, guids)      // guids: host name → port GUIDs
//	want, err := opensm.Desired(sm.Partitions, guids)
//	got, err := opensm.Parse(text)             // got equals want, exactly
//	diffs := opensm.Compare(want, got)         // empty
//
// Render writes a header comment naming fabricctl, then every partition by
// pkey (no rule for the default partition 0x7fff unless the intent defines
// one: OpenSM then applies ALL=limited, SELF=full, DefaultPartition, so
// partitions isolate); mtu, rate and sl only on IPoIB partitions, where they
// act:
//
//	storage=0x0002, ipoib, mtu=5, rate=17, sl=0, defmember=limited :
//		0x0002c903000e0b72=limited,
//		0x0002c90300a1b2f0=full ;
//
// Memberships are always explicit, keywords (ALL, ALL_CAS, ALL_SWITCHES,
// ALL_ROUTERS, SELF) come before GUIDs so that a GUID's own entry wins, and
// the output does not depend on the order of the intent. A Host member whose
// GUIDs are not in guids is an error wrapping ErrNoGUIDs that names the host;
// RenderPreview (what `fabricctl render` prints) writes such hosts as comment
// lines discovered at plan time instead.
//
// ParseFile follows OpenSM's parser (osm_prtn_config.c) rule for rule: '#'
// comments, definitions over several lines, abbreviations, C numbers, 15-bit
// pkeys (0x8002 is 0x0002), repeats merged by pkey, later entries overriding
// earlier ones, mgid lines. Where OpenSM would only log a warning and guess
// (an unknown flag or membership, CRLF line endings, a missing ';') it
// returns a *ParseError, "LINE:COL: message", wrapping ErrSyntax. What the
// intent cannot hold (mgid groups, indx0, scope, Q_Key, TClass, FlowLabel)
// is listed in File.Extras so a plan can warn that a push drops it.
//
// Compare matches partitions by pkey and members by GUID or keyword, ignores
// spelling and order, and treats unset values as the subnet manager's
// defaults (OpenSMDefaults; CompareWith takes others, e.g. UFM's). One
// subtlety it does not model: in OpenSM a GUID listed before ALL_CAS,
// ALL_SWITCHES, ALL_ROUTERS or SELF may be overridden by that keyword; fabricctl
// never writes that order.
//
// # Push (I/O)
//
//	p := &opensm.Pusher{Remote: opensm.NewRemote(sshRunner)} // stock paths
//	diffs, err := p.Plan(ctx, sm, guids)
//	res, err := p.Push(ctx, sm, guids)
//
// Push reads the live file, stops if it already means the desired table,
// otherwise copies it to partitions.conf.fabricctl.bak (cp -p), writes the
// new file through a temporary file and mv, sends SIGHUP to OpenSM (found by
// /var/run/opensm.pid, checked against /proc/PID/comm, else pidof opensm),
// and verifies that the file reads back identically and OpenSM still runs. On
// any failure after the write it puts the previous file back and sends SIGHUP
// again (RolledBack in the result; errors wrap ErrVerify or ErrNotRunning).
//
// With Pusher.Fabric set (NewPusher sets it unless the manager says verify:
// file), a push is proven on the fabric, not by the file: after the SIGHUP
// OpenSM's log must show a completed sweep (SUBNET UP) and none of its
// partition errors (ErrFallback: OpenSM's silent fallback to every port a
// full member of 0x7fff), and every CA port's P_Key table, read with the
// infiniband-diags through the same Runner (FabricReader: ibnetdiscover -p,
// sminfo, smpquery pkeys), must hold exactly the memberships ExpectedTables
// predicts; otherwise the previous file is put back. PlanFabric and
// Target.Plan compare the ports with the intent (PortDiff), so a table
// changed behind OpenSM's back is drift, and list GUID members no port has
// (UnknownMembers). Target discovers the port GUIDs of member hosts the
// fabric file gives none from the ports' NodeDescriptions (DiscoverGUIDs).
// A live file that does not parse is a "file" difference, replaced by a push
// (the backup keeps it). Render checks its own output with CheckRendered,
// which names the rules of osm_prtn_config.c it mirrors.
//
// Remote is the small interface a push needs (read, atomic write with backup,
// remove, signal). CommandRemote implements it over any Runner with fixed
// argv only (cat, test, cp, mktemp, chmod, tee, mv, rm, pidof, kill; paths as
// separate arguments after "--", never interpolated into a shell line);
// ExecRunner runs those locally. An SSH Runner must quote each argv element
// for the remote shell and report exit statuses through ExitCode() int.
//
// # Concurrency
//
// Render, Desired, Parse, ParseFile and Compare are pure and safe for
// concurrent use. A Pusher or CommandRemote holds no state between calls and
// may be used from several goroutines for different hosts; two pushes to the
// same file at once race like two editors.
package opensm
