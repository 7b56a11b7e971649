package main

import (
	"encoding/json"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/spf13/cobra"
)

func newSchemaCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "schema",
		Short: "Print the JSON Schema of Profile and Fabric documents (for editors)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			enc := json.NewEncoder(g.stdout)
			enc.SetIndent("", "  ")
			return enc.Encode(fabric.Schema())
		},
	}
}
