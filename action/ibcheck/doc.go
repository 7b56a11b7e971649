// Package ibcheck runs the InfiniBand fabric checks from one vantage node:
// `fabricctl check --local --suite ib -f FABRIC`. It runs the
// infiniband-diags on this machine (ibnetdiscover -p, iblinkinfo, sminfo
// twice, saquery SMIR, ibqueryerrors --skip-sl, and smpquery pkeys for
// every CA port through switchcfg/opensm's FabricReader), parses their
// output with checks/ibdiag and has checks/ibfabric judge it against the
// fabric's declared InfiniBand cabling, subnet managers and partitions.
//
//	out, err := ibcheck.Run(ctx, f, ibcheck.Options{})   // this host's HCA, this environment
//	rep.Add(out.Results...); rep.Topology, rep.Cabling = out.Topology, out.Cabling
//
// Baseline reads the error counters before other suites run; with it in
// Options.Before, Run judges what grew in between (checklocal does this
// when ib runs beside other suites).
//
// In InfiniBand one node reads the whole subnet (every switch port's
// counters and state, every SM), so one vantage host checks the fabric.
// The tools inherit this process's environment: under the InfiniBand lab
// (umad2sim) LD_PRELOAD and IBSIM_SOCKNAME reach the simulated fabric.
// Options.Env and Options.Dir add to it and choose the working directory.
// Options.Runner says where the tools run: nil is ExecRunner (this
// machine, Env and Dir); AgentRunner runs each tool on a vantage host
// through its agent's ib-diag op (checks/rdma OpIBDiag), which runs only
// the tools and argument shapes of rdma.CheckIBDiag — AgentRunner refuses
// anything else before sending it. `fabricctl check --suite ib` (the fleet
// path, action/check) reads a real fabric that way:
//
//	o := ibcheck.Options{Runner: ibcheck.AgentRunner{Agent: h.Agent, Host: h.Intent.Host}, Vantage: h.Intent.Host}
//
// Run is safe for concurrent use; ibsim serves 10 clients, so keep
// Parallel low when several run against one lab.
package ibcheck
