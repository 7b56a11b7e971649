// Package local runs checks on the host it runs on, in process, without SSH
// or an agent: `fabricctl check --local`. It is the seam Slurm health checks,
// node-problem-detector plugins and job prologues call into.
//
//	g := &preflight.Gatherer{Open: openLocalHost}
//	rep, err := local.Run(ctx, local.Options{Gatherer: g}) // every RDMA netdev of this host
//	// rep.Results: preflight/rdma-device, preflight/port-active, preflight/gpu, …
//
// Without an intent the host checks every netdev that has an RDMA device; a
// host with none gets a clear preflight/rdma-device failure (no-device), not
// an error. With a fabric's HostIntent the host is judged against it, and the
// fabric's other hosts are the peers whose names must resolve.
//
// Run is safe for concurrent use as long as the Gatherers differ.
package local
