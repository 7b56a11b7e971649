// Package topology holds a fabric's nodes and cables, as declared in the
// fabric file and as discovered through LLDP, and says how the two differ:
//
//	declared := topology.Declared(f)                     // spec.links, hosts[].links, roles, rails
//	obs := []topology.Observation{{Device: "gpu-01", Neighbors: ns}, …} // fabric/lldp, switch drivers
//	discovered := topology.Discover(obs, declared)       // names resolved against the fabric (FQDNs too)
//	for _, d := range topology.Compare(declared, discovered, topology.Observed(obs)) {
//		fmt.Println(d.Kind, d.Message) // wrong-rail gpu-01:ens1f0np0 is on leaf-r1-03:swp7 of rail 1, declared …
//	}
//
// DeclaredIB is the InfiniBand cabling the fabric declares (spec.infiniband;
// ports are IB port numbers), and CompareFrom(IBNetDiscover, …) compares it
// with what ibnetdiscover found (checks/ibfabric builds that topology), the
// findings speaking of ibnetdiscover rather than LLDP.
//
// A Topology is the common currency of the localiser (checks/localize),
// the topology-aware schedule and the report's drawing. Roles follow the
// fabric file (spec.switches[].role) or the cabling: a switch hosts are
// cabled to is a leaf, one that only joins switches a spine.
//
// Compare only judges cables it can see: a cable is checked at the ends
// whose neighbour tables were read, so host LLDP alone checks every access
// link and no leaf-to-spine link. Differences are named by cause, most
// specific first: swapped NICs of one host, a NIC on a leaf of the wrong
// rail, on the wrong leaf, on the wrong port, a miscabled switch-to-switch
// cable, a declared cable with no neighbour, an undeclared cable between
// fabric devices.
//
// Everything here is pure; a built Topology is safe for concurrent reads.
package topology
