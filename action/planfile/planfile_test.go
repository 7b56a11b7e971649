package planfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/internal/buildinfo"
)

func samplePlan() *fabric.Plan {
	return &fabric.Plan{APIVersion: fabric.APIVersion, Targets: []fabric.TargetPlan{
		{Target: "leaf-01", Tier: fabric.TierSwitch, Changes: []fabric.Change{
			{Component: "classes[roce]", Setting: "ecn.minBytes", Old: "300000", New: "150000"},
			{Setting: "classes[scavenger]", Old: "priority 5, trafficClass 5", New: fabric.ValueAbsent},
			{Setting: "trust", Old: "pcp", New: "dscp", Disruptive: true, Note: "changing trust reclassifies all traffic"},
		}, Native: &fabric.NativeDiff{Platform: "cumulus-nvue", Format: "commands", Diff: "--- a\n+++ b\n"}},
		{Target: "h1", Tier: fabric.TierHost, Changes: []fabric.Change{
			{Component: "eth0", Setting: "mtu", Old: "1500", New: "9000", Disruptive: true, Flaps: true, Note: "resets"},
		}},
		{Target: "h2", Tier: fabric.TierHost, Changes: []fabric.Change{}},
	}}
}

// TestRoundTrip: what Write writes, Read reads back unchanged, tiers and
// native diffs included.
func TestRoundTrip(t *testing.T) {
	dir := t.TempDir()
	fab := filepath.Join(dir, "fabric.yaml")
	data := []byte("kind: Fabric\n")
	pf, err := New(fab, data, []string{"leaf-01", "h2", "h1", "h1"}, samplePlan(), buildinfo.Info{Version: "v1.2.3", Revision: "abc"},
		time.Date(2026, 5, 1, 12, 0, 0, 5, time.FixedZone("x", 3600)))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "plan.json")
	if err := Write(path, pf); err != nil {
		t.Fatal(err)
	}
	got, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(pf, got, cmp.AllowUnexported(fabric.TargetPlan{})); diff != "" {
		t.Errorf("round trip (-wrote +read):\n%s", diff)
	}
	if got.Kind != Kind || got.Fabric.Path != fab || got.Fabric.SHA256 != Sum(data) ||
		strings.Join(got.Targets, ",") != "h1,h2,leaf-01" || got.Created.Location() != time.UTC {
		t.Errorf("header %+v", got)
	}
	if len(Drift(pf.Plan, got.Plan)) != 0 {
		t.Errorf("a plan read back drifts from itself: %v", Drift(pf.Plan, got.Plan))
	}
	if err := got.CheckFabric(fab, data); err != nil {
		t.Errorf("the same file: %v", err)
	}
	if !got.SameTargets([]string{"leaf-01", "h1", "h2"}) || got.SameTargets(nil) {
		t.Error("SameTargets")
	}
}

// TestCheckFabric: another file, or the same file changed, is refused.
func TestCheckFabric(t *testing.T) {
	dir := t.TempDir()
	fab := filepath.Join(dir, "fabric.yaml")
	pf, _ := New(fab, []byte("a"), nil, samplePlan(), buildinfo.Info{}, time.Now())
	if err := pf.CheckFabric(filepath.Join(dir, "other.yaml"), []byte("a")); !errors.Is(err, ErrOtherFabric) {
		t.Errorf("another file: %v", err)
	}
	if err := pf.CheckFabric(fab, []byte("b")); !errors.Is(err, ErrFabricChanged) {
		t.Errorf("changed file: %v", err)
	}
	wd, _ := os.Getwd()
	defer os.Chdir(wd)
	os.Chdir(dir)
	if err := pf.CheckFabric("./fabric.yaml", []byte("a")); err != nil {
		t.Errorf("a relative path to the same file: %v", err)
	}
}

// TestDecodeRefuses: other documents are not plans.
func TestDecodeRefuses(t *testing.T) {
	good, _ := (&File{APIVersion: fabric.APIVersion, Kind: Kind, Fabric: Source{Path: "/f", SHA256: "00"}, Plan: samplePlan()}).Marshal()
	if _, err := Decode(good); err != nil {
		t.Fatalf("a good plan: %v", err)
	}
	for name, doc := range map[string]string{
		"a plan printed by plan -o json": `{"apiVersion":"fabricctl.io/v1alpha1","kind":"Plan","targets":[]}`,
		"unknown field":                  strings.Replace(string(good), `"kind"`, `"colour":"red","kind"`, 1),
		"unknown tier":                   strings.Replace(string(good), `"tier": "host"`, `"tier": "router"`, 1),
		"no fabric":                      strings.Replace(string(good), `"path": "/f"`, `"path": ""`, 1),
		"other apiVersion":               strings.Replace(string(good), fabric.APIVersion, "fabricctl.io/v2", 1),
		"two documents":                  string(good) + string(good),
	} {
		if _, err := Decode([]byte(doc)); err == nil {
			t.Errorf("%s: decoded", name)
		}
	}
}

// TestDrift names every target and setting that differs, and nothing else.
func TestDrift(t *testing.T) {
	saved := samplePlan()
	now := samplePlan()
	now.Targets[0].Changes[0].Old = "600000"                                                                // the device moved
	now.Targets[1].Changes = nil                                                                            // h1 fixed by hand
	now.Targets[2].Changes = []fabric.Change{{Component: "eth0", Setting: "mtu", Old: "1500", New: "9000"}} // h2 drifted
	now.Targets = append(now.Targets, fabric.TargetPlan{Target: "h3", Tier: fabric.TierHost, Error: "ssh: no route"})
	now.Targets[0].Native = nil // native text is not compared
	var got []string
	for _, d := range Drift(saved, now) {
		got = append(got, d.String())
	}
	want := []string{
		"h1 eth0 mtu: saved plan 1500 → 9000 (disruptive); now nothing to change",
		"h2 eth0 mtu: saved plan nothing to change; now 1500 → 9000",
		"h3: saved plan does not have this target; now could not observe it (ssh: no route)",
		"leaf-01 classes[roce] ecn.minBytes: saved plan 300000 → 150000; now 600000 → 150000",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("drift (-want +got):\n%s", diff)
	}
	if d := Drift(saved, samplePlan()); len(d) != 0 {
		t.Errorf("identical plans drift: %v", d)
	}
	flipped := samplePlan()
	flipped.Targets[0].Changes[2].Disruptive = false
	if d := Drift(saved, flipped); len(d) != 1 {
		t.Errorf("a change that is no longer disruptive: %v", d)
	}
}

// FuzzDecode: whatever a saved-plan file holds, Decode returns a plan that
// passed its checks or an error; it never panics.
func FuzzDecode(f *testing.F) {
	f.Add([]byte(`{"apiVersion":"fabricctl.io/v1alpha1","kind":"SavedPlan","fabric":{"path":"f.yaml","sha256":"ab"},"plan":{"targets":[]}}`))
	f.Add([]byte(`{}`))
	f.Add([]byte(`{"kind":"SavedPlan"} {}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := Decode(b)
		if err == nil && (p.Plan == nil || p.Fabric.Path == "" || p.Fabric.SHA256 == "" || p.Kind != Kind) {
			t.Fatalf("accepted an incomplete plan: %+v", p)
		}
	})
}
