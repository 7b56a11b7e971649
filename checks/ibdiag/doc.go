// Package ibdiag reads what the InfiniBand diagnostics of infiniband-diags
// (rdma-core) print, for the fabric checks that run them or read their
// captures:
//
//	ParseIBNetDiscover  ibnetdiscover [-p|-g|-s]  nodes (switches, CAs, routers: GUIDs, LIDs, descriptions)
//	                                              and every link with both ends' ports, width and speed
//	ParseIBLinkInfo     iblinkinfo               every port's link, typed (checks/hostparse reads the lines)
//	ParsePerfQuery      perfquery [-x|-a|-E|-D]  PortCounters, PortCountersExtended and detail blocks
//	ParseSMPQuery       smpquery portinfo|nodeinfo|nodedesc
//	ParseSMInfo         sminfo                   the master SM (switchcfg/opensm reads the first line)
//	ParseIBTracert      ibtracert                the hops of a LID-routed path
//	ParseIBRoute        ibroute, dump_fts         a switch's linear forwarding table
//	ParseIBQueryErrors  ibqueryerrors            ports whose counters are over a threshold, and the summary
//
// Nothing is read in silence: every parser accounts for every non-blank
// line of its input. A line is either read into the result, a message the
// tool printed about its own failure (ToolErrors: "ibwarn: …",
// "iberror: …", "src/query_smp.c:195; … Connection timed out"), or returned
// as Unparsed with its line number. A capture quoted in a mail reply ("> "
// before every line) reads as the capture itself; port lines that no
// iblinkinfo node header precedes (a grep of the output) are Unparsed,
// never given to a node. A counter that is not printed is absent
// from its map, never 0, and counters keep their IBTA names
// (SymbolErrorCounter, PortXmitWait …). A counter that holds the largest
// value its field can hold (65535 for the 16-bit PortRcvErrors,
// 4294967295 for the 32-bit PortXmitWait of PortCounters) is Saturated: it
// stopped counting, and the true count is unknown and higher.
//
// Widths, speeds and port states are typed (Width, Speed, PortState,
// PhysState): "4X", "4xEDR", "25.78125 Gbps", "10.0 Gbps (FDR10)",
// "Active/ LinkUp". A value the types do not know stays visible (Speed's
// Raw, Unknown states) rather than being read as another.
//
//	topo, err := ibdiag.ParseIBNetDiscover(out)
//	for _, l := range topo.Links() { fmt.Println(l.A, l.B, l.Width, l.Speed) }
//
//	pq, err := ibdiag.ParsePerfQuery(out)
//	c, ok := pq.Blocks[0].Counters["SymbolErrorCounter"] // !ok: not printed
//
// All functions are pure and safe for concurrent use.
package ibdiag
