package main

import (
	"bufio"
	"fmt"
	"path/filepath"

	"github.com/fabricctl/fabricctl/action/render"
	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/internal/atomicfile"
	"github.com/fabricctl/fabricctl/internal/output"
	"github.com/spf13/cobra"
)

func newRenderCmd(g *globals) *cobra.Command {
	var file, target, out string
	cmd := &cobra.Command{
		Use:   "render -f FILE [--target NAME] [--out DIR]",
		Short: "Render the desired state of every target (host JSON, switch config, partitions.conf)",
		Long: `Render what fabricctl would configure, without touching anything: the desired
host state as JSON, each switch's canonical intent (YAML) and native config, and
each subnet manager's partitions. With --out DIR one file per artifact is written
under DIR/hosts, DIR/switches and DIR/subnet-managers; nothing is written when
the fabric is invalid or any target fails to render.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := output.Check(g.output); err != nil {
				return err
			}
			f, err := g.loadFabric(cmd.Context(), file)
			if err != nil {
				return err
			}
			if out != "" {
				// Files are staged as they are rendered and appear only
				// when every target rendered (internal/atomicfile).
				tree, err := atomicfile.NewTree(out, 0o644)
				if err != nil {
					return err
				}
				arts, err := render.Artifacts(cmd.Context(), f, switchRegistry(), target, func(a render.Artifact) error {
					return tree.Add(a.Path, a.Bytes())
				})
				if err == nil {
					err = tree.Commit()
				}
				if err != nil {
					tree.Abort()
					return err
				}
				w := bufio.NewWriter(g.stdout) // one line per file: thousands of them
				for _, a := range arts {
					fmt.Fprintln(w, filepath.Join(out, a.Path))
				}
				return w.Flush()
			}
			arts, err := render.Artifacts(cmd.Context(), f, switchRegistry(), target, nil)
			if err != nil {
				return err
			}
			for i := range arts {
				arts[i].Inline()
			}
			w := bufio.NewWriterSize(g.stdout, 64<<10)
			res := render.Result{APIVersion: fabric.APIVersion, Artifacts: arts}
			if err := output.Write(w, g.output, res, func(*output.TableWriter) { res.WriteText(w) }); err != nil {
				return err
			}
			return w.Flush()
		},
	}
	cmd.Flags().StringVarP(&file, "file", "f", "", "fabric or profile file (- reads standard input)")
	cmd.Flags().StringVar(&target, "target", "", "render only this target")
	cmd.Flags().StringVar(&out, "out", "", "write one file per artifact under this directory")
	return cmd
}
