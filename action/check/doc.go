// Package check is `fabricctl check` across a fabric's hosts: it runs the
// suites (preflight, loopback, pairwise, NCCL) through the hosts' agents or a
// launcher, reads the switches' LLDP tables and port error counters, re-tests
// and localises failures, and assembles the report.
//
//	hosts := []check.Host{{Intent: intent, Agent: agent}, …} // one per fabric host (action/fleet.Hosts)
//	rep, err := check.Run(ctx, "lab", hosts, check.Options{
//		Suites:   []report.Suite{report.SuitePreflight, report.SuitePairwise},
//		Checks:   f.Spec.Checks,
//		Progress: func(format string, a ...any) { fmt.Fprintf(os.Stderr, format+"\n", a...) },
//	})
//	report.WriteTable(os.Stdout, rep)
//
// The fabric's spec.checks is the policy: test, duration, message size,
// both ways or not, floors (portRate, minPercentOfPortRate,
// minPercentOfBest), latency bound, retries of measurement failures,
// re-tests and counter rules (fabric.Checks; docs/fabric-yaml.md#checks).
//
// Run asks every host's agent for its preflight facts at once (the RDMA
// tests need each host's device, port and RoCE v2 GID index from them), then
// runs the loopback test on every host at once, then the pairwise sweep
// round by round (checks/rdma), and finally asks every agent to kill stray
// perftest processes. Hosts the pairwise re-tests blame are reported as
// results of their own (rdma.IDHost). A host that cannot be used (agent
// unreachable, port down, no RoCE v2 GID) turns its tests into failures
// with that cause; the sweep goes on with the others. Pairwise results become report Pairs (the
// heatmap), the rest report Results.
//
// With Options.Topology (the fabric's declared cabling) the pairwise results
// are localised (Localize, checks/localize): when pairs failed and the
// suspects are ambiguous — a suspect with alternatives, or failing pairs
// that name no suspect — the localiser's re-tests run through the same
// sweep (rdma.Sweep.Extra: its test, retries, ports, executor; no NIC in
// two tests of a round), round after round up to
// spec.checks.pairwise.localizeRounds (default 3), stopping once the
// suspects are exact or no test can split them. They go into
// Report.Retests with the ambiguity each round split; they change no
// verdict.
//
// With report.SuiteIncast the congestion suite runs after the sweeps
// (incast.go): the rounds of IncastPlan, each sender's ib_write_bw to its
// receiver at once on the RoCE traffic class (rdma.Sweep.Incast), the
// participating hosts' counters (through their agents, as action/counters
// reads them) and the switches' congestion counters (Options.Incast,
// NewIncastSwitchSource) read before and after every round and judged by
// checks/congestion; Report.Congestion says which counters proved what.
//
// With report.SuiteNCCL the NCCL all-reduce runs last (checks/collective),
// through the hosts' agents or Options.NCCLExecutor, with the preflight facts
// for its environment verdicts and the pairwise results for "NCCL is slow but
// perftest passed".
//
// With Options.Launcher (action/launch/slurm's srun launcher) the host side runs through a workload
// manager instead: the preflight as one step on every host, the loopback and every round as one
// step each; the hosts' Agents are not used and there is nothing to clean up.
//
// With Options.SwitchCounters (NewSwitchCounterSource: every switch of the fabric over
// the plan/apply sessions of action/fleet) the switches' port error
// counters are read before the pairwise sweep and again for the localiser (Localize, after
// the sweep and after every re-test round); what grew on a cabled switch port is counter
// evidence (SwitchCounters.Evidence, localize.Deltas), and the report says which switches
// were read.
//
// With Options.Neighbors (NewNeighborSource) the switches' own LLDP tables join the hosts'
// as the discovered cabling that the declared one is checked against.
//
// EstimateRun (for Run) and EstimateFabric (for RunFabric) say beforehand
// what a run will do — the hosts, the suites, the pairwise schedule's rounds
// and runs, the re-test rounds allowed for — and about how long it takes
// (Estimate.Sweep: each round the test's duration plus RoundSetup), from the
// same options and schedule; Estimate.Limit is the time limit derived from
// it, which fabricctl check runs under unless --timeout is given.
//
// Run is safe for concurrent use with distinct hosts or BasePorts. It calls
// Options.Progress from one goroutine at a time, though steps finish on many.
package check
