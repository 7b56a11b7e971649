// Package slurm runs fabricctl's checks through Slurm and keeps Slurm's node states in line with
// the verdicts, the way LBNL NHC does.
//
// The Launcher implements action/check's Launcher: the preflight is one srun step on every
// node, each round of RDMA tests one srun step on the round's nodes. Every task runs the same
// `fabricctl task SPEC…` (the step's spec, action/launch/task) and finds its part by SLURMD_NODENAME;
// srun gathers the framed results:
//
//	l := &slurm.Launcher{Run: slurm.Exec{}, Partition: "gpu", Node: nodeOf}
//	rep, err := check.Run(ctx, name, hosts, check.Options{Launcher: l})
//	actions, err := slurm.Reconcile(ctx, slurm.Client{Run: slurm.Exec{}}, rep.HostVerdicts(names), nodeOf, false)
//
// Launcher.NCCL is the NCCL suite's executor (collective.Executor, action/check's NCCLLauncher):
// the probe is one srun step on every node, the all-reduce one step of one task per node (torchrun
// with the c10d rendezvous at the first host, or all_reduce_perf on a single host), each task
// returning its ranks' NCCL logs in its framed result. A step whose context ends (^C, its bound)
// is also cancelled on Slurm's side: CancelStep finds it by name in squeue and scancels it.
//
// Before the steps the Launcher asks scontrol which nodes Slurm would run them on: outside an
// allocation a drained, down or not responding node is reported (an error, not a failure) and
// its tests are not run; inside one (Allocation, SLURM_JOB_ID) steps also run on its draining
// nodes. Hosts map to nodes by the label NodeLabel (fabricctl.io/slurm-node), else by name.
//
// Reconcile drains the node of every failed host with "fabricctl: <reason>" and resumes the nodes
// fabricctl drained that pass again; nodes drained by anyone else keep their reason.
//
// Sweep is `fabricctl check --launcher slurm` around the runner it is given (hosts to nodes, the
// allocation's nodes, the step log, the drains), after Launcher.Validate (partition, reservation,
// node binary, job id) and CheckNodeName on every host's node; DrainSelf is
// `check --local -o nhc --drain`, one node's own drain or resume after its health check, on
// SelfNode ($SLURMD_NODENAME).
//
// The pure parts — ParseNodes (scontrol show node), ExpandHostlist/CompressHostlist, the srun
// command line (SrunArgs) — are golden- and fuzz-tested; slurmsim is a simulated Slurm for the
// Launcher's tests and the 10,000-node benchmark; the real Slurm runs in the soft-RoCE lab.
//
// A Client and Exec are safe for concurrent use; a Launcher serves one sweep at a time.
package slurm
