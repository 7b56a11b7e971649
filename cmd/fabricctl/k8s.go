package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/fabricctl/fabricctl/action/launch/k8s"
	"github.com/fabricctl/fabricctl/internal/atomicfile"
	"github.com/fabricctl/fabricctl/internal/output"
)

func newK8sCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "k8s",
		Short: "Kubernetes manifests that run fabricctl's checks on a cluster",
	}
	cmd.AddCommand(newK8sRenderCmd(g))
	return cmd
}

func newK8sRenderCmd(g *globals) *cobra.Command {
	var file, out string
	var selector []string
	var o k8s.Options
	cmd := &cobra.Command{
		Use:   "render -f FABRIC [--image IMAGE] [--out DIR]",
		Short: "Render the node-problem-detector DaemonSet (local check) and one Indexed Job per pairwise round",
		Long: `Renders, from the fabric file:
  - a DaemonSet running node-problem-detector with one custom plugin rule,
    "fabricctl check --local -o nhc", which sets the node condition ` + k8s.DefaultCondition + `
    (True when the check fails), with its Namespace, RBAC and ConfigMap;
  - one Indexed Job per round of spec.checks.pairwise's schedule: a pod on each node of the round
    (host network, the RDMA device plugin's resource), each running its side of its pair.
Hosts map to nodes by the label ` + k8s.NodeLabel + `, else by name. Without --out the manifests go
to stdout as one YAML stream; with --out DIR, DIR/health.yaml and DIR/round-NNN.yaml.
Nothing is applied: kubectl apply -f does that (see docs/fleet.md). Flags are held to Kubernetes'
rules for their fields (--namespace a DNS-1123 label, images image references, --node-selector
label keys and values), and --budget plus NPD's 5 s margin must be shorter than --interval.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := output.Check(g.output); err != nil {
				return err
			}
			if g.output == output.JSON {
				return errors.New("k8s render writes YAML manifests (what kubectl apply -f reads): -o json is not one of its formats (table, yaml)")
			}
			var err error
			if o.NodeSelector, err = k8s.ParseNodeSelector(selector); err != nil {
				return err
			}
			if err := o.Validate(); err != nil {
				return err
			}
			f, err := g.loadFabric(cmd.Context(), file)
			if err != nil {
				return err
			}
			m, err := k8s.Render(f, o)
			if err != nil {
				return err
			}
			if out == "" {
				y, err := k8s.Write(m.All())
				if err != nil {
					return err
				}
				_, err = g.stdout.Write(y)
				return err
			}
			files, err := m.Files()
			if err == nil {
				err = atomicfile.WriteTree(out, files, 0o644)
			}
			if err != nil {
				return err
			}
			fmt.Fprintf(g.stderr, "fabricctl: %d files written to %s\n", len(files), filepath.Clean(out))
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&file, "file", "f", "", "fabric file (- reads standard input)")
	fl.StringVar(&out, "out", "", "write health.yaml and round-NNN.yaml here instead of stdout")
	fl.StringVar(&o.Namespace, "namespace", k8s.DefaultNamespace, "namespace of every object")
	fl.StringVar(&o.Image, "image", k8s.DefaultImage, "fabricctl image (static /usr/local/bin/fabricctl, perftest, rdma-core)")
	fl.StringVar(&o.NPDImage, "npd-image", k8s.DefaultNPDImage, "node-problem-detector image")
	fl.StringVar(&o.RDMAResource, "rdma-resource", k8s.DefaultRDMAResource, "extended resource of the RDMA device plugin each test pod asks for")
	fl.StringVar(&o.Condition, "condition", k8s.DefaultCondition, "node condition NPD sets (True = problem)")
	fl.DurationVar(&o.Interval, "interval", k8s.DefaultInterval, "how often NPD runs the local check")
	fl.DurationVar(&o.Budget, "budget", 50*time.Second, "the local check's budget (NPD's timeout is 5 s more)")
	fl.StringSliceVar(&selector, "node-selector", nil, "KEY=VALUE node labels the DaemonSet and Jobs are restricted to")
	return cmd
}
