// Package collective is the NCCL collective sanity check, `fabricctl check
// --suite nccl`: an all-reduce across the fabric's hosts with NCCL_DEBUG=INFO
// (NCCL_DEBUG_SUBSYS=INIT,NET,GRAPH,ENV), every rank's log collected and
// analysed (checks/nccl), and verdicts on what users need to know before a
// training job:
//
//	nccl/run          per host: did its part run (skip: no GPU, CUDA or PyTorch, with the reason)
//	nccl/correctness  every rank summed rank+1 to n(n+1)/2 at every size (or nccl-tests' own check)
//	nccl/transport    per host: P2P/NVLink (or NVLS) within the node, NET/IB with GPUDirect RDMA
//	                  across nodes; SHM and NET between local ranks warn, NET/Socket fails
//	                  unless spec.checks.nccl.allowSocket
//	nccl/busbw        the best bus bandwidth (algbw × 2(n−1)/n) against the rate of the NICs NCCL
//	                  used on the slowest host; below the floor while perftest passed, perftest
//	                  runs again with NCCL's GID index and traffic class (nccl/perftest-rerun)
//	nccl/env          per host: NCCL_IB_GID_INDEX against the RoCE v2 GID preflight found,
//	                  NCCL_IB_TC against the lossless class, NCCL_IB_HCA against the fabric's
//	                  RDMA devices, the bootstrap interface against the OOB interface
//	nccl/log          per host: every other finding of the log analysis
//
// The test is nccl-tests' all_reduce_perf when installed on a single host,
// otherwise Script — fabricctl's own PyTorch program, embedded in the binary
// and run with torchrun (python -m torch.distributed.run): it all-reduces a
// tensor of rank+1 from 8 B to 1 GiB, checks every element and times each size.
//
// The host side is a Node: Probe says what the host can run (GPUs from
// nvidia-smi, nvidia-smi topo -m, PyTorch and the NCCL it loads,
// all_reduce_perf), Run runs the host's part in its own process group with
// NCCL_DEBUG_FILE per process and returns the logs, bounded. Register serves
// both as agent ops (nccl-probe, nccl-run). The controller side, Run, reaches
// the Nodes through an Executor — the launcher seam:
//
//	exec := collective.Agents(agents)                 // each host's agent over SSH
//	exec := collective.InProcess{}                    // this host (check --local)
//	out, err := collective.Run(ctx, hosts, collective.Options{Config: *f.Spec.Checks.NCCL, Executor: exec})
//	rep.Add(out.Results...)
//
// A workload manager's launcher is a third Executor with Node on the far side:
// action/launch/slurm's Launcher.NCCL runs the probe and the job as srun steps of
// `fabricctl task`, one task per node; its torchrun jobs over several nodes
// meet through the c10d rendezvous (Spec.Rendezvous), so every node runs the
// same command.
//
// Node and Run are safe for concurrent use; Run calls Options.Progress from
// its own goroutine.
package collective
