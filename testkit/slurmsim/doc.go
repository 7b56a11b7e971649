// Package slurmsim is a simulated Slurm for tests and scale measurements: a slurm.Runner that
// answers scontrol (show node, update), squeue (a job's nodes; running steps and jobs by name),
// scancel and srun the way Slurm 22.05 does, without daemons. srun decodes the task spec from its argv, asks Task for every node's
// result and prints the framed results interleaved line by line, as srun multiplexes real
// tasks' output. Silent, Dies and Hangs make a node's task die or hang, as a crashed rank or a
// step whose tasks outlive their srun until scancel. It is a test double: the real Slurm runs in the soft-RoCE lab (lab/slurm.go).
//
//	c := slurmsim.New("gpu[001-128]")
//	c.Task = func(node string, s task.Spec) task.Result { … }
//	l := &slurm.Launcher{Run: c}
//
// A Cluster is safe for concurrent use.
package slurmsim
