package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/fabricctl/fabricctl/action/planfile"
	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/internal/output"
	"github.com/spf13/cobra"
)

// readFabricBytes reads the fabric file a saved plan is checked against.
func readFabricBytes(path string) ([]byte, error) {
	if path == stdinArg {
		return nil, errors.New("a saved plan records its fabric file's path and hash: give the fabric as a file, not -f -")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading the fabric file: %w", err)
	}
	return data, nil
}

// savePlan writes p to out (plan --out) as a saved plan of the fabric file
// whose bytes are data. A plan with a target that could not be observed is
// not saved: there is no knowing what applying it would do.
func savePlan(g *globals, of *orchestrateFlags, data []byte, p *fabric.Plan, out string) error {
	if err := p.Err(); err != nil {
		fmt.Fprintf(g.stderr, "fabricctl: the plan was not saved to %s: %d target(s) could not be observed\n", out, p.Summarize().Unobserved)
		return nil
	}
	pf, err := planfile.New(of.file, data, of.targets, p, build(), time.Now())
	if err != nil {
		return err
	}
	if err := planfile.Write(out, pf); err != nil {
		return err
	}
	fmt.Fprintf(g.stderr, "fabricctl: saved the plan to %s; apply exactly it with: fabricctl apply %s\n", out, out)
	return nil
}

// applySaved is apply PLANFILE: the plan's fabric file (refused when -f
// names another or its content changed) and targets, observed and planned
// again; applied without asking when the new plan is exactly the saved
// one, refused (exit 1) with every difference otherwise.
func applySaved(cmd *cobra.Command, g *globals, of *orchestrateFlags, path string, dryRun bool) error {
	pf, err := planfile.Read(path)
	if err != nil {
		return err
	}
	if of.file == stdinArg {
		return fmt.Errorf("applying %s: a saved plan names its fabric file (%s): leave -f out", path, pf.Fabric.Path)
	}
	if of.file != "" && !pf.SameFile(of.file) {
		return fmt.Errorf("applying %s: %w: it was planned from %s, not %s (-f); leave -f out or plan again", path, planfile.ErrOtherFabric, pf.Fabric.Path, of.file)
	}
	if cmd.Flags().Changed("target") && !pf.SameTargets(of.targets) {
		return fmt.Errorf("applying %s: it was planned for %s, not %s (--target); leave --target out or plan again",
			path, targetList(pf.Targets), targetList(of.targets))
	}
	of.file, of.targets = pf.Fabric.Path, pf.Targets
	unchanged := func() error {
		data, err := readFabricBytes(of.file)
		if err == nil {
			err = pf.CheckFabric(of.file, data)
		}
		if err != nil {
			return fmt.Errorf("applying %s: %w", path, err)
		}
		return nil
	}
	if err := unchanged(); err != nil {
		return err
	}
	return of.run(cmd, g, nil, func(ctx context.Context, targets []fabric.Target) error {
		if err := unchanged(); err != nil { // as loaded
			return err
		}
		e := g.engine()
		p := e.Plan(ctx, targets)
		if g.output == output.Table {
			if err := writePlan(g, p); err != nil {
				return err
			}
		}
		if d := planfile.Drift(pf.Plan, p); len(d) > 0 {
			writeSavedDrift(g.stderr, path, pf, d)
			return exitCodeError{exitError}
		}
		if p.Err() != nil {
			return exitCodeError{exitError}
		}
		if !p.HasChanges() && !dryRun {
			fmt.Fprintln(g.stderr, "fabricctl: nothing to change")
			if g.output != output.Table {
				return output.Write(g.stdout, g.output, e.Apply(ctx, targets, p, fabric.ApplyOptions{DryRun: true}), nil)
			}
			return nil
		}
		if !dryRun {
			fmt.Fprintf(g.stderr, "fabricctl: the fabric is as when %s was saved (%s); applying %s\n",
				path, pf.Created.Local().Format(time.DateTime), p.Summarize())
		}
		res := e.Apply(ctx, targets, p, fabric.ApplyOptions{DryRun: dryRun})
		if err := writeResult(g, res); err != nil {
			return err
		}
		if res.Failed() {
			return exitCodeError{exitError}
		}
		return nil
	})
}

// writeSavedDrift says, on w, why a saved plan is not applied: each target and
// setting where the plan made now differs.
func writeSavedDrift(w io.Writer, path string, pf *planfile.File, d []planfile.Difference) {
	fmt.Fprintf(w, "fabricctl: not applied: %s (%s, saved %s); %d difference(s):\n",
		planfile.ErrDrifted, path, pf.Created.Local().Format(time.DateTime), len(d))
	for _, x := range d {
		fmt.Fprintf(w, "  %s\n", x)
	}
	fmt.Fprintln(w, "fabricctl: plan again (plan --out FILE), review it, and apply the new file")
}

func targetList(ts []string) string {
	if len(ts) == 0 {
		return "every target"
	}
	return strings.Join(ts, ",")
}

// writeNative prints, after the plan table, each switch's native diff
// (plan --native): what a push would change in the switch's own language.
func writeNative(w io.Writer, p *fabric.Plan) {
	for _, tp := range p.Targets {
		nd := tp.Native
		if nd == nil {
			continue
		}
		fmt.Fprintf(w, "\n%s (%s): what a push changes, native — the managed sections as read back, rendered natively, against the desired rendering\n",
			tp.Target, nd.Platform)
		for _, n := range nd.Notes {
			fmt.Fprintf(w, "note: %s\n", n)
		}
		if nd.Diff == "" {
			fmt.Fprintln(w, "(both render alike)")
			continue
		}
		fmt.Fprint(w, nd.Diff)
	}
}
