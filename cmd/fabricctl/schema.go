package main

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/internal/output"
)

func newSchemaCmd(g *globals) *cobra.Command {
	var kind string
	var list bool
	cmd := &cobra.Command{
		Use:   "schema [--output-kind KIND | --list]",
		Short: "Print the JSON Schema of Profile and Fabric documents (for editors), or of an output document",
		Long: `Without flags, print the JSON Schema of the documents users write (Profile and
Fabric), for editors to complete and lint. Every document fabricctl prints with
-o json or -o yaml carries "kind" next to "apiVersion"; --output-kind KIND prints
that document's schema, generated from the Go types that write it, and --list
lists the kinds and the commands that print each. -o yaml prints a schema as YAML.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := output.Check(g.output); err != nil {
				return err
			}
			if list && kind != "" {
				return fmt.Errorf("give --list or --output-kind, not both")
			}
			if list {
				ks := outputKinds()
				if g.output == output.Table {
					return output.Write(g.stdout, g.output, nil, func(t *output.TableWriter) {
						t.Row("KIND", "PRINTED BY")
						for _, k := range ks {
							t.Row(k.kind, k.commands)
						}
					})
				}
				type entry struct {
					Kind     string `json:"kind"`
					Commands string `json:"commands"`
				}
				var es []entry
				for _, k := range ks {
					es = append(es, entry{k.kind, k.commands})
				}
				return output.Write(g.stdout, g.output, es, nil)
			}
			var schema map[string]any
			if kind == "" {
				schema = fabric.Schema()
			} else {
				for _, k := range outputKinds() {
					if k.kind == kind {
						schema = outputSchema(k)
					}
				}
				if schema == nil {
					return fmt.Errorf("--output-kind %q is not a kind of output document (kinds: %s)", kind, strings.Join(outputKindNames(), ", "))
				}
			}
			if g.output == output.YAML {
				return output.Write(g.stdout, g.output, schema, nil)
			}
			enc := json.NewEncoder(g.stdout)
			enc.SetIndent("", "  ")
			return enc.Encode(schema)
		},
	}
	cmd.Flags().StringVar(&kind, "output-kind", "", "print the schema of this output document (see --list)")
	cmd.Flags().BoolVar(&list, "list", false, "list the kinds of output documents and the commands that print them")
	return cmd
}
