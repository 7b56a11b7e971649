package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/internal/output"
	"github.com/fabricctl/fabricctl/switchcfg"
	"github.com/spf13/cobra"
)

func newSwitchCmd(g *globals) *cobra.Command {
	var platform, model string
	parse := &cobra.Command{Use: "parse --platform P [--model M] FILE", Args: cobra.ExactArgs(1),
		Short: "Read a captured switch configuration into the canonical intent (-o yaml|json)",
		RunE: func(cmd *cobra.Command, args []string) error {
			d, err := switchRegistry().Driver(platform)
			if err != nil || output.Check(g.output) != nil {
				return errors.Join(err, output.Check(g.output))
			}
			data, err := os.ReadFile(args[0])
			if err != nil {
				return err
			}
			si, err := switchcfg.ParseCapture(d, data, fabric.SwitchIntent{Model: model})
			if err != nil {
				return fmt.Errorf("parsing %s: %w", args[0], err)
			}
			if g.output == output.Table {
				g.output = output.YAML
			}
			return output.Write(g.stdout, g.output, si, nil)
		},
	}
	parse.Flags().StringVar(&platform, "platform", "", fmt.Sprintf("the switch's platform %v", switchRegistry().Names()))
	parse.Flags().StringVar(&model, "model", "", "the switch's model, where the reading depends on it (junos fill levels)")
	sw := &cobra.Command{Use: "switch", Short: "Work with switch configurations offline"}
	sw.AddCommand(parse)
	return sw
}
