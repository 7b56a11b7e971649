package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/fabricctl/fabricctl/checks/nccl"
	"github.com/fabricctl/fabricctl/internal/output"
)

func newNCCLCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "nccl",
		Short: "Analyse NCCL logs",
	}
	cmd.AddCommand(newNCCLAnalyzeCmd(g))
	return cmd
}

func newNCCLAnalyzeCmd(g *globals) *cobra.Command {
	var opt nccl.Options
	cmd := &cobra.Command{
		Use:   "analyze LOG...",
		Short: "Report what NCCL chose on each host and what is wrong (NCCL_DEBUG=INFO logs, nccl-tests output)",
		Long: `Read NCCL_DEBUG=INFO logs (any mix of hosts and ranks, with or without mpirun/srun
prefixes) and nccl-tests output, and report per host the NCCL version, the network
chosen, NET/IB devices, bootstrap and OOB interfaces, per-channel transports and
GPUDirect RDMA, followed by the findings: socket fallback, "NET/IB : No device found",
version skew, unexpected interfaces, IB completion errors, NCCL warnings, and
nccl-tests wrong results or bandwidth collapse. "-" reads standard input.
Exit 0 when clean, 2 when there are findings, 1 on error.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := output.Check(g.output); err != nil {
				return err
			}
			ctx, cancel := commandContext(cmd, g)
			defer cancel()
			a, err := nccl.AnalyzeFiles(ctx, g.stdin, opt, args)
			if err != nil {
				return err
			}
			if err := output.Write(g.stdout, g.output, nccl.NewReport(args, a), a.Table); err != nil {
				return fmt.Errorf("writing the analysis: %w", err)
			}
			for _, e := range a.Errors {
				fmt.Fprintf(g.stderr, "fabricctl: %s\n", output.PrintableLines(e.Error()))
			}
			switch {
			case len(a.Errors) > 0:
				return exitCodeError{exitError}
			case !a.Clean():
				return exitCodeError{exitChanges}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.BoolVar(&opt.AllowSocket, "allow-socket", false, "the socket transport is expected (no RDMA): do not report socket fallback")
	f.StringSliceVar(&opt.Interfaces, "interfaces", nil, "the only interfaces NCCL should use for bootstrap, OOB and sockets")
	f.StringSliceVar(&opt.HCAs, "hcas", nil, "the only RDMA devices NET/IB should use")
	return cmd
}
