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
//	ib-completion-error   "Got completion … with error 12" in every NCCL era, also
//	                      inside PyTorch's "Last error:" (RETRY_EXC_ERR named)
//	qp-error              ibv_modify_qp failed (GID, MTU, routing)
//	connect-error         the out-of-band socket connection failed
//	nccl-error            an NCCL call failed: the line's class in NCCL's ncclResult_t,
//	                      by name, by ncclGetErrorString's text, by "retcode N" or by
//	                      NCCLCHECK's "file.cc:123 -> N" back-trace; a failed system call
//	                      (strerror text), a CUDA failure, a timeout, an abort
//	ib-async-event        an IB async event by its ibv_event_type_str name: fatal ones
//	                      (local catastrophic error, QP/CQ/SRQ errors, port error) fail,
//	                      the others (port active, LID/GID/SM change) warn: a flap
//	collective-timeout    PyTorch's watchdog timed a collective out (ALLREDUCE, …)
//	watchdog-hang         PyTorch's watchdog itself got stuck
//	ras-mismatch          NCCL RAS: ranks disagree on a collective's count (a hang)
//	ras-error             NCCL RAS: missing, dead or failed ranks
//	unclassified-warning  a WARN line no class of the taxonomy fits, quoted: it is
//	                      never dropped, and never read as fine
//	no-gdrdma             NET/IB channels without /GDRDMA
//	duplicate-rank        nccl-tests printing one rank on several hosts (no MPI=1 build)
//	wrong-results         nccl-tests #wrong or out-of-bounds values
//	busbw-collapse        bus bandwidth halving at larger message sizes
//	net-within-host       ranks of one host connected through NET (NCCL took
//	                      them for different nodes)
//	no-p2p                local ranks connected through host memory (SHM)
//	nic-distance          old NCCL's NIC distance is PHB, NODE or SYS: GPUDirect
//	                      RDMA crosses the CPU
//	bad-number            a figure no number its field holds (a rank or nNodes of
//	                      1e23, a GRAPH bandwidth past float64, an nccl-tests size,
//	                      bandwidth or footer count that is NaN, infinite, negative
//	                      or too large): status error, the line not read, never 0
//
// The taxonomy (taxonomy.go, Classify) is taken from the libraries' sources:
// ncclResult_t from NCCL 2.30.7's src/nccl.h.in and ncclGetErrorString in
// src/init.cc, the back-trace format from src/include/checks.h, the async
// events NCCL's IB transport reports from src/transport/net_ib/common.cc,
// and the event and completion-status names from rdma-core 65's
// libibverbs/enum_strs.c.
//
// Each host's Links say, per pair of ranks, which transport carried how many
// channels and whether the link stays in the node (P2P, SHM, NVLS) or crosses
// nodes (NET); its Paths are NCCL's topology search results
// (NCCL_DEBUG_SUBSYS=GRAPH: "type NVL/PIX" = GPUs over NVLink, NICs behind one
// PCIe switch) and NVLink says whether NCCL's topology shows an NVLink.
//
// Use:
//
//	a, err := nccl.Analyze(nccl.Options{}, nccl.Source{Name: "job.log", R: f})
//	for _, f := range a.Findings { fmt.Println(f.Status, f.Host, f.Kind, f.Message, f.Where) }
//	results := a.Results() // one checks.Result per host, for reports
//
// AnalyzeFiles does the same for paths ("-" is stdin), listing a log that cannot be opened
// among Analysis.Errors; NewReport and Analysis.Table are what `fabricctl nccl analyze` prints.
//
// Lines may carry launcher prefixes before NCCL's own "host:pid:tid [dev]",
// several at once: mpirun --tag-output "[1,0]<stdout>:", srun -l "0: ", pdsh
// "host: " or "10.1.2.3: ", Ray "(RayWorkerWrapper pid=…, ip=…) ", torchrun
// "[default0]:" and PyTorch's "[rank3]:", kubectl logs --prefix
// "[pod/NAME/CONTAINER] ", timestamps, syslog and Python logging; terminal
// escapes are dropped. Where no known prefix fits, NCCL's own prefix is
// looked for further in. The unprefixed "NCCL version" banner belongs to the
// process that printed last on the same launcher stream.
//
// Processes are told apart by hostname, pid and rank; processes of one
// hostname on different machines (pods and containers share hostnames) are
// told apart by the machine a launcher prefix names or by disjoint bootstrap
// addresses, and are then reported as "host [machine]". Lines without any
// host are gathered under UnknownHost. Each finding says where it was first
// seen ("file:line") and, for repeats, how often; past 100 findings of one
// kind with different messages from one process, the rest are counted in
// one finding, not listed. A log that cannot be read
// or holds no NCCL output is listed in Analysis.Errors; the others are still
// analysed.
//
// Memory grows with the hosts, not the lines: a process's lines go straight
// into its machine's state, what is kept is interned or copied (never the
// line it was cut from), and 50,000 hosts of two ranks each cost about
// 1.7 KB apiece in the Analysis and about 260 MB of RSS at the peak.
//
// Analyze is pure (readers in, values out) and safe for concurrent use; so is AnalyzeFiles.
package nccl
