package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/internal/testutil"
)

// runCLI runs fabricctl in-process and returns exit code, stdout and stderr.
func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	g := &globals{stdin: strings.NewReader(""), stdout: &out, stderr: &errb}
	code := execute(context.Background(), g, args)
	return code, out.String(), errb.String()
}

const labFabric = "../../profiles/lab/fabric.yaml"

func TestValidateExitCodes(t *testing.T) {
	code, out, errs := runCLI(t, "validate", "-f", labFabric)
	if code != 0 || !strings.Contains(out, "valid") {
		t.Fatalf("valid fabric: code %d, stdout %q, stderr %q", code, out, errs)
	}
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("apiVersion: fabricctl.io/v1alpha1\nkind: Profile\nmetadata: {name: x}\nspec:\n  ethernet: {mtu: 99999, classes: []}\n  colour: red\n"), 0o644)
	code, out, errs = runCLI(t, "validate", "-f", bad)
	if code != 1 {
		t.Fatalf("invalid file: exit %d, want 1", code)
	}
	if out != "" {
		t.Errorf("invalid file printed results on stdout: %q", out)
	}
	// The decode error does not hide the semantic ones: all in one run.
	for _, want := range []string{bad + ":5:19: spec.ethernet.mtu: 99999 is outside 1280..9216",
		bad + ":5:35: spec.ethernet.classes: required: at least one traffic class",
		bad + ":6:3: spec.colour: unknown field", bad + ": 3 error(s)"} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errs)
		}
	}
	code, _, errs = runCLI(t, "validate", "-f", filepath.Join(dir, "missing.yaml"))
	if code != 1 || !strings.Contains(errs, "file does not exist") {
		t.Errorf("missing file: exit %d, stderr %q", code, errs)
	}
	code, _, errs = runCLI(t, "validate", "-f", dir)
	if code != 1 || !strings.Contains(errs, "is a directory") {
		t.Errorf("directory: exit %d, stderr %q", code, errs)
	}
	code, out, _ = runCLI(t, "validate", "-f", labFabric, "-o", "json")
	var res validateResult
	if code != 0 || json.Unmarshal([]byte(out), &res) != nil || res.APIVersion == "" || res.Hosts != 4 ||
		!res.Valid || res.Kind != "ValidationResult" || res.ErrorCount != 0 || res.WarningCount != 0 || res.Diagnostics == nil {
		t.Errorf("json output: code %d, %q", code, out)
	}
}

// A valid file with warnings: exit 0, the warnings located on stderr with
// their codes, the verdict on stdout; in JSON, the warnings are in the
// document and stderr stays empty.
func TestValidateWarnings(t *testing.T) {
	const file = "testdata/validate/warned.yaml"
	code, out, errs := runCLI(t, "validate", "-f", file)
	if code != 0 || !strings.HasPrefix(out, file+": valid with 3 warning(s)\n") {
		t.Fatalf("exit %d, stdout %q", code, out)
	}
	testutil.Golden(t, "validate/warned.stderr", []byte(errs))
	code, out, errs = runCLI(t, "validate", "-f", file, "-o", "json")
	if code != 0 || errs != "" {
		t.Fatalf("-o json: exit %d, stderr %q", code, errs)
	}
	testutil.Golden(t, "validate/warned.json", []byte(out))
}

// An invalid file with -o json prints the diagnostics document on stdout,
// errors and warnings together, and exits 1 as without it; -o yaml
// prints the same document.
func TestValidateJSONDiagnostics(t *testing.T) {
	const file = "testdata/validate/newcomer.yaml"
	code, text, textErrs := runCLI(t, "validate", "-f", file)
	if code != 1 || text != "" || !strings.HasSuffix(textErrs, file+": 6 error(s), 1 warning(s)\n") {
		t.Fatalf("text: exit %d, stdout %q, stderr %q", code, text, textErrs)
	}
	testutil.Golden(t, "validate/newcomer.stderr", []byte(textErrs))
	code, out, errs := runCLI(t, "validate", "-f", file, "-o", "json")
	if code != 1 || errs != "" {
		t.Fatalf("-o json: exit %d, stderr %q", code, errs)
	}
	testutil.Golden(t, "validate/newcomer.json", []byte(out))
	var res validateResult
	if err := json.Unmarshal([]byte(out), &res); err != nil || res.Valid || res.ErrorCount != 6 || res.WarningCount != 1 ||
		len(res.Diagnostics) != 7 {
		t.Errorf("document: %v %+v", err, res)
	}
	// The text report is the document's diagnostics, line by line.
	for _, d := range res.Diagnostics {
		if !strings.Contains(textErrs, d.String()+"\n") {
			t.Errorf("stderr lacks %q", d.String())
		}
	}
	code, out, _ = runCLI(t, "validate", "-f", file, "-o", "yaml")
	if code != 1 || !strings.Contains(out, "kind: ValidationResult\n") || !strings.Contains(out, "severity: warning\n") ||
		!strings.Contains(out, "code: rdma-device-as-interface\n") {
		t.Errorf("-o yaml: exit %d\n%s", code, out)
	}
	// A file that cannot be read is a document too.
	code, out, _ = runCLI(t, "validate", "-f", "testdata/validate/missing.yaml", "-o", "json")
	if code != 1 || !strings.Contains(out, `"message": "file does not exist"`) || !strings.Contains(out, `"errorCount": 1`) {
		t.Errorf("missing file: exit %d\n%s", code, out)
	}
}

func TestRenderOut(t *testing.T) {
	dir := t.TempDir()
	code, out, errs := runCLI(t, "render", "-f", labFabric, "--out", dir)
	if code != 0 {
		t.Fatalf("render: exit %d: %s", code, errs)
	}
	for _, want := range []string{"hosts/lab-h1.json", "hosts/lab-h4.json", "switches/leaf-01.intent.yaml", "switches/leaf-02.intent.yaml", "subnet-managers/sm-01"} {
		if !strings.Contains(out, want) {
			t.Errorf("render did not write %s; wrote:\n%s", want, out)
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, "hosts", "lab-h1.json"))
	if err != nil {
		t.Fatal(err)
	}
	var host struct {
		Host       string `json:"host"`
		Interfaces []struct {
			Name string `json:"name"`
			MTU  int    `json:"mtu"`
			RoCE struct {
				ToS int `json:"tos"`
			} `json:"roce"`
		} `json:"interfaces"`
	}
	if err := json.Unmarshal(b, &host); err != nil || host.Host != "lab-h1" || len(host.Interfaces) != 1 ||
		host.Interfaces[0].MTU != 9000 || host.Interfaces[0].RoCE.ToS != 106 {
		t.Errorf("hosts/lab-h1.json: %v %+v", err, host)
	}

	// --target renders one target; an unknown one is an error naming the valid ones.
	code, out, _ = runCLI(t, "render", "-f", labFabric, "--target", "leaf-02")
	if code != 0 || !strings.Contains(out, "leaf-02") || strings.Contains(out, "lab-h1") {
		t.Errorf("--target leaf-02: exit %d\n%s", code, out)
	}
	code, _, errs = runCLI(t, "render", "-f", labFabric, "--target", "leaf-03")
	if code != 1 || !strings.Contains(errs, `no target named "leaf-03"`) || !strings.Contains(errs, "leaf-01, leaf-02") {
		t.Errorf("unknown target: exit %d, %s", code, errs)
	}

	// An invalid fabric writes nothing.
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	os.WriteFile(bad, []byte("apiVersion: fabricctl.io/v1alpha1\nkind: Fabric\nmetadata: {name: x}\nspec: {hosts: [{name: a}]}\n"), 0o644)
	empty := filepath.Join(t.TempDir(), "out")
	code, _, _ = runCLI(t, "render", "-f", bad, "--out", empty)
	if _, err := os.Stat(empty); code != 1 || err == nil {
		t.Errorf("invalid fabric: exit %d, output dir exists: %v", code, err == nil)
	}
}

func TestSchemaCommand(t *testing.T) {
	code, out, _ := runCLI(t, "schema")
	var s map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &s) != nil || s["$defs"] == nil {
		t.Fatalf("schema: exit %d, not a JSON schema", code)
	}
}

func TestUnknownOutputFormat(t *testing.T) {
	code, _, errs := runCLI(t, "validate", "-f", labFabric, "-o", "xml")
	if code != 1 || !strings.Contains(errs, `unknown output format "xml"`) {
		t.Errorf("exit %d, %s", code, errs)
	}
}

func TestRenderNativeSwitchConfigs(t *testing.T) {
	dir := t.TempDir()
	if code, _, errs := runCLI(t, "render", "-f", labFabric, "--out", dir); code != 0 {
		t.Fatalf("render: %s", errs)
	}
	for file, want := range map[string]string{
		"switches/leaf-01.nvue":                 "nv set",
		"switches/leaf-02.config_db.json":       "DSCP_TO_TC_MAP",
		"subnet-managers/sm-01.partitions.conf": "storage=0x0002",
	} {
		b, err := os.ReadFile(filepath.Join(dir, file))
		if err != nil || !strings.Contains(string(b), want) {
			t.Errorf("%s: %v; want it to contain %q", file, err, want)
		}
	}
}

func TestPortNamesCheckedByPlatform(t *testing.T) {
	dir := t.TempDir()
	data, _ := os.ReadFile(labFabric)
	bad := strings.Replace(string(data), `ports: ["swp1-4"]`, `ports: ["Ethernet1-4"]`, 1)
	bad = strings.Replace(bad, "include: [../", "include: ["+filepath.Join(filepath.Dir(mustAbs(t, labFabric)), "..")+"/", 1)
	bad = strings.Replace(bad, ", ../ib-partitions.yaml", ", "+filepath.Join(filepath.Dir(mustAbs(t, labFabric)), "..", "ib-partitions.yaml"), 1)
	f := filepath.Join(dir, "fabric.yaml")
	os.WriteFile(f, []byte(bad), 0o644)
	code, _, errs := runCLI(t, "validate", "-f", f)
	if code != 1 || !strings.Contains(errs, "spec.switches[0].ports[0]") || !strings.Contains(errs, "Ethernet1") {
		t.Errorf("a SONiC-style port on a Cumulus switch must be refused: exit %d\n%s", code, errs)
	}
}

func mustAbs(t *testing.T, p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// Every command that loads a fabric says its warnings on stderr before its
// results, not validate alone; stdout keeps only the results.
func TestWarningsReachEveryCommand(t *testing.T) {
	const file = "testdata/validate/warned.yaml"
	want, err := os.ReadFile("testdata/validate/warned.stderr")
	if err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCLI(t, "render", "-f", file, "--out", t.TempDir())
	if code != 0 {
		t.Fatalf("render: exit %d\n%s", code, errs)
	}
	if !strings.HasPrefix(errs, string(want)) || strings.Contains(out, "warning:") {
		t.Errorf("render: stderr %q\nstdout %q", errs, out)
	}
}
