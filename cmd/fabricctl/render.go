package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/internal/atomicfile"
	"github.com/fabricctl/fabricctl/internal/output"
	"github.com/spf13/cobra"
	"gopkg.in/yaml.v3"
)

// artifact is one rendered file.
type artifact struct {
	Target  string `json:"target"`
	Kind    string `json:"kind"` // host | switch | subnet-manager | profile
	Path    string `json:"path"` // relative to --out
	Content string `json:"content"`
	// data holds the content instead, when it was made as bytes (host
	// JSON): written to files as is, it is never copied into a string.
	data []byte
}

// bytes returns the content to write.
func (a *artifact) bytes() []byte {
	if a.data != nil {
		return a.data
	}
	return []byte(a.Content)
}

type renderResult struct {
	APIVersion string     `json:"apiVersion"`
	Artifacts  []artifact `json:"artifacts"`
}

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
			f, err := loadFabric(g.stderr, file)
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
				arts, err := renderArtifacts(cmd.Context(), f, target, func(a artifact) error {
					return tree.Add(a.Path, a.bytes())
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
			arts, err := renderArtifacts(cmd.Context(), f, target, nil)
			if err != nil {
				return err
			}
			for i := range arts {
				if arts[i].data != nil {
					arts[i].Content, arts[i].data = string(arts[i].data), nil
				}
			}
			w := bufio.NewWriterSize(g.stdout, 64<<10)
			if err := output.Write(w, g.output, renderResult{APIVersion: fabric.APIVersion, Artifacts: arts},
				func(*output.TableWriter) {
					for i, a := range arts {
						if i > 0 {
							fmt.Fprintln(w)
						}
						fmt.Fprintf(w, "# ==> %s (%s %s) <==\n%s", a.Path, a.Kind, a.Target, a.Content)
						if !strings.HasSuffix(a.Content, "\n") {
							fmt.Fprintln(w)
						}
					}
				}); err != nil {
				return err
			}
			return w.Flush()
		},
	}
	cmd.Flags().StringVarP(&file, "file", "f", "", "fabric or profile file")
	cmd.Flags().StringVar(&target, "target", "", "render only this target")
	cmd.Flags().StringVar(&out, "out", "", "write one file per artifact under this directory")
	return cmd
}

// renderArtifacts renders every target (or only target) of f. With a sink,
// each artifact goes to it as soon as it is rendered and comes back without
// its content; without, everything is kept in memory.
// Cancelling ctx stops it between targets.
func renderArtifacts(ctx context.Context, f *fabric.Fabric, target string, sink func(artifact) error) ([]artifact, error) {
	r := f.Resolve()
	if target != "" {
		known := r.Targets()
		found := false
		for _, t := range known {
			found = found || t == target
		}
		if !found {
			return nil, fmt.Errorf("no target named %q in the fabric (targets: %s)", target, strings.Join(known, ", "))
		}
	}
	want := func(name string) bool { return target == "" || target == name }
	// Each target renders independently: fan out over the CPUs, keep the order.
	var jobs []func() ([]artifact, error)
	for _, h := range r.Hosts {
		if want(h.Host) {
			jobs = append(jobs, func() ([]artifact, error) { return renderHost(h) })
		}
	}
	// Switches share most of their intent (QoS fields, port lists): encode each distinct field once.
	intents, err := output.NewYAMLMemo(fabric.SwitchIntent{})
	if err != nil {
		return nil, err
	}
	for _, s := range r.Switches {
		if want(s.Name) {
			jobs = append(jobs, func() ([]artifact, error) { return renderSwitch(s, intents) })
		}
	}
	guids := hostGUIDs(f)
	for _, sm := range r.SubnetManagers {
		if want(sm.Name) {
			jobs = append(jobs, func() ([]artifact, error) {
				content, ext, err := renderSubnetManager(sm, guids)
				if err != nil {
					return nil, err
				}
				return []artifact{{Target: sm.Name, Kind: "subnet-manager", Path: "subnet-managers/" + sm.Name + ext, Content: content}}, nil
			})
		}
	}
	// One long-lived worker per CPU takes the next job: a goroutine per
	// job would grow a fresh stack for each of thousands of encodings.
	// Every render error is reported; the first error of the sink (a full
	// disk, say) stops the work, since every later file would fail alike.
	results := make([][]artifact, len(jobs))
	errs := make([]error, len(jobs))
	var next atomic.Int64
	var sinkFailed atomic.Bool
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(jobs)) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < len(jobs) && !sinkFailed.Load() && ctx.Err() == nil; i = int(next.Add(1) - 1) {
				results[i], errs[i] = jobs[i]()
				if errs[i] == nil && sink != nil {
					if errs[i] = drain(results[i], sink); errs[i] != nil {
						sinkFailed.Store(true)
					}
				}
			}
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("rendering: %w; nothing was written", err)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	var arts []artifact
	for _, a := range results {
		arts = append(arts, a...)
	}
	if f.Kind != fabric.KindFabric && target == "" {
		profs, err := renderProfiles(f)
		if err == nil && sink != nil {
			err = drain(profs, sink)
		}
		if err != nil {
			return nil, err
		}
		arts = append(arts, profs...)
	}
	return arts, nil
}

// drain hands each artifact to sink and drops its content.
func drain(arts []artifact, sink func(artifact) error) error {
	for i := range arts {
		if err := sink(arts[i]); err != nil {
			return err
		}
		arts[i].Content, arts[i].data = "", nil
	}
	return nil
}

func renderHost(h fabric.HostIntent) ([]artifact, error) {
	b, err := output.MarshalJSON(h)
	if err != nil {
		return nil, fmt.Errorf("encoding JSON: %w", err)
	}
	return []artifact{{Target: h.Host, Kind: "host", Path: "hosts/" + h.Host + ".json", data: b}}, nil
}

func renderSwitch(s fabric.SwitchIntent, intents *output.YAMLMemo) ([]artifact, error) {
	b, err := intents.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("encoding YAML: %w", err)
	}
	arts := []artifact{{Target: s.Name, Kind: "switch", Path: "switches/" + s.Name + ".intent.yaml", Content: b}}
	native, ext, err := renderSwitchNative(s)
	if err != nil {
		return nil, fmt.Errorf("rendering switch %s: %w", s.Name, err)
	}
	if native != "" {
		arts = append(arts, artifact{Target: s.Name, Kind: "switch", Path: "switches/" + s.Name + ext, Content: native})
	}
	return arts, nil
}

// renderProfiles previews a profiles-only file: what a host interface and a
// switch would get, and the partitions.
func renderProfiles(f *fabric.Fabric) ([]artifact, error) {
	names := make([]string, 0, len(f.Profiles))
	for n := range f.Profiles {
		names = append(names, n)
	}
	sort.Strings(names)
	var arts []artifact
	for _, n := range names {
		p := f.Profiles[n]
		if e := p.Spec.Ethernet; e != nil {
			ii := fabric.ResolveInterface(e)
			ii.Name = fabric.AllRDMANetdevs
			b, err := marshalJSON(ii)
			if err != nil {
				return nil, err
			}
			arts = append(arts, artifact{Target: n, Kind: "profile", Path: "profiles/" + n + ".host-interface.json", Content: b})
			si := fabric.SwitchIntent{APIVersion: fabric.APIVersion, Profile: n, Ports: []string{}}
			fabric.ResolveSwitchQoS(e, &si)
			y, err := marshalYAML(si)
			if err != nil {
				return nil, err
			}
			arts = append(arts, artifact{Target: n, Kind: "profile", Path: "profiles/" + n + ".switch-qos.yaml", Content: y})
		}
		if ib := p.Spec.InfiniBand; ib != nil {
			b, err := marshalJSON(fabric.ResolvePartitions(ib, nil))
			if err != nil {
				return nil, err
			}
			arts = append(arts, artifact{Target: n, Kind: "profile", Path: "profiles/" + n + ".partitions.json", Content: b})
		}
	}
	return arts, nil
}

func marshalJSON(v any) (string, error) {
	b, err := output.MarshalJSON(v)
	if err != nil {
		return "", fmt.Errorf("encoding JSON: %w", err)
	}
	return string(b), nil
}

func marshalYAML(v any) (string, error) {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(v); err != nil {
		return "", fmt.Errorf("encoding YAML: %w", err)
	}
	return buf.String(), enc.Close()
}
