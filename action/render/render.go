package render

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"gopkg.in/yaml.v3"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/internal/output"
	"github.com/fabricctl/fabricctl/switchcfg"
)

// Artifact is one rendered file.
type Artifact struct {
	Target  string `json:"target"`
	Kind    string `json:"kind"` // host | switch | subnet-manager | profile
	Path    string `json:"path"` // relative to --out
	Content string `json:"content"`
	// data holds the content instead, when it was made as bytes (host
	// JSON): written to files as is, it is never copied into a string.
	data []byte
}

// Bytes returns the content to write.
func (a *Artifact) Bytes() []byte {
	if a.data != nil {
		return a.data
	}
	return []byte(a.Content)
}

// Inline puts content made as bytes into Content, for printing.
func (a *Artifact) Inline() {
	if a.data != nil {
		a.Content, a.data = string(a.data), nil
	}
}

// Result is what `fabricctl render` prints.
type Result struct {
	APIVersion string     `json:"apiVersion"`
	Artifacts  []Artifact `json:"artifacts"`
}

// Artifacts renders every target (or only target) of f with the drivers of
// reg. With a sink, each artifact goes to it as soon as it is rendered and
// comes back without its content; without, everything is kept in memory.
func Artifacts(ctx context.Context, f *fabric.Fabric, reg *switchcfg.Registry, target string, sink func(Artifact) error) ([]Artifact, error) {
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
	var jobs []func() ([]Artifact, error)
	for _, h := range r.Hosts {
		if want(h.Host) {
			jobs = append(jobs, func() ([]Artifact, error) { return renderHost(h) })
		}
	}
	// Switches share most of their intent (QoS fields, port lists): encode each distinct field once.
	intents, err := output.NewYAMLMemo(fabric.SwitchIntent{})
	if err != nil {
		return nil, err
	}
	for _, s := range r.Switches {
		if want(s.Name) {
			jobs = append(jobs, func() ([]Artifact, error) { return renderSwitch(s, reg, intents) })
		}
	}
	guids := f.PortGUIDs()
	for _, sm := range r.SubnetManagers {
		if want(sm.Name) {
			jobs = append(jobs, func() ([]Artifact, error) {
				content, ext, err := renderSubnetManager(sm, reg, guids)
				if err != nil {
					return nil, err
				}
				return []Artifact{{Target: sm.Name, Kind: "subnet-manager", Path: "subnet-managers/" + sm.Name + ext, Content: content}}, nil
			})
		}
	}
	// One long-lived worker per CPU takes the next job: a goroutine per
	// job would grow a fresh stack for each of thousands of encodings.
	// Every render error is reported; the first error of the sink (a full
	// disk, say) stops the work, since every later file would fail alike.
	results := make([][]Artifact, len(jobs))
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
	var arts []Artifact
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
func drain(arts []Artifact, sink func(Artifact) error) error {
	for i := range arts {
		if err := sink(arts[i]); err != nil {
			return err
		}
		arts[i].Content, arts[i].data = "", nil
	}
	return nil
}

func renderHost(h fabric.HostIntent) ([]Artifact, error) {
	b, err := output.MarshalJSON(h)
	if err != nil {
		return nil, fmt.Errorf("encoding JSON: %w", err)
	}
	return []Artifact{{Target: h.Host, Kind: "host", Path: "hosts/" + h.Host + ".json", data: b}}, nil
}

func renderSwitch(s fabric.SwitchIntent, reg *switchcfg.Registry, intents *output.YAMLMemo) ([]Artifact, error) {
	b, err := intents.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("encoding YAML: %w", err)
	}
	arts := []Artifact{{Target: s.Name, Kind: "switch", Path: "switches/" + s.Name + ".intent.yaml", Content: b}}
	native, ext, err := renderSwitchNative(s, reg)
	if err != nil {
		return nil, fmt.Errorf("rendering switch %s: %w", s.Name, err)
	}
	if native != "" {
		arts = append(arts, Artifact{Target: s.Name, Kind: "switch", Path: "switches/" + s.Name + ext, Content: native})
	}
	return arts, nil
}

// renderSwitchNative renders a switch's native config with its platform driver.
func renderSwitchNative(s fabric.SwitchIntent, reg *switchcfg.Registry) (text, ext string, err error) {
	d, err := reg.Driver(s.Platform)
	if err != nil {
		return "", "", err
	}
	cfg, err := d.Render(s)
	if err != nil {
		return "", "", err
	}
	return cfg.Text, d.Info().FileExt, nil
}

// renderSubnetManager renders a subnet manager's partitions with its kind's
// driver: partitions.conf for OpenSM, the partition intent as JSON for UFM
// (its REST payloads are built from it at apply time).
func renderSubnetManager(sm fabric.SubnetManagerIntent, reg *switchcfg.Registry, guids map[string][]string) (text, ext string, err error) {
	m, err := reg.SubnetManager(sm.Kind)
	if err != nil {
		return "", "", err
	}
	s, err := m.Render(sm, guids)
	return s, m.Info().FileExt, err
}

// renderProfiles previews a profiles-only file: what a host interface and a
// switch would get, and the partitions.
func renderProfiles(f *fabric.Fabric) ([]Artifact, error) {
	names := make([]string, 0, len(f.Profiles))
	for n := range f.Profiles {
		names = append(names, n)
	}
	sort.Strings(names)
	var arts []Artifact
	for _, n := range names {
		p := f.Profiles[n]
		if e := p.Spec.Ethernet; e != nil {
			ii := fabric.ResolveInterface(e)
			ii.Name = fabric.AllRDMANetdevs
			b, err := marshalJSON(ii)
			if err != nil {
				return nil, err
			}
			arts = append(arts, Artifact{Target: n, Kind: "profile", Path: "profiles/" + n + ".host-interface.json", Content: b})
			si := fabric.SwitchIntent{APIVersion: fabric.APIVersion, Profile: n, Ports: []string{}}
			fabric.ResolveSwitchQoS(e, &si)
			y, err := MarshalYAML(si)
			if err != nil {
				return nil, err
			}
			arts = append(arts, Artifact{Target: n, Kind: "profile", Path: "profiles/" + n + ".switch-qos.yaml", Content: y})
		}
		if ib := p.Spec.InfiniBand; ib != nil {
			b, err := marshalJSON(fabric.ResolvePartitions(ib, nil))
			if err != nil {
				return nil, err
			}
			arts = append(arts, Artifact{Target: n, Kind: "profile", Path: "profiles/" + n + ".partitions.json", Content: b})
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

// MarshalYAML encodes v as YAML with two-space indentation, the way every
// YAML artifact is written.
func MarshalYAML(v any) (string, error) {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(v); err != nil {
		return "", fmt.Errorf("encoding YAML: %w", err)
	}
	return buf.String(), enc.Close()
}

// WriteText prints every artifact's (inlined) content under a "# ==> PATH (KIND TARGET) <=="
// header, a blank line between artifacts, each ending in a newline: `fabricctl render`'s text.
func (r Result) WriteText(w io.Writer) {
	for i, a := range r.Artifacts {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "# ==> %s (%s %s) <==\n%s", a.Path, a.Kind, a.Target, a.Content)
		if !strings.HasSuffix(a.Content, "\n") {
			fmt.Fprintln(w)
		}
	}
}

// CheckSubnetManagers renders every subnet manager of f as `render` would
// and returns what its kind refuses: for OpenSM, a partitions.conf that its
// parser would read differently from the intent (opensm.CheckRendered).
// `validate` runs it, so no network is needed to find such a file.
func CheckSubnetManagers(f *fabric.Fabric, reg *switchcfg.Registry) error {
	guids := f.PortGUIDs()
	var errs []error
	for _, sm := range f.Resolve().SubnetManagers {
		if _, _, err := renderSubnetManager(sm, reg, guids); err != nil {
			errs = append(errs, fmt.Errorf("subnet manager %s: %w", sm.Name, err))
		}
	}
	return errors.Join(errs...)
}
