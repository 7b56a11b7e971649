package main

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/fabricctl/fabricctl/action/launch/task"
	"github.com/fabricctl/fabricctl/checks/collective"
)

func newTaskCmd(g *globals) *cobra.Command {
	var node string
	var hf hostFlags
	cmd := &cobra.Command{
		Use:    "task SPEC...",
		Hidden: true,
		Short:  "Run this node's part of a launcher step (what srun and the Kubernetes Jobs run on every node)",
		Long: `A launcher (fabricctl check --launcher slurm, the Jobs of fabricctl k8s render) runs the same
"fabricctl task SPEC..." on every node of a step; each task finds its own part of the step by its
node name (--node, $SLURMD_NODENAME, $NODE_NAME, the host name), runs it in-process and prints
its result as FABRICCTL-TASK lines on stdout. Exit 0 when the result was written.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, cancel := commandContext(cmd, g)
			defer cancel()
			n := task.NodeName(node, os.Getenv, os.Hostname)
			if err := task.CheckNodeName(n); err != nil {
				return err
			}
			spec, err := task.DecodeArgs(args)
			if err != nil {
				if werr := task.WriteResult(g.stdout, task.Result{Node: n, Error: err.Error()}); werr != nil {
					return werr
				}
				return err
			}
			env := task.Env{Node: n, NCCL: &collective.Node{}}
			env.Gatherer, env.Agent = hf.checkers(g)
			return task.WriteResult(g.stdout, task.Run(ctx, spec, env))
		},
	}
	cmd.Flags().StringVar(&node, "node", "", "this node's name in the step (default $SLURMD_NODENAME, $NODE_NAME, the host name)")
	hf.registerRoots(cmd)
	return cmd
}
