package main

import (
	"fmt"
	"strings"

	"github.com/fabricctl/fabricctl/action/starter"
	"github.com/fabricctl/fabricctl/internal/output"
	"github.com/spf13/cobra"
)

func newInitCmd(g *globals) *cobra.Command {
	var opt starter.Options
	var out string
	var force bool
	cmd := &cobra.Command{
		Use:   "init [--out DIR|FILE.yaml|-] [--platform P] [--hosts N]",
		Short: "Write a starter fabric to edit into your own: hosts on one leaf, the lossless RoCE profile, checks",
		Long: `Write a starter Fabric to edit into your own: two hosts (--hosts) cabled to one leaf
(--platform, one of: ` + strings.Join(switchRegistry().Names(), ", ") + `), the standard
lossless RoCE v2 profile and the checks that prove it. Comments in the files say what to
edit and the safe order that follows (validate, render, plan and apply one canary host,
check). What init writes passes "fabricctl validate" as it is; only its placeholders
(names, RFC 5737 addresses, interfaces, ports) need your values.

--out DIR (default: the current directory) gets DIR/fabric.yaml, which includes
DIR/roce-lossless.yaml; --out FILE.yaml (or .yml) gets one file with the profile inline,
and --out - prints that file on stdout. Existing files are never overwritten without
--force. stdout lists the files written. Exit 0 when written, 1 otherwise.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := output.Check(g.output); err != nil {
				return err
			}
			if opt.Hosts < 1 { // 0 is the default to starter, not to --hosts
				return fmt.Errorf("counting hosts: --hosts %d is outside 1..%d", opt.Hosts, starter.MaxHosts)
			}
			files, err := starter.Files(switchRegistry(), out, opt)
			if err != nil {
				return err
			}
			if out == starter.Stdout {
				if g.output != output.Table {
					return fmt.Errorf("printing the starter fabric: --out - prints its YAML itself; -o %s does not apply", g.output)
				}
				_, err := g.stdout.Write(files[0].Data)
				return err
			}
			if err := starter.Write(files, force); err != nil {
				return err
			}
			res := starter.NewResult(files)
			if err := output.Write(g.stdout, g.output, res, func(*output.TableWriter) {
				for _, f := range res.Files {
					fmt.Fprintln(g.stdout, f)
				}
			}); err != nil {
				return err
			}
			fmt.Fprintf(g.stderr, "fabricctl: wrote a starter fabric; edit the lines marked EDIT, then: fabricctl validate -f %s\n", res.Fabric)
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&out, "out", ".", "directory to write the starter in; or FILE.yaml for one file, - for stdout")
	fl.BoolVar(&force, "force", false, "overwrite files that exist")
	fl.StringVar(&opt.Name, "name", starter.DefaultName, "the fabric's name (metadata.name)")
	fl.StringVar(&opt.Platform, "platform", starter.DefaultPlatform, "the leaf's switch platform (see above)")
	fl.IntVar(&opt.Hosts, "hosts", starter.DefaultHosts, fmt.Sprintf("how many hosts (1..%d)", starter.MaxHosts))
	fl.StringSliceVar(&opt.Interfaces, "interfaces", []string{starter.DefaultInterface}, "each host's RoCE netdevs, as rdma link names them")
	fl.StringSliceVar(&opt.SwitchPorts, "switch-ports", nil, "the leaf's ports that carry RoCE, ranges allowed (default e.g. swp1-32)")
	_ = cmd.RegisterFlagCompletionFunc("platform", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return switchRegistry().Names(), cobra.ShellCompDirectiveNoFileComp
	})
	return cmd
}
