// Package lldp reads the LLDP neighbour table a host's lldpd prints, so that
// fabricctl can see where each NIC is really cabled:
//
//	out, _ := run(ctx, lldp.Command...) // lldpcli -f json show neighbors details
//	ns, err := lldp.Parse(out)          // []fabric.Neighbor, in lldpcli's order
//	for _, n := range ns {
//		fmt.Println(n.LocalPort, "→", n.SystemName, n.PortName()) // ens1f0np0 → leaf-01 swp7
//	}
//
// Parse accepts the three machine formats of lldpcli:
//
//	-f json      the shape changes with the data: one interface is an object,
//	             several a list; a chassis with a system name is keyed by it
//	             ({"leaf-01": {"id": …}}), one without is not; one management
//	             address is a string, several a list
//	-f json0     every value in a list and every leaf as {"value": …}; what
//	             Cumulus' `net show lldp json` prints
//	-f keyvalue  lldp.IFACE.chassis.name=leaf-01 lines; an interface name may
//	             hold dots (bond0.100); a neighbour starts at its "via" line
//
// Empty output and an empty table ({"lldp": {}}) are no neighbours, not an
// error. Output that is not lldpcli's is an error wrapping ErrFormat that
// says where (a JSON line and column, a keyvalue line number, the interface
// index). Fields fabricctl does not use (VLANs, LLDP-MED, capabilities,
// auto-negotiation, unknown TLVs) are skipped.
//
// Switches read their own LLDP tables through their drivers
// (switchcfg.NeighborReader); both end up as fabric.Neighbor for
// checks/topology to compare with the declared cabling.
//
// Everything here is pure and safe for concurrent use.
package lldp
