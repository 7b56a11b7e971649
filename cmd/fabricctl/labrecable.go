package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/fabricctl/fabricctl/lab"
)

// newLabRecableCmd is `fabricctl lab recable HOST LEAF:PORT` (lab.State.Recable).
func newLabRecableCmd(g *globals, f *labFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "recable HOST LEAF:PORT",
		Short: "Two-leaf lab: move a VM-host's cable (its tap) to another leaf port while it runs",
		Long: `Moves the host's tap onto PORT of LEAF: both lldpds see the host there and, the fabric file
unchanged, check reports its cable as miscabled. Run it with the declared port to undo.`,
		Example: "  fabricctl lab recable lab-h1 leaf-02:swp3\n  fabricctl lab recable lab-h1 leaf-01:swp1",
		Args:    cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			leaf, port, err := lab.ParseLeafPort(args[1])
			s, lerr := lab.Load(f.stateDir)
			if err = errors.Join(err, lerr); err != nil {
				return err
			}
			from, err := s.Recable(cmd.Context(), args[0], leaf, port)
			if err != nil {
				return err
			}
			if g.output == "json" {
				return writeJSON(g.stdout, map[string]any{"apiVersion": lab.APIVersion, "host": args[0], "from": from, "to": leaf + ":" + port})
			}
			fmt.Fprintf(g.stdout, "%s: cable moved from %s to %s:%s\n", args[0], from, leaf, port)
			return nil
		},
	}
}
