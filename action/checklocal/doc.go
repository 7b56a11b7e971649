// Package checklocal runs checks on the host it runs on, in process, without SSH
// or an agent: `fabricctl check --local`. It is the seam Slurm health checks,
// node-problem-detector plugins and job prologues call into.
//
//	g := &preflight.Gatherer{Open: openLocalHost}
//	rep, err := checklocal.Run(ctx, checklocal.Options{Gatherer: g}) // every RDMA netdev of this host
//	// rep.Results: preflight/rdma-device, preflight/port-active, preflight/gpu, …
//
// Without an intent the host checks every netdev that has an RDMA device; a
// host with none gets a clear preflight/rdma-device failure (no-device), not
// an error. With a fabric's HostIntent the host is judged against it, and the
// fabric's other hosts are the peers whose names must resolve.
//
// The loopback suite (Suites: preflight, loopback; Options.Agent runs perftest) tests the host's
// first usable port with both perftest sides here (rdma.Agent.RunLoopback) and judges it as the
// fleet's loopback is judged; a host without a usable port fails it with preflight's reason. Without
// the loopback suite a missing perftest is a warning, since nothing here would run it.
// FindHost picks which host of a fabric this machine is (by name, or by the node name a workload
// manager put in the environment: Scheduler, whose node names the caller supplies, so this package
// needs neither Slurm's nor Kubernetes' packages); Options.ForFabric fills in what the fabric says
// about checking that host (peers, expected port rate, loopback test).
// action/checklocal/nhc turns the report into a health check's answer (`-o nhc`).
//
// With report.SuiteNCCL it runs the NCCL all-reduce on this host
// (checks/collective, one rank per GPU) and judges NCCL's environment
// against the host's facts; a host without GPU, CUDA or PyTorch skips it.
//
// With report.SuiteIB it checks the whole InfiniBand fabric from this node (action/ibcheck:
// the infiniband-diags run here, judged by checks/ibfabric against the fabric's declared
// cabling, subnet managers and partitions); the report then carries the declared IB topology
// and its cabling findings. The ib suite alone (Options.ForIB) gathers no host facts and
// needs no fabric host to be this machine: any node of the subnet is a vantage point.
//
// Run is safe for concurrent use as long as the Gatherers (and Agents' TCP ports) differ.
package checklocal
