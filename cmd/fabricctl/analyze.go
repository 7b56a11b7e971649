package main

import (
	"fmt"
	"slices"

	"github.com/spf13/cobra"

	"github.com/fabricctl/fabricctl/checks"
	"github.com/fabricctl/fabricctl/checks/analyze"
	"github.com/fabricctl/fabricctl/internal/output"
)

func newAnalyzeCmd(g *globals) *cobra.Command {
	var expect, fabricPath string
	cmd := &cobra.Command{
		Use:   "analyze FILE...",
		Short: "Judge captured tool outputs, each file by its content (NCCL logs, perftest, nvidia-smi, ibstat, lspci …)",
		Long: `analyze reads each FILE, tells from its content which tool printed it (NCCL_DEBUG=INFO logs
with any launcher prefixes, PyTorch NCCL watchdog lines, NCCL RAS reports, nccl-tests, perftest
text and --out_json, nvidia-smi topo -m, nvidia-smi -q, nvidia-smi nvlink -s/-e, ibv_devinfo,
ibstat, show_gids, ibdev2netdev, iblinkinfo, lspci -vvv, NHC logs) and reports per file its
kind, its findings (pass, warn, fail, skip, error) and its facts. A file that cannot be read is
one error entry; the others are analysed all the same. "-" reads standard input.
A figure (perftest bandwidth or latency, nccl-tests bus bandwidth) is judged only against a
yardstick: --expect busbw=GB/s,bw=Gb/s,lat=µs, or the fabric file's (-f FILE) pairwise/loopback portRate,
minPercentOfPortRate and maxLatency; without one it is reported with status skip, never pass.
Exit 0 when nothing failed, 2 when a finding failed, 1 when a file could not be read or parsed.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := output.Check(g.output); err != nil {
				return err
			}
			var opt analyze.Options
			if expect != "" {
				e, err := analyze.ParseExpect(expect)
				if err != nil {
					return fmt.Errorf("--expect: %w", err)
				}
				opt.Expect = e
			}
			if slices.Contains(args, stdinArg) {
				if err := stdinTaken(fabricPath, "the FILE - is read", "give the fabric or that FILE as a file"); err != nil {
					return err
				}
			}
			if fabricPath != "" {
				f, err := g.loadFabric(cmd.Context(), fabricPath)
				if err != nil {
					return err
				}
				opt.Expect = opt.Expect.Or(analyze.FabricExpect(f))
			}
			ctx, cancel := commandContext(cmd, g)
			defer cancel()
			rep, err := analyze.ReadFiles(ctx, g.stdin, args, opt)
			if err != nil {
				return err
			}
			if err := output.Write(g.stdout, g.output, rep, rep.Table); err != nil {
				return fmt.Errorf("writing the analysis: %w", err)
			}
			switch rep.Worst() {
			case checks.StatusError:
				return exitCodeError{exitError}
			case checks.StatusFail:
				return exitCodeError{exitChanges}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&expect, "expect", "", "yardsticks for figures: busbw=GB/s (nccl-tests), bw=Gb/s (perftest), lat=µs (perftest), comma-separated")
	cmd.Flags().StringVarP(&fabricPath, "file", "f", "", "take perftest yardsticks from this fabric's checks (pairwise/loopback portRate, minPercentOfPortRate, maxLatency; - reads standard input)")
	return cmd
}
