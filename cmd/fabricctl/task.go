package main

import (
	"context"
	"os"

	"github.com/spf13/cobra"

	"github.com/fabricctl/fabricctl/checks/preflight"
	"github.com/fabricctl/fabricctl/checks/rdma"
	"github.com/fabricctl/fabricctl/checks/task"
	"github.com/fabricctl/fabricctl/hostcfg"
	"github.com/fabricctl/fabricctl/hostcfg/sysfs"
)

// nodeEnvs are where a task learns its node's name: Slurm's slurmstepd sets SLURMD_NODENAME,
// the Kubernetes manifests of `fabricctl k8s render` set NODE_NAME from spec.nodeName.
var nodeEnvs = []string{"SLURMD_NODENAME", "NODE_NAME"}

// taskNode is the node name: --node, else the first of nodeEnvs set, else the host name.
func taskNode(flag string) string {
	if flag != "" {
		return flag
	}
	for _, e := range nodeEnvs {
		if v := os.Getenv(e); v != "" {
			return v
		}
	}
	h, _ := os.Hostname()
	return h
}

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
			n := taskNode(node)
			spec, err := task.DecodeArgs(args)
			if err != nil {
				if werr := task.WriteResult(g.stdout, task.Result{Node: n, Error: err.Error()}); werr != nil {
					return werr
				}
				return err
			}
			env := task.Env{Node: n,
				Gatherer: &preflight.Gatherer{Open: func(ctx context.Context) (*hostcfg.Host, error) { return openHost(ctx, hf.options(g)) }},
				Agent:    &rdma.Agent{Sys: sysfs.NewFS(hf.sysRoot), StateDir: rdma.DefaultStateDir()},
			}
			return task.WriteResult(g.stdout, task.Run(ctx, spec, env))
		},
	}
	cmd.Flags().StringVar(&node, "node", "", "this node's name in the step (default $SLURMD_NODENAME, $NODE_NAME, the host name)")
	hf.registerRoots(cmd)
	return cmd
}
