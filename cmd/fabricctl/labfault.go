package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/fabricctl/fabricctl/lab"
)

// newLabFaultCmd is `fabricctl lab fault add|clear|list`: netem on a lab
// host's or link's RoCE traffic, so that check has something to find.
func newLabFaultCmd(g *globals, f *labFlags) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "fault",
		Short: "Inject or clear faults in the running lab: netem on the RoCE v2 traffic of a host or a link",
		Long: `Targets (kind/name):
  host/NAME   what the VM-host NAME sends over RoCE (netem on its eth0): a bad transmitter
  link/NAME   the cable between NAME and its switch, both ways (its eth0 and the tap)
Only RoCE v2 (UDP 4791) is impaired: SSH and perftest's out-of-band TCP keep working.
host/NAME ` + lab.PFCOff + ` is not netem: the leaf port facing NAME loses the lab's lossless
emulation (a queue of ` + fmt.Sprint(lab.PFCOffQueueLen) + ` packets instead of ` + fmt.Sprint(lab.LosslessQueueLen) + `), so it drops under incast;
clear gives the deep queue back.
The faults in place are recorded in STATE-DIR/` + lab.FaultsFile + `; lab down removes them with the VMs.`,
	}
	cmd.AddCommand(&cobra.Command{
		Use:     "add TARGET (NETEM...|pfc-off)",
		Short:   "Put netem on a target's RoCE traffic, or take the lossless emulation off a host's port (pfc-off)",
		Example: "  fabricctl lab fault add host/lab-h1 loss 2%\n  fabricctl lab fault add link/lab-h3 delay 5ms\n  fabricctl lab fault add host/lab-h4 pfc-off",
		Args:    cobra.MinimumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := lab.Load(f.stateDir)
			if err != nil {
				return err
			}
			ft, err := s.AddFault(cmd.Context(), args[0], args[1:])
			if err != nil {
				return err
			}
			return printFaults(g, []lab.Fault{ft}, "added")
		},
	}, &cobra.Command{
		Use:   "clear [TARGET...]",
		Short: "Remove the faults on the targets (every fault when none is named)",
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := lab.Load(f.stateDir)
			if err != nil {
				return err
			}
			cleared, err := s.ClearFaults(cmd.Context(), args...)
			if perr := printFaults(g, cleared, "cleared"); err == nil {
				err = perr
			}
			return err
		},
	}, &cobra.Command{
		Use:   "list",
		Short: "List the faults in place",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			s, err := lab.Load(f.stateDir)
			if err != nil {
				return err
			}
			faults, err := s.Faults()
			if err != nil {
				return err
			}
			return printFaults(g, faults, "in place")
		},
	})
	return cmd
}

func printFaults(g *globals, faults []lab.Fault, what string) error {
	if g.output == "json" {
		if faults == nil {
			faults = []lab.Fault{}
		}
		return writeJSON(g.stdout, map[string]any{"apiVersion": lab.APIVersion, "faults": faults})
	}
	if len(faults) == 0 {
		fmt.Fprintf(g.stdout, "no faults %s\n", what)
	}
	for _, ft := range faults {
		fmt.Fprintf(g.stdout, "fault %s %s: %s\n", ft.Target, what, ft.Describe())
	}
	return nil
}
