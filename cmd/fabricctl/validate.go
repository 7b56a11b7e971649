package main

import (
	"fmt"
	"sort"

	"github.com/fabricctl/fabricctl/action/render"
	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/internal/output"
	"github.com/spf13/cobra"
)

type validateResult struct {
	APIVersion     string   `json:"apiVersion"`
	File           string   `json:"file"`
	Valid          bool     `json:"valid"`
	Fabric         string   `json:"fabric,omitempty"`
	Profiles       []string `json:"profiles"`
	Hosts          int      `json:"hosts"`
	Switches       int      `json:"switches"`
	SubnetManagers int      `json:"subnetManagers"`
}

func newValidateCmd(g *globals) *cobra.Command {
	var file string
	cmd := &cobra.Command{
		Use:   "validate -f FILE",
		Short: "Load and validate a fabric or profile file (no network)",
		Long: `Load a fabric (or a profile) file with its includes, decode it strictly and check
every rule. All errors are printed to stderr as FILE:LINE:COL: PATH: message.
Exit 0 when valid, 1 when not.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := output.Check(g.output); err != nil {
				return err
			}
			f, err := loadFabric(g.stderr, file)
			if err != nil {
				return err
			}
			if err := render.CheckSubnetManagers(f, switchRegistry()); err != nil {
				return fmt.Errorf("%s: %w", file, err)
			}
			res := validateResult{APIVersion: fabric.APIVersion, File: file, Valid: true,
				Fabric: f.Metadata.Name, Hosts: len(f.Spec.Hosts), Switches: len(f.Spec.Switches),
				SubnetManagers: len(f.Spec.SubnetManagers), Profiles: []string{}}
			for n := range f.Profiles {
				res.Profiles = append(res.Profiles, n)
			}
			sort.Strings(res.Profiles)
			return output.Write(g.stdout, g.output, res, func(t *output.TableWriter) {
				name := res.Fabric
				if name == "" {
					name = "(profiles only)"
				}
				fmt.Fprintf(g.stdout, "%s: valid\n", file)
				t.Row("fabric", name)
				t.Row("profiles", fmt.Sprint(res.Profiles))
				t.Row("hosts", res.Hosts)
				t.Row("switches", res.Switches)
				t.Row("subnet managers", res.SubnetManagers)
			})
		},
	}
	cmd.Flags().StringVarP(&file, "file", "f", "", "fabric or profile file")
	return cmd
}
