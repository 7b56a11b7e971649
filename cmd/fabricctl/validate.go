package main

import (
	"errors"
	"fmt"

	"github.com/fabricctl/fabricctl/action/validate"
	"github.com/fabricctl/fabricctl/internal/output"
	"github.com/spf13/cobra"
)

// validateResult is the document validate prints with -o json or yaml.
type validateResult = validate.Result

func newValidateCmd(g *globals) *cobra.Command {
	var file string
	cmd := &cobra.Command{
		Use:   "validate -f FILE",
		Short: "Load and validate a fabric or profile file (no network)",
		Long: `Load a fabric (or a profile) file with its includes, decode it strictly and check
every rule. Every finding is printed to stderr as FILE:LINE:COL: PATH: message;
warnings (risky intents such as a lossless class without a PFC watchdog) read
FILE:LINE:COL: PATH: warning: message [code]. With -o json or -o yaml the
findings are in the document on stdout instead ("diagnostics", each with its
severity, code, file, line, column and path), valid or not.
Exit 0 when valid (warnings or not), 1 when not.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := output.Check(g.output); err != nil {
				return err
			}
			if file == "" {
				return errors.New("no fabric file: give -f FILE (- reads standard input)")
			}
			o := validate.Options{Registry: switchRegistry()}
			if file == stdinArg {
				ctx, cancel := commandContext(cmd, g)
				defer cancel()
				data, err := readStdinFabric(ctx, g)
				if err != nil {
					return err
				}
				file, o.Data = stdinName, data
			}
			res := validate.Run(file, o)
			if g.output != output.Table {
				if err := output.Write(g.stdout, g.output, res, nil); err != nil {
					return err
				}
				if !res.Valid {
					return exitCodeError{exitError}
				}
				return nil
			}
			for _, d := range res.Diagnostics {
				fmt.Fprintln(g.stderr, d.String())
			}
			if !res.Valid {
				fmt.Fprintln(g.stderr, res.Summary())
				return exitCodeError{exitError}
			}
			return output.Write(g.stdout, g.output, res, func(t *output.TableWriter) {
				name := res.Fabric
				if name == "" {
					name = "(profiles only)"
				}
				fmt.Fprintln(g.stdout, res.Summary())
				t.Row("fabric", name)
				t.Row("profiles", fmt.Sprint(res.Profiles))
				t.Row("hosts", res.Hosts)
				t.Row("switches", res.Switches)
				t.Row("subnet managers", res.SubnetManagers)
			})
		},
	}
	cmd.Flags().StringVarP(&file, "file", "f", "", "fabric or profile file (- reads standard input)")
	return cmd
}
