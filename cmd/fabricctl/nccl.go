package main

import (
	"errors"
	"fmt"
	"github.com/fabricctl/fabricctl/internal/ctxio"
	"sort"
	"strings"

	"github.com/fabricctl/fabricctl/checks/nccl"
	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/internal/output"
	"github.com/spf13/cobra"
)

// ncclReport is what `fabricctl nccl analyze` prints.
type ncclReport struct {
	APIVersion string   `json:"apiVersion"`
	Kind       string   `json:"kind"`
	Logs       []string `json:"logs"`
	Clean      bool     `json:"clean"`
	*nccl.Analysis
}

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
			a, err := analyzeLogs(cmd, g, opt, args)
			if err != nil {
				return err
			}
			rep := ncclReport{APIVersion: fabric.APIVersion, Kind: "NCCLAnalysis", Logs: args, Clean: a.Clean(), Analysis: a}
			if err := output.Write(g.stdout, g.output, rep, func(t *output.TableWriter) { ncclTable(t, a) }); err != nil {
				return fmt.Errorf("writing the analysis: %w", err)
			}
			for _, e := range a.Errors {
				fmt.Fprintf(g.stderr, "fabricctl: %v\n", e)
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

// analyzeLogs opens every log ("-" is stdin) and analyses them together; a
// log that cannot be opened is listed among the analysis' errors, like one
// without NCCL output, and the others are analysed all the same.
func analyzeLogs(cmd *cobra.Command, g *globals, opt nccl.Options, paths []string) (*nccl.Analysis, error) {
	var srcs []nccl.Source
	var unopened []nccl.SourceError
	for _, p := range paths {
		if err := cmd.Context().Err(); err != nil {
			return nil, err
		}
		if p == "-" {
			srcs = append(srcs, nccl.Source{Name: "stdin", R: ctxio.NewReader(cmd.Context(), g.stdin)})
			continue
		}
		f, err := ctxio.Open(cmd.Context(), p) // a pipe may never get its writer
		if cerr := cmd.Context().Err(); cerr != nil {
			return nil, cerr
		}
		if err != nil {
			err = fmt.Errorf("opening NCCL log: %w", err)
			unopened = append(unopened, nccl.SourceError{Source: p, Message: err.Error(), Err: err})
			continue
		}
		defer f.Close()
		srcs = append(srcs, nccl.Source{Name: p, R: f})
	}
	a, err := nccl.Analyze(opt, srcs...)
	a.Errors = append(unopened, a.Errors...)
	if err != nil || len(srcs) == 0 {
		var errs []error
		for _, e := range a.Errors {
			errs = append(errs, e)
		}
		return nil, errors.Join(errs...)
	}
	return a, nil
}

// ncclTable prints one line per host, then one per finding.
func ncclTable(t *output.TableWriter, a *nccl.Analysis) {
	t.Row("HOST", "VERSION", "NETWORK", "IB DEVICES", "OOB", "TRANSPORTS", "GDRDMA", "RANKS")
	for _, h := range a.Hosts {
		var devs, oob []string
		for _, d := range h.IBDevices {
			devs = append(devs, d.String())
		}
		for _, i := range h.OOB {
			oob = append(oob, i.String())
		}
		var tr []string
		for name, n := range h.Transports {
			tr = append(tr, fmt.Sprintf("%s×%d", name, n))
		}
		sort.Strings(tr)
		gdr := h.GDRDMA
		if len(devs) > 4 {
			devs = append(devs[:3], fmt.Sprintf("+%d more", len(devs)-3))
		}
		t.Row(h.Name, dash(h.Versions), dash(h.Networks), dash(devs), dash(oob), dash(tr), gdr, ranks(h.Ranks))
	}
	t.Row()
	if a.Clean() {
		t.Row("no findings")
		return
	}
	t.Row("STATUS", "FINDING", "HOST", "WHERE", "MESSAGE")
	for _, f := range a.Findings {
		host := f.Host
		if host == "" {
			host = "(all)"
		}
		msg := f.Message
		if f.Count > 1 {
			msg += fmt.Sprintf(" (%d times)", f.Count)
		}
		t.Row(strings.ToUpper(string(f.Status)), f.Kind, host, f.Where, msg)
	}
}

func dash(s []string) string {
	if len(s) == 0 {
		return "-"
	}
	return strings.Join(s, ",")
}

// ranks prints 0,1,2,5 as "0-2,5".
func ranks(r []int) string {
	if len(r) == 0 {
		return "-"
	}
	var parts []string
	for i := 0; i < len(r); {
		j := i
		for j+1 < len(r) && r[j+1] == r[j]+1 {
			j++
		}
		if j > i {
			parts = append(parts, fmt.Sprintf("%d-%d", r[i], r[j]))
		} else {
			parts = append(parts, fmt.Sprint(r[i]))
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}
