package vendorcheck

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/switchcfg"
	"github.com/fabricctl/fabricctl/switchcfg/all"
)

// Case is one switch render to check.
type Case struct {
	// Name says where the case comes from: "example profiles/lab/fabric.yaml
	// leaf-02" or "generated pcp-trust/mellanox".
	Name string
	// Intent is the switch's resolved intent.
	Intent fabric.SwitchIntent
	// Config is the driver's render of Intent.
	Config switchcfg.Config
}

// Refused is a generated case the fabric loader refused (validate's error):
// a profile option the platform or model cannot carry. It is accounted for,
// not checked.
type Refused struct {
	Name string
	Err  error
}

// Variant is one profile of the generated cases: an option (or a mix of
// options) that changes what a switch render writes.
type Variant struct {
	Name    string
	Profile string // the spec.ethernet block, indented for a Profile document
}

// base is the standard RoCE profile (the NVIDIA recipe of
// profiles/roce-lossless.yaml); variants replace parts of it.
const base = `    mtu: 9000
    switchMtu: max
    trust: dscp
    globalPause: false
    classes:
      - {name: roce, priority: 3, dscp: [26], lossless: true, ets: {bandwidthPercent: 50}, ecn: {minThreshold: 150KB, maxThreshold: 1500KB, maxMarkProbability: 100}}
      - {name: cnp, priority: 6, dscp: [48], ets: {strict: true}}
      - {name: default, priority: 0, dscp: rest, ets: {bandwidthPercent: 50}}
    pfc:
      cableLength: 5m
      watchdog: {enabled: true, pollInterval: 100ms, detectionTime: 200ms, restorationTime: 400ms, action: drop}
    roce: {mode: v2, class: roce, cnpClass: cnp}
`

// Variants are the generated profiles: each reaches an option the example
// profiles do not, and together they reach every option a switch render
// depends on.
var Variants = []Variant{
	{"standard", base},
	{"watchdog-off", strings.Replace(base, "watchdog: {enabled: true, pollInterval: 100ms, detectionTime: 200ms, restorationTime: 400ms, action: drop}", "watchdog: {enabled: false}", 1)},
	{"no-watchdog", strings.Replace(base, "\n      watchdog: {enabled: true, pollInterval: 100ms, detectionTime: 200ms, restorationTime: 400ms, action: drop}", "", 1)},
	{"watchdog-forward", strings.Replace(base, "pollInterval: 100ms, detectionTime: 200ms, restorationTime: 400ms, action: drop", "pollInterval: 200ms, detectionTime: 1s, restorationTime: 10s, action: forward", 1)},
	{"watchdog-alert", strings.Replace(base, "pollInterval: 100ms, detectionTime: 200ms, restorationTime: 400ms, action: drop", "pollInterval: 400ms, detectionTime: 1200ms, restorationTime: 2s, action: alert", 1)},
	{"pcp-trust", strings.Replace(strings.Replace(strings.Replace(strings.Replace(base, "trust: dscp", "trust: pcp", 1),
		", dscp: [26]", "", 1), ", dscp: [48]", "", 1), ", dscp: rest", "", 1)},
	{"small-ecn", strings.Replace(base, "minThreshold: 150KB, maxThreshold: 1500KB, maxMarkProbability: 100", "minThreshold: 100KB, maxThreshold: 400KB, maxMarkProbability: 20", 1)},
	{"long-cables", strings.Replace(base, "cableLength: 5m", "cableLength: 300m", 1)},
	{"two-lossless", `    mtu: 9000
    switchMtu: 9100
    trust: dscp
    classes:
      - {name: roce, priority: 3, dscp: [26], lossless: true, ets: {bandwidthPercent: 40}, ecn: {minThreshold: 150KB, maxThreshold: 1500KB}}
      - {name: storage, priority: 4, dscp: [28, 30], lossless: true, ets: {bandwidthPercent: 30}, ecn: {minThreshold: 200KB, maxThreshold: 1MB, maxMarkProbability: 50}}
      - {name: cnp, priority: 6, dscp: [48], ets: {strict: true}}
      - {name: default, priority: 0, dscp: rest, ets: {bandwidthPercent: 30}}
    pfc:
      cableLength: 40m
      watchdog: {enabled: true, pollInterval: 100ms, detectionTime: 400ms, restorationTime: 2s, action: drop}
    roce: {class: roce, cnpClass: cnp}
`},
	{"ecn-only", `    mtu: 4200
    switchMtu: 9000
    trust: dscp
    classes:
      - {name: roce, priority: 3, dscp: [26], ets: {bandwidthPercent: 60}, ecn: {minThreshold: 150KB, maxThreshold: 1500KB, maxMarkProbability: 100}}
      - {name: cnp, priority: 6, dscp: [48], ets: {strict: true}}
      - {name: default, priority: 0, dscp: rest, ets: {bandwidthPercent: 40}}
    roce: {class: roce, cnpClass: cnp, allowLossy: true}
`},
	// The edges of the ranges validate accepts on most platforms: what
	// validate accepts, the vendor's validator must accept too.
	{"edges-low", `    mtu: 1500
    switchMtu: 1500
    trust: dscp
    classes:
      - {name: roce, priority: 3, dscp: [26], lossless: true, ets: {bandwidthPercent: 1}, ecn: {minThreshold: 1KB, maxThreshold: 2KB, maxMarkProbability: 1}}
      - {name: cnp, priority: 6, dscp: [48], ets: {strict: true}}
      - {name: default, priority: 0, dscp: rest, ets: {bandwidthPercent: 99}}
    pfc:
      cableLength: 1m
      watchdog: {enabled: true, pollInterval: 100ms, detectionTime: 100ms, restorationTime: 100ms, action: drop}
    roce: {class: roce, cnpClass: cnp}
`},
	{"watchdog-low", strings.Replace(strings.Replace(base, "pollInterval: 100ms, detectionTime: 200ms, restorationTime: 400ms", "pollInterval: 100ms, detectionTime: 100ms, restorationTime: 100ms", 1), "cableLength: 5m", "cableLength: 1m", 1)},
	{"edges-high", `    mtu: 9000
    switchMtu: max
    trust: dscp
    classes:
      - {name: roce, priority: 3, dscp: [26], lossless: true, ets: {bandwidthPercent: 99}, ecn: {minThreshold: 5MB, maxThreshold: 10MB, maxMarkProbability: 100}}
      - {name: cnp, priority: 6, dscp: [48], ets: {strict: true}}
      - {name: default, priority: 0, dscp: rest, ets: {bandwidthPercent: 1}}
    pfc:
      cableLength: 2000m
      watchdog: {enabled: true, pollInterval: 1000ms, detectionTime: 5000ms, restorationTime: 60000ms, action: drop}
    roce: {class: roce, cnpClass: cnp}
`},
	{"queues-and-tc", `    mtu: 9000
    trust: dscp
    classes:
      - {name: roce, priority: 3, queue: 3, dscp: [24, 26], lossless: true, ets: {bandwidthPercent: 70}, ecn: {minThreshold: 300KB, maxThreshold: 3MB, maxMarkProbability: 10}}
      - {name: cnp, priority: 6, queue: 6, dscp: [48, 50], ets: {strict: true}}
      - {name: bulk, priority: 1, queue: 1, dscp: [8, 10], ets: {bandwidthPercent: 20}}
      - {name: default, priority: 0, queue: 0, dscp: rest, ets: {bandwidthPercent: 10}}
    pfc: {cableLength: 100m}
    roce: {class: roce, cnpClass: cnp}
`},
}

// ExampleFabrics are the repository's example fabrics (relative to its root).
var ExampleFabrics = []string{"profiles/lab/fabric.yaml", "profiles/lab/two-leaf.yaml", "profiles/rails/fabric.yaml"}

// ExampleProfiles are the repository's example Ethernet profiles, rendered
// on every platform and model too.
var ExampleProfiles = []string{"profiles/roce-lossless.yaml", "profiles/roce-lossy-ecn.yaml"}

// Cases returns every render of platform to check: the switches of the
// example fabrics under root (the repository), the example profiles and
// every generated Variant on each of the platform's models. Cases the
// loader refuses are returned apart; an example fabric that does not load
// is an error.
func Cases(root, platform string) ([]Case, []Refused, error) {
	reg := all.Registry()
	drv, err := reg.Driver(platform)
	if err != nil {
		return nil, nil, err
	}
	var cases []Case
	var refused []Refused
	for _, f := range ExampleFabrics {
		fab, err := fabric.Load(filepath.Join(root, f), fabric.Options{Platforms: reg})
		if err != nil {
			return nil, nil, fmt.Errorf("loading example %s: %w", f, err)
		}
		for _, si := range fab.Resolve().Switches {
			if si.Platform != platform {
				continue
			}
			c, err := render(drv, "example "+f+" "+si.Name, si)
			if err != nil {
				return nil, nil, err
			}
			cases = append(cases, c)
		}
	}
	profiles := map[string]string{}
	var names []string
	for _, v := range Variants {
		profiles["generated "+v.Name] = "apiVersion: fabricctl.io/v1alpha1\nkind: Profile\nmetadata: {name: p}\nspec:\n  ethernet:\n" + v.Profile
		names = append(names, "generated "+v.Name)
	}
	for _, p := range ExampleProfiles {
		b, err := os.ReadFile(filepath.Join(root, p))
		if err != nil {
			return nil, nil, fmt.Errorf("reading example profile: %w", err)
		}
		profiles["example "+p] = string(b)
		names = append(names, "example "+p)
	}
	sort.Strings(names)
	info := drv.Info()
	models := []string{""}
	for _, m := range info.Models {
		models = append(models, m.Name)
	}
	for _, n := range names {
		for _, m := range models {
			name := n + "/" + m
			if m == "" {
				name = n + "/default"
			}
			si, err := load(profiles[n], platform, m, info.ExamplePorts)
			if err != nil {
				refused = append(refused, Refused{Name: name, Err: err})
				continue
			}
			c, err := render(drv, name, si)
			if err != nil {
				return nil, nil, err
			}
			cases = append(cases, c)
		}
	}
	return cases, refused, nil
}

func render(drv switchcfg.Driver, name string, si fabric.SwitchIntent) (Case, error) {
	cfg, err := drv.Render(si)
	if err != nil {
		// The loader validated the switch: a render error now is a bug.
		return Case{}, fmt.Errorf("%s: rendering: %w", name, err)
	}
	return Case{Name: name, Intent: si, Config: cfg}, nil
}

// load resolves a one-switch fabric of platform and model using profile.
func load(profile, platform, model string, ports []string) (fabric.SwitchIntent, error) {
	name := profileName(profile)
	fab := fmt.Sprintf("apiVersion: fabricctl.io/v1alpha1\nkind: Fabric\nmetadata: {name: f}\nspec:\n  include: [p.yaml]\n  switches:\n    - {name: sw1, platform: %s, address: 192.0.2.1, profile: %s, model: %q, ports: [%s]}\n",
		platform, name, model, strings.Join(ports, ", "))
	files := map[string]string{"f.yaml": fab, "p.yaml": profile}
	f, err := fabric.Load("f.yaml", fabric.Options{Platforms: all.Registry(), ReadFile: fabric.FilesIn(files)})
	if err != nil {
		return fabric.SwitchIntent{}, err
	}
	sw := f.Resolve().Switches
	if len(sw) != 1 {
		return fabric.SwitchIntent{}, fmt.Errorf("resolved %d switches, want 1", len(sw))
	}
	return sw[0], nil
}

// profileName is the metadata name of a Profile document.
func profileName(doc string) string {
	for _, l := range strings.Split(doc, "\n") {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "metadata: {name: ") {
			return strings.TrimSuffix(strings.TrimPrefix(t, "metadata: {name: "), "}")
		}
		if strings.HasPrefix(t, "name: ") {
			return strings.TrimSpace(strings.TrimPrefix(t, "name: "))
		}
	}
	return "p"
}
