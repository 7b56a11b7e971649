// Package nccl analyses NCCL_DEBUG=INFO logs and nccl-tests output: what each
// host's NCCL chose (version, network, IB devices, bootstrap and OOB
// interfaces, per-channel transports, GPUDirect RDMA) and what is wrong
// (Findings):
//
//	socket-fallback       "Using network Socket", or channels via NET/Socket
//	no-ib-device          "NET/IB : No device found"
//	version-skew          hosts print different "NCCL version" banners
//	unexpected-interface  loopback, container overlays (flannel, docker, cni, …),
//	                      or interfaces outside Options.Interfaces
//	unexpected-hca        NET/IB devices outside Options.HCAs
//	mixed-link-layers     one NET/IB list mixing InfiniBand and RoCE ports
//	ib-completion-error   "Got completion from peer … with error 12" (RETRY_EXC_ERR named)
//	nccl-warning          any other WARN line
//	no-gdrdma             NET/IB channels without /GDRDMA
//	duplicate-rank        nccl-tests printing one rank on several hosts (no MPI=1 build)
//	wrong-results         nccl-tests #wrong or out-of-bounds values
//	busbw-collapse        bus bandwidth halving at larger message sizes
//
// Use:
//
//	a, err := nccl.Analyze(nccl.Options{}, nccl.Source{Name: "job.log", R: f})
//	for _, f := range a.Findings { fmt.Println(f.Status, f.Host, f.Kind, f.Message, f.Where) }
//	results := a.Results() // one checks.Result per host, for reports
//
// Lines may carry launcher prefixes (mpirun --tag-output "[1,0]<stdout>:",
// srun -l "0: ", "[rank] ") before NCCL's own "host:pid:tid [dev]". The
// unprefixed "NCCL version" banner belongs to the host that printed last on
// the same launcher stream. Lines without any host prefix are gathered under
// UnknownHost. Each finding says where it was first seen ("file:line") and,
// for repeats, how often.
//
// Analyze is pure (readers in, values out) and safe for concurrent use.
package nccl
