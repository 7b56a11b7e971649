package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/fabricctl/fabricctl/lab"
)

// newLabRecableCmd is `fabricctl lab recable HOST LEAF:PORT`: move a
// two-leaf lab host's cable to another leaf port, so that LLDP shows a
// miscabling for check to report.
func newLabRecableCmd(g *globals, f *labFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "recable HOST LEAF:PORT",
		Short: "Two-leaf lab: move a VM-host's cable (its tap) to another leaf port while it runs",
		Long: `Moves the host's tap off its leaf's bridge onto PORT of LEAF (the same or the other leaf),
renamed to PORT. Both lldpds (the VM's and the leaf's) then see the host there: with the fabric
file unchanged, fabricctl check (preflight suite) reports the host's cable as miscabled. The VM
keeps running and answering SSH. Run it again with the declared port to undo; lab down ends it.`,
		Example: "  fabricctl lab recable lab-h1 leaf-02:swp3\n  fabricctl lab recable lab-h1 leaf-01:swp1",
		Args:    cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			leaf, port, err := lab.ParseLeafPort(args[1])
			if err != nil {
				return err
			}
			s, err := lab.Load(f.stateDir)
			if err != nil {
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
