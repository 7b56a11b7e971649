package main

import (
	"encoding/json"

	"github.com/spf13/cobra"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/internal/output"
)

func newSchemaCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "schema",
		Short: "Print the JSON Schema of Profile and Fabric documents (for editors); -o yaml prints it as YAML",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := output.Check(g.output); err != nil {
				return err
			}
			if g.output == output.YAML {
				return output.Write(g.stdout, g.output, fabric.Schema(), nil)
			}
			enc := json.NewEncoder(g.stdout)
			enc.SetIndent("", "  ")
			return enc.Encode(fabric.Schema())
		},
	}
}
