// Command localize is the localisation benchmark of bench/localize.sh: it
// runs the localiser (checks/localize) against a SIMULATED two-tier Clos
// fabric (testkit/localizesim: 1,024 hosts, 32 leaves, 8 spines,
// ECMP paths the localiser does not see) with no fault (a healthy fabric
// must show no suspect), then 1 and 3 random faults, TRIALS times each, and
// prints one line per setting:
//
//	localize: hosts=1024 faults=K trials=T exact=X ambiguous=Y wrong=Z rounds=R
//
// exact, ambiguous and wrong are fractions of the trials (docs/localisation.md
// defines them); rounds is the most rounds any trial ran (the topology
// schedule's 4 plus the re-tests the localiser chose). Environment:
// TRIALS (default 100), SEED (default 1), EVIDENCE=switches (default: host
// and switch port counters) or hosts (host counters only, what part A reads),
// SILENT (share of link faults that count no error, default 0), FAULTS
// (comma-separated fault counts, default 0,1,3).
package main
