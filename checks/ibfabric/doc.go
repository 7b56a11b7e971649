// Package ibfabric judges an InfiniBand fabric from what the
// infiniband-diags print (parsed by checks/ibdiag) against what the fabric
// file declares (spec.infiniband: switches, cables, link width and speed;
// subnet managers; partitions). It runs nothing: action/ibcheck runs the
// tools and hands the parsed outputs here.
//
//	d, err := ibfabric.Declare(f)                 // the declared IB fabric
//	res := ibfabric.Judge(d, reading)             // reading: ibnetdiscover -p, iblinkinfo, sminfo ×2,
//	                                              // saquery SMIR, ibqueryerrors, P_Key tables
//	for _, r := range res.Results { fmt.Println(r.ID, r.Target, r.Status, r.Summary) }
//
// The checks, each a checks.Result ID:
//
//	ib/subnet-manager  exactly one master, on a declared subnet manager's node, the same in
//	                   both sminfo readings (no flapping); no SM in any state on another node
//	                   (the SA's SMInfoRecords)
//	ib/link            per declared cable: both ends Active/LinkUp at the declared (or the
//	                   fabric's default) width and speed; a port whose far end answers no
//	                   management packet (the diags' directed-route timeouts) is named too
//	ib/cabling         ibnetdiscover against the declared cabling through checks/topology's
//	                   comparison: wrong port, wrong switch, swapped, missing, unexpected
//	ib/counters        every port ibqueryerrors reports over its default thresholds, by IBTA
//	                   counter name, on the cable it sits on; with a reading from before other
//	                   suites (Reading.ErrorsBefore), one whose counters did not move is a warning
//	ib/pkeys           every CA port's P_Key table against the partitions (switchcfg/opensm)
//
// One fault gives one finding: a cable whose link is down or silent is not
// also "missing" from the cabling, and a cable the cabling finds moved is
// not also judged as a link (its result is a skip that points there).
//
// Nodes are recognised on the wire by GUID when the fabric declares one
// (a switch's guid, a host's portGuids), else by NodeDescription: a switch's
// is its name, an HCA's starts with its host's name (then the HCA's device
// name for HOST/HCA nodes), as Linux's rdma-ndd and ibsim write them.
//
// Everything here is pure and safe for concurrent use.
package ibfabric
