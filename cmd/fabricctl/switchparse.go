package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/fabricctl/fabricctl/action/render"
	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/internal/ctxio"
	"github.com/fabricctl/fabricctl/internal/infile"
	"github.com/fabricctl/fabricctl/internal/output"
	"github.com/fabricctl/fabricctl/switchcfg"
	"github.com/spf13/cobra"
)

func newSwitchCmd(g *globals) *cobra.Command {
	var platform, model string
	parse := &cobra.Command{Use: "parse --platform P [--model M] FILE|-", Args: cobra.ExactArgs(1),
		Short: "Read a captured switch configuration into the canonical intent (-o yaml|json)",
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, cancel := commandContext(cmd, g)
			defer cancel()
			if m, err := switchRegistry().SubnetManager(platform); err == nil {
				return parsePartitions(ctx, g, m, args[0])
			}
			d, err := switchRegistry().Driver(platform)
			if err != nil || output.Check(g.output) != nil {
				return errors.Join(err, output.Check(g.output))
			}
			data, err := readCapture(ctx, g, args[0])
			if err != nil {
				return err
			}
			si, err := switchcfg.ParseCapture(d, data, fabric.SwitchIntent{Model: model})
			if err != nil {
				return fmt.Errorf("parsing %s: %w", args[0], err)
			}
			if g.output == output.JSON {
				return output.Write(g.stdout, g.output, si, nil)
			}
			// YAML as render writes the switch's intent, field for field, so
			// that diff <(render) <(switch parse) reads.
			text, err := render.MarshalYAML(si)
			if err != nil {
				return err
			}
			_, err = io.WriteString(g.stdout, text)
			return err
		},
	}
	parse.Flags().StringVar(&platform, "platform", "", fmt.Sprintf("the switch's platform %v, or a subnet manager's kind %v", switchRegistry().Names(), switchRegistry().SubnetManagerKinds()))
	parse.Flags().StringVar(&model, "model", "", "the switch's model, where the reading depends on it (junos fill levels)")
	sw := &cobra.Command{Use: "switch", Short: "Work with switch configurations offline"}
	sw.AddCommand(parse)
	return sw
}

// parsePartitions is `switch parse --platform opensm FILE`: a subnet
// manager's captured configuration.
func parsePartitions(ctx context.Context, g *globals, m switchcfg.SubnetManager, file string) error {
	r, ok := m.(switchcfg.PartitionsReader)
	if !ok {
		return fmt.Errorf("subnet manager kind %s cannot be read from a file", m.Info().Kind)
	}
	data, err := readCapture(ctx, g, file)
	if err != nil {
		return err
	}
	v, err := r.ParseCapture(data)
	if err != nil {
		return fmt.Errorf("parsing %s: %w", file, err)
	}
	if g.output == output.Table {
		g.output = output.YAML
	}
	return output.Write(g.stdout, g.output, v, nil)
}

// readCapture reads a switch or subnet manager capture named on the command
// line ("-": stdin) as every user-named input is read: a regular file within
// infile.MaxCapture, refused at once otherwise.
func readCapture(ctx context.Context, g *globals, file string) ([]byte, error) {
	data, err := infile.ReadArg(ctx, ctxio.NewReader(ctx, g.stdin), file, infile.MaxCapture)
	if err != nil {
		return nil, fmt.Errorf("reading %w", err)
	}
	return data, nil
}

// captureTargets are drift --from-dir's targets: the fabric's switches and
// subnet managers (those --target names, when given) read from DIR.
func captureTargets(ctx context.Context, f *fabric.Fabric, only []string, dir string, allowUnparsed bool) ([]fabric.Target, error) {
	d, err := infile.OpenDir(ctx, dir, infile.MaxCapture)
	if err != nil {
		return nil, fmt.Errorf("--from-dir %w", err)
	}
	r := f.Resolve()
	want := func(n string) bool { return len(only) == 0 || slices.Contains(only, n) }
	sws := slices.DeleteFunc(slices.Clone(r.Switches), func(s fabric.SwitchIntent) bool { return !want(s.Name) })
	sms := slices.DeleteFunc(slices.Clone(r.SubnetManagers), func(s fabric.SubnetManagerIntent) bool { return !want(s.Name) })
	t, err := switchcfg.CaptureTargets(sws, switchRegistry(), d, switchcfg.CaptureOptions{AllowUnparsed: allowUnparsed})
	if err != nil {
		return nil, err
	}
	ts, err := switchcfg.CaptureSubnetManagers(sms, f.PortGUIDs(), switchRegistry(), d)
	return append(t, ts...), err
}
