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
// (comma-separated fault counts, default 0,1,3), MODELS (the fault models,
// localizesim.FaultModel: easy, gray, intermittent, incidents, mixed or
// all; default easy); EVIDENCE may also be hosts-paths (pinned, known
// paths, host counters) or switch-paths (pinned, known paths and switch
// counters: check's own setting on a fabric with deterministic ECMP). Every Ethernet setting also prints issue 32's
// line (below) with model= and evidence=, judged against the smallest
// sets no end-to-end test can split, and per fault kind (kind=) for one
// fault; VERBOSE=1 lists the unresolved trials, and how many of the
// trials that named no suspect held a fault in Result.Possible.
//
// Then the same settings on the fabric as InfiniBand (localizesim.IB:
// routes from D-mod-K forwarding tables, IB faults, every port's
// counters), one line each in issue 32's form:
//
//	localize: hosts=1024 faults=K model=ib evidence=ib trials=T exact=X resolved=Y missed=Z misblamed=W candidates=C rounds=R
//
// resolved is exact or ambiguous; missed, a fault in no reported set;
// misblamed, a reported set without a fault; candidates, the components
// named per trial. IB=0 leaves them out, IB=only prints only them;
// VERBOSE=1 lists their trials that were not exact, and stderr the
// one-fault figures per fault kind.
//
// DRIVER picks how every trial drives the localiser after the schedule's
// rounds. run (the default) is localize.Run: 8 re-test rounds always,
// which also screen the hosts no re-test uses. refine is what fabricctl
// check does (action/check.LocalizeRouted): the schedule's results in a
// localize.Localizer, the counters read once, then localize.Refine with
// at most REFINE_ROUNDS rounds (default check's own bound,
// fabric.DefaultLocalizeRounds, 3; 8 matches Run), its rounds also
// screening idle hosts as check's do (localize.Options.Screen; SCREEN=0
// screens none), re-testing only while the
// suspects are ambiguous, and stopping early (nothing failed, exact
// suspects, nothing left to split); rounds then counts the schedule's and
// the re-tests actually run. With DRIVER=refine every figure line
// (stdout and stderr) ends with " driver=refine"; DRIVER=run prints
// what an unset DRIVER does. Any other value is an error.
package main
