package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/switchcfg/eos"
)

// auditFabric writes a fabric with one EOS switch and its profile, and a
// capture directory holding the switch's configuration as rendered.
func auditFabric(t *testing.T) (fabricFile, captures string, rendered string) {
	t.Helper()
	dir := t.TempDir()
	profile := `apiVersion: fabricctl.io/v1alpha1
kind: Profile
metadata: {name: roce}
spec:
  ethernet:
    mtu: 9000
    switchMtu: max
    classes:
      - {name: default, priority: 0, dscp: rest, ets: {bandwidthPercent: 50}}
      - {name: roce, priority: 3, dscp: [26], lossless: true, ets: {bandwidthPercent: 50}, ecn: {minThreshold: 150KB, maxThreshold: 1500KB}}
      - {name: cnp, priority: 6, dscp: [48], ets: {strict: true}}
    pfc: {watchdog: {enabled: true, pollInterval: 100ms, detectionTime: 200ms, restorationTime: 400ms}}
    roce: {class: roce, cnpClass: cnp}
`
	fab := `apiVersion: fabricctl.io/v1alpha1
kind: Fabric
metadata: {name: audit}
spec:
  include: [roce.yaml]
  switches:
    - {name: leaf-07, platform: arista-eos, model: 7060X6-64PE, address: 10.0.1.7, profile: roce, ports: ["Ethernet1-2"]}
`
	for name, text := range map[string]string{"roce.yaml": profile, "fabric.yaml": fab} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f, err := fabric.Load(filepath.Join(dir, "fabric.yaml"), fabric.Options{Platforms: platforms()})
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := eos.New().Render(f.Resolve().Switches[0])
	if err != nil {
		t.Fatal(err)
	}
	captures = filepath.Join(dir, "captures")
	if err := os.Mkdir(captures, 0o755); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, "fabric.yaml"), captures, cfg.Text
}

// TestSwitchParse: `fabricctl switch parse` prints a captured running
// configuration as the canonical intent, with fabric.SwitchIntent's JSON
// fields.
func TestSwitchParse(t *testing.T) {
	_, captures, rendered := auditFabric(t)
	file := filepath.Join(captures, "leaf-07.txt")
	os.WriteFile(file, []byte(rendered), 0o644)
	code, out, errOut := runCLI(t, "switch", "parse", "--platform", "arista-eos", file, "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var si fabric.SwitchIntent
	if err := json.Unmarshal([]byte(out), &si); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if si.Platform != "arista-eos" || si.Model != "strata" || si.MTU != 9214 || si.Trust != "dscp" ||
		len(si.PFC.Priorities) != 1 || si.PFC.Priorities[0] != 3 || len(si.Classes) != 3 || !strings.Contains(out, `"bandwidthPercent": 50`) {
		t.Errorf("intent %+v", si)
	}
	if code, out, _ := runCLI(t, "switch", "parse", "--platform", "arista-eos", file); code != 0 || !strings.Contains(out, "platform: arista-eos\n") {
		t.Errorf("YAML by default: exit %d\n%s", code, out)
	}
	if code, _, errOut := runCLI(t, "switch", "parse", "--platform", "os10", file); code != 1 || !strings.Contains(errOut, "valid: arista-eos") {
		t.Errorf("unknown platform: exit %d %s", code, errOut)
	}
}

// TestDriftFromDir: `fabricctl drift --from-dir` audits captured read-backs
// against the fabric without connecting: exit 0 when they match, 2 with the
// drifted setting named, 1 when a switch's capture is missing.
func TestDriftFromDir(t *testing.T) {
	fab, captures, rendered := auditFabric(t)
	file := filepath.Join(captures, "leaf-07.cfg")
	os.WriteFile(file, []byte(rendered), 0o644)
	if code, out, errOut := runCLI(t, "drift", "-f", fab, "--from-dir", captures); code != 0 || !strings.Contains(out, "no drift") {
		t.Fatalf("matching capture: exit %d\n%s%s", code, out, errOut)
	}
	os.WriteFile(file, []byte(strings.ReplaceAll(rendered, "bandwidth percent 50", "bandwidth percent 30")), 0o644)
	code, out, _ := runCLI(t, "drift", "-f", fab, "--from-dir", captures, "-o", "json")
	if code != 2 || !strings.Contains(out, `"setting": "bandwidthPercent"`) || !strings.Contains(out, `"component": "classes[roce]"`) {
		t.Errorf("drifted capture: exit %d\n%s", code, out)
	}
	os.Remove(file)
	if code, out, _ := runCLI(t, "drift", "-f", fab, "--from-dir", captures); code != 1 || !strings.Contains(out, "no capture of switch leaf-07") {
		t.Errorf("missing capture: exit %d\n%s", code, out)
	}
}

// TestSwitchParseOpenSM (issue 26): `switch parse --platform opensm` reads a
// partitions.conf offline, rates in Gb/s (rate=2 is 2.5 Gb/s, not 2), and
// refuses what OpenSM would misread with its line and column.
func TestSwitchParseOpenSM(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "partitions.conf")
	os.WriteFile(file, []byte("storage=0x0002, ipoib, rate=2, mtu=4 : ALL=limited, 0x0002c903000e0b72=full ;\n"), 0o644)
	code, out, errOut := runCLI(t, "switch", "parse", "--platform", "opensm", file, "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var c struct {
		Kind       string                   `json:"kind"`
		Partitions []fabric.PartitionIntent `json:"partitions"`
		Extras     []any                    `json:"extras"`
	}
	if err := json.Unmarshal([]byte(out), &c); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if c.Kind != "opensm" || len(c.Partitions) != 1 || c.Partitions[0].Rate != 2.5 || c.Partitions[0].RateCode != 2 ||
		c.Partitions[0].MTU != 2048 || len(c.Partitions[0].Members) != 2 || c.Extras == nil {
		t.Errorf("reading %+v\n%s", c, out)
	}
	os.WriteFile(file, []byte("p=0x0002 : 0x0002c903000e0b72=fulll ;\n"), 0o644)
	if code, _, errOut := runCLI(t, "switch", "parse", "--platform", "opensm", file); code != 1 || !strings.Contains(errOut, file+": 1:") || !strings.Contains(errOut, "fulll") {
		t.Errorf("misspelt membership: exit %d %s", code, errOut)
	}
}

// TestDriftFromDirSubnetManager (issue 26): drift --from-dir audits a
// subnet manager's captured partitions.conf too, instead of leaving it out
// in silence: 0 when it means the intent, 2 when OpenSM would misread it
// (the line named), 1 when the capture is missing.
func TestDriftFromDirSubnetManager(t *testing.T) {
	dir := t.TempDir()
	if code, _, errOut := runCLI(t, "render", "-f", labFabric, "--target", "sm-01", "--out", dir); code != 0 {
		t.Fatalf("render: %d %s", code, errOut)
	}
	rendered, err := os.ReadFile(filepath.Join(dir, "subnet-managers", "sm-01.partitions.conf"))
	if err != nil {
		t.Fatal(err)
	}
	captures := t.TempDir()
	file := filepath.Join(captures, "sm-01.conf")
	os.WriteFile(file, rendered, 0o644)
	at := []string{"drift", "-f", labFabric, "--target", "sm-01", "--from-dir", captures}
	if code, out, errOut := runCLI(t, at...); code != 0 || !strings.Contains(out, "no drift") {
		t.Errorf("matching capture: exit %d\n%s%s", code, out, errOut)
	}
	os.WriteFile(file, []byte(strings.ReplaceAll(string(rendered), "\n", "\r\n")), 0o644)
	if code, out, _ := runCLI(t, at...); code != 2 || !strings.Contains(out, "carriage return") {
		t.Errorf("CRLF capture: exit %d\n%s", code, out)
	}
	os.Remove(file)
	if code, out, _ := runCLI(t, at...); code != 1 || !strings.Contains(out, "no capture of subnet manager sm-01") {
		t.Errorf("missing capture: exit %d\n%s", code, out)
	}
}

// TestSwitchParseDiffsAgainstRender (issue 26): `switch parse` YAML is
// written like render's switch intent, so a diff of the two shows only
// what the capture cannot know (name, address, profile, the model beyond
// its family, class names) and the drift.
func TestSwitchParseDiffsAgainstRender(t *testing.T) {
	fab, captures, rendered := auditFabric(t)
	file := filepath.Join(captures, "leaf-07.txt")
	os.WriteFile(file, []byte(rendered), 0o644)
	out := t.TempDir()
	if code, _, errOut := runCLI(t, "render", "-f", fab, "--target", "leaf-07", "--out", out); code != 0 {
		t.Fatalf("render: %d %s", code, errOut)
	}
	intent, err := os.ReadFile(filepath.Join(out, "switches", "leaf-07.intent.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	code, parsed, errOut := runCLI(t, "switch", "parse", "--platform", "arista-eos", "--model", "7060X6-64PE", file)
	if code != 0 {
		t.Fatalf("switch parse: %d %s", code, errOut)
	}
	a, b := strings.Split(string(intent), "\n"), strings.Split(parsed, "\n")
	var differ []string
	for i := 0; i < max(len(a), len(b)); i++ {
		var x, y string
		if i < len(a) {
			x = a[i]
		}
		if i < len(b) {
			y = b[i]
		}
		if x != y {
			differ = append(differ, x+" | "+y)
		}
	}
	// An EOS configuration names no classes and no RoCE or CNP class, and
	// says the hardware family, not the model.
	unknowable := []string{"name: ", "address: ", "profile: ", "model: ", "  - name: ", "roceClass: ", "cnpClass: "}
	for _, d := range differ {
		if !slices.ContainsFunc(unknowable, func(p string) bool { return strings.HasPrefix(d, p) }) {
			t.Errorf("render and switch parse differ beyond what a capture cannot know: %q", d)
		}
	}
}

// TestDriftFromDirUnparsed (issue 26, item 2): a capture with QoS input the
// reader did not understand is listed by switch parse (line, text, reason)
// and makes drift exit 1 (unknown), not 0, unless --allow-unparsed.
func TestDriftFromDirUnparsed(t *testing.T) {
	fab, captures, rendered := auditFabric(t)
	file := filepath.Join(captures, "leaf-07.cfg")
	os.WriteFile(file, []byte(rendered+"policy-map type quality-of-service PM\n   class C\n      set traffic-class 5\n"), 0o644)
	code, out, errOut := runCLI(t, "switch", "parse", "--platform", "arista-eos", file, "-o", "json")
	var si fabric.SwitchIntent
	if err := json.Unmarshal([]byte(out), &si); code != 0 || err != nil {
		t.Fatalf("switch parse: %d %v %s", code, err, errOut)
	}
	if len(si.Unparsed) != 1 || si.Unparsed[0].Text != "policy-map type quality-of-service PM" || si.Unparsed[0].Line == 0 {
		t.Errorf("unparsed %+v", si.Unparsed)
	}
	code, out, _ = runCLI(t, "drift", "-f", fab, "--from-dir", captures)
	if code != 1 || !strings.Contains(out, "QoS input not understood") || !strings.Contains(out, "policy-map type quality-of-service PM") {
		t.Errorf("drift over unparsed input: exit %d\n%s", code, out)
	}
	if code, out, _ := runCLI(t, "drift", "-f", fab, "--from-dir", captures, "--allow-unparsed"); code != 0 {
		t.Errorf("--allow-unparsed: exit %d\n%s", code, out)
	}
}
