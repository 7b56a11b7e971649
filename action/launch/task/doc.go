// Package task is the node side of a launcher step and its wire format. A launcher (Slurm's
// srun, a Kubernetes Indexed Job) starts the same command on every node of a step:
//
//	fabricctl task SPEC…
//
// SPEC is the whole step (EncodeArgs: gzip'd JSON in URL-safe base64, cut into arguments of at
// most 64 KiB): the preflight hosts with their desired state, a round's jobs (server and client
// node, device, GID index, TCP port), or an NCCL step's nodes (the probe's arguments, or every
// node's part of the all-reduce: collective.Spec). Each task finds its part by its node name, runs
// it in-process (Run: the preflight Gatherer, rdma.Agent.RunSide, collective.Node's Probe or Run)
// and prints its Result framed:
//
//	FABRICCTL-TASK v1 NODE SEQ/TOTAL PAYLOAD
//
// lines below 512 bytes, so a launcher that forwards output line by line keeps each whole however
// the tasks interleave. Collect reads them back; PreflightSpec/Facts and RoundSpec/Runs turn
// controller-side values into specs and results into preflight facts and rdma.PairRuns;
// NCCLProbeSpec/NCCLProbes and NCCLRunSpec/NCCLResults do the same for the NCCL suite.
//
// NodeName is the node name a task goes by (--node, $SLURMD_NODENAME, $NODE_NAME, the host name).
//
// Decoding is strict (unknown fields, another Version, a kind without its parts are ErrSpec);
// a frame that cannot be read is ErrFrame naming its node. Specs and results are bounded before
// they are decoded: a first pass inflates the JSON without keeping it, refusing it (ErrTooLarge)
// as soon as it passes MaxJSON bytes or its decoded form would pass MaxDecoded bytes of memory
// (an estimate from the Go types it decodes into: a gzip bomb or a list of a million `{}` costs
// a few kilobytes to refuse); Collect keeps only the frames that came, at most 400 bytes each.
// A spec naming a device or netdev by a path, a node or host with white space or control
// characters, or a port or duration out of range is ErrSpec; CheckNodeName is the rule for node
// names (WriteResult and Collect apply it). All functions are safe for concurrent use.
package task
