package junos

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/switchcfg"
)

// ecnOn is the recipe on model with the RoCE class's ECN thresholds min
// and max (bytes).
func ecnOn(model string, min, max int64) fabric.SwitchIntent {
	in := recipe()
	in.Name, in.Model = "sw1", model
	in.Classes[1].ECN = &fabric.SwitchECN{MinBytes: min, MaxBytes: max, MaxMarkProbability: 100}
	return in
}

var fillLevelRE = regexp.MustCompile(`(?m)^set class-of-service drop-profiles \S+ interpolate fill-level \[ (\S+) (\S+) \]$`)

// Issue 29: the standard RoCE ECN ramp (150 KB–1.5 MB, or 100–400 KB) on a
// large-buffer QFX5130/5230/5240 rendered `fill-level [ 1 1 ]` (and
// 100–400 KB did on the QFX5120 and QFX5210 too): both thresholds rounded
// to the 1 % floor, Juniper's YANG refuses the repeated leaf-list value,
// the ramp was lost, and validate accepted it. Now Junos OS Evolved, whose
// schema types fill levels as decimals, gets hundredths of a percent;
// where two thresholds still land on one step, the one beyond it moves a
// step out (each stays within a step: no drift); where both lie below the
// first step the render is refused naming the switch, its model's buffer
// and both thresholds. The read-back agrees and renders the same again.
func TestECNRampKeepsDistinctFillLevels(t *testing.T) {
	d := New()
	for _, tc := range []struct {
		model    string
		min, max int64
		want     string   // the fill-level statement's values
		refused  []string // or the error's parts
	}{
		{model: "qfx5130", min: 150_000, max: 1_500_000, want: "0.11 1.14"}, // 132 MB
		{model: "qfx5230", min: 150_000, max: 1_500_000, want: "0.13 1.33"}, // 113 MB
		{model: "qfx5240", min: 150_000, max: 1_500_000, want: "0.09 0.91"}, // 165 MB
		{model: "qfx5240-64od", min: 100_000, max: 400_000, want: "0.06 0.24"},
		{model: "qfx5220", min: 100_000, max: 400_000, want: "0.16 0.63"},    // 64 MB
		{model: "qfx5210", min: 150_000, max: 1_500_000, want: "1 4"},        // classic, 42 MB
		{model: "qfx5120", min: 150_000, max: 1_500_000, want: "1 5"},        // classic, 32 MB
		{model: "qfx5120", min: 100_000, max: 400_000, want: "1 2"},          // max 1.25 % → 1: up to 2
		{model: "qfx5100", min: 230_000, max: 235_000, want: "1 2"},          // both 1.9x % → 2: min down to 1
		{model: "qfx5120", min: 320_000, max: 320_000, want: "1 2"},          // both exactly 1 %
		{model: "qfx5130", min: 500_000, max: 500_000, want: "0.37 0.38"},    // both 0.378 % → 0.38
		{model: "qfx5120", min: 32_000_000, max: 32_000_000, want: "99 100"}, // the whole buffer
		{model: "qfx5210", min: 100_000, max: 400_000, refused: []string{ // 0.24 % and 0.95 % of 42 MB
			`class "roce" on switch "sw1"`, "100000 B and 400000 B", "below the first fill-level step (1 %, 420000 B)",
			"42000000 B queue buffer of model qfx5210", "at least 420000 B"}},
		{model: "qfx5240", min: 5_000, max: 10_000, refused: []string{"(0.01 %, 16500 B)", "steps of 0.01 %", "at least 16500 B"}},
	} {
		name := fmt.Sprintf("%s %d-%d", tc.model, tc.min, tc.max)
		in := ecnOn(tc.model, tc.min, tc.max)
		cfg, err := d.Render(in)
		if tc.refused != nil {
			if err == nil {
				m := fillLevelRE.FindStringSubmatch(cfg.Text)
				t.Errorf("%s: rendered %v, want a refusal", name, m)
				continue
			}
			if !errors.Is(err, switchcfg.ErrNotSupported) {
				t.Errorf("%s: %v does not wrap ErrNotSupported", name, err)
			}
			for _, w := range tc.refused {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%s: want %q in %v", name, w, err)
				}
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		m := fillLevelRE.FindStringSubmatch(cfg.Text)
		if m == nil || m[1]+" "+m[2] != tc.want {
			t.Errorf("%s: fill levels %v, want [ %s ]", name, m, tc.want)
			continue
		}
		got, err := d.ParseIntent(setReadback(cfg.Text), in)
		if err != nil {
			t.Fatal(err)
		}
		if diffs := switchcfg.CompareFor(d, in, got); len(diffs) != 0 {
			t.Errorf("%s: read back as drift: %v", name, diffs)
		}
		got.Model, got.Name = in.Model, in.Name
		again, err := d.Render(got)
		if err != nil || again.Text != cfg.Text {
			t.Errorf("%s: render of the read-back differs (%v)", name, err)
		}
	}
}

// Every model, a sweep of thresholds: the render writes two ascending
// fill levels the schema takes (whole percents on classic Junos, at most
// two decimals on Evolved) or refuses; what it writes reads back within
// the switch's quantum.
func TestECNFillLevelsSweep(t *testing.T) {
	d := New()
	whole := regexp.MustCompile(`^(100|[1-9]?[0-9])$`)
	decimal := regexp.MustCompile(`^(100|[1-9]?[0-9])(\.[0-9]{1,2})?$`)
	for _, m := range info.Models {
		for min := int64(10_000); min <= 20_000_000; min = min * 3 / 2 {
			for _, f := range []int64{1, 2, 3, 10} {
				for _, extra := range []int64{0, 1, 7_000} {
					max := min*f + extra
					in := ecnOn(m.Name, min, max)
					cfg, err := d.Render(in)
					if err != nil {
						if !errors.Is(err, switchcfg.ErrNotSupported) || !strings.Contains(err.Error(), "below the first fill-level step") && !strings.Contains(err.Error(), "exceeds") {
							t.Errorf("%s %d-%d: %v", m.Name, min, max, err)
						}
						continue
					}
					v := fillLevelRE.FindStringSubmatch(cfg.Text)
					if v == nil {
						t.Fatalf("%s %d-%d: no fill levels in\n%s", m.Name, min, max, cfg.Text)
					}
					lo, _ := strconv.ParseFloat(v[1], 64)
					hi, _ := strconv.ParseFloat(v[2], 64)
					re := whole
					if Evolved(m.Name) {
						re = decimal
					}
					if !re.MatchString(v[1]) || !re.MatchString(v[2]) || !(lo < hi) || lo <= 0 {
						t.Errorf("%s %d-%d: fill-level [ %s %s ]", m.Name, min, max, v[1], v[2])
					}
					got, err := d.ParseIntent(setReadback(cfg.Text), in)
					if err != nil {
						t.Fatal(err)
					}
					if diffs := switchcfg.CompareFor(d, in, got); len(diffs) != 0 {
						t.Errorf("%s %d-%d: read back as drift: %v", m.Name, min, max, diffs)
					}
					got.Model, got.Name = in.Model, in.Name
					if again, err := d.Render(got); err != nil || again.Text != cfg.Text {
						t.Errorf("%s %d-%d: the read-back renders otherwise (%v)", m.Name, min, max, err)
					}
				}
			}
		}
	}
}

// A mark probability of 0 would write drop-probability [ 0 0 ], which
// Junos's schema refuses (repeated leaf-list value): refused.
func TestECNZeroMarkProbabilityRefused(t *testing.T) {
	in := ecnOn("qfx5120", 150_000, 1_500_000)
	in.Classes[1].ECN.MaxMarkProbability = 0
	cfg, err := New().Render(in)
	if err == nil {
		t.Fatalf("rendered:\n%s", cfg.Text)
	}
	if !errors.Is(err, switchcfg.ErrNotSupported) || !strings.Contains(err.Error(), `class "roce"`) || !strings.Contains(err.Error(), "mark probability 0") {
		t.Errorf("error: %v", err)
	}
}

// `fabricctl validate` refuses a ramp below the first fill-level step at
// the switch's profile, naming the switch, its model's buffer, both
// thresholds and the class (the render error route); the same profile
// passes where it has two steps (QFX5120: [ 1 2 ]; QFX5240: hundredths).
func TestValidateRefusesLostECNRamp(t *testing.T) {
	r := switchcfg.NewRegistry()
	Register(r)
	files := map[string]string{
		"f.yaml": "apiVersion: fabricctl.io/v1alpha1\nkind: Fabric\nmetadata: {name: f}\nspec:\n  include: [p.yaml]\n  switches:\n" +
			"    - {name: leaf1, platform: junos, address: 192.0.2.1, profile: p, model: qfx5210, ports: [et-0/0/0]}\n" +
			"    - {name: leaf2, platform: junos, address: 192.0.2.2, profile: p, model: qfx5120, ports: [et-0/0/0]}\n" +
			"    - {name: leaf3, platform: junos, address: 192.0.2.3, profile: p, model: qfx5240, ports: [et-0/0/0]}\n",
		"p.yaml": "apiVersion: fabricctl.io/v1alpha1\nkind: Profile\nmetadata: {name: p}\nspec:\n  ethernet:\n    mtu: 9000\n    trust: dscp\n    classes:\n" +
			"      - {name: roce, priority: 3, dscp: [26], lossless: true, ets: {bandwidthPercent: 50}, ecn: {minThreshold: 100KB, maxThreshold: 400KB, maxMarkProbability: 20}}\n" +
			"      - {name: cnp, priority: 6, dscp: [48], ets: {strict: true}}\n" +
			"      - {name: default, priority: 0, dscp: rest, ets: {bandwidthPercent: 50}}\n" +
			"    roce: {class: roce, cnpClass: cnp}\n",
	}
	_, err := fabric.Load("f.yaml", fabric.Options{Platforms: r, ReadFile: fabric.FilesIn(files)})
	if err == nil {
		t.Fatal("a ramp below the QFX5210's first fill-level step (it rendered fill-level [ 1 1 ]) passed validation")
	}
	for _, w := range []string{"f.yaml:7:", "spec.switches[0].profile", `switch "leaf1"`, "model qfx5210", "42000000 B", "100000 B and 400000 B", "spec.ethernet.classes[0].name at p.yaml:9:"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("want %q in:\n%v", w, err)
		}
	}
	if n := strings.Count(err.Error(), "\n"); n != 0 || strings.Contains(err.Error(), "leaf2") || strings.Contains(err.Error(), "leaf3") {
		t.Errorf("the QFX5120 and QFX5240 keep the ramp, yet:\n%v", err)
	}
}

// A DSCP listed twice in one class (CheckIntent lets it pass; the fabric
// loader refuses it, other intents may carry it) is written once: a
// repeated code point is a repeated leaf-list value, which Junos's schema
// refuses.
func TestRenderWritesEachCodePointOnce(t *testing.T) {
	in := recipe()
	in.Classes[1].DSCP = []int{26, 26}
	cfg, err := New().Render(in)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(cfg.Text, "forwarding-class roce loss-priority low code-points 011010\n") ||
		strings.Count(cfg.Text, "input dscp code-point 011010 pfc\n") != 1 {
		t.Errorf("rendering:\n%s", cfg.Text)
	}
}

// Junos names schedulers, drop profiles and forwarding classes 1..64
// characters (its schema's length); the scheduler is the class name with
// "-sched": a 59-character class name rendered a 65-character scheduler
// name, which Junos refuses. 58 characters is the longest class name.
func TestRenderClassNameFitsJunosNames(t *testing.T) {
	in := recipe()
	in.Classes[1].Name = "r" + strings.Repeat("o", 57)
	in.RoCEClass = in.Classes[1].Name
	cfg, err := New().Render(in)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(cfg.Text, "\n") {
		for _, w := range strings.Fields(l) {
			if len(w) > 64 {
				t.Errorf("a name of %d characters: %s", len(w), l)
			}
		}
	}
	in.Classes[1].Name += "x"
	in.RoCEClass = in.Classes[1].Name
	if _, err := New().Render(in); err == nil || !errors.Is(err, switchcfg.ErrNotSupported) || !strings.Contains(err.Error(), "at most 58") {
		t.Errorf("a 59-character class name: %v", err)
	}
}
