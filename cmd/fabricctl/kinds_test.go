package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/internal/jsonschema"
	"github.com/fabricctl/fabricctl/internal/output"
)

// TestOutputDocumentsMatchSchemas runs, for every kind of output document,
// commands that print one, and holds each document to its published schema
// (fabricctl schema --output-kind): every member is in the schema, of its
// type, and every required one is there, "kind" included.
func TestOutputDocumentsMatchSchemas(t *testing.T) {
	docs := map[string][]string{} // kind → documents printed
	printed := func(kind string, wantCode int, args ...string) {
		t.Helper()
		code, out, errs := runCLI(t, args...)
		if code != wantCode {
			t.Fatalf("%v: exit %d, want %d; stderr %s", args, code, wantCode, errs)
		}
		docs[kind] = append(docs[kind], out)
	}

	printed("Version", 0, "version", "-o", "json")
	printed("ValidationResult", 0, "validate", "-f", labFabric, "-o", "json")
	printed("ValidationResult", 1, "validate", "-f", "testdata/validate/missing.yaml", "-o", "json")
	printed("RenderResult", 0, "render", "-f", labFabric, "-o", "json")
	printed("RenderResult", 0, "render", "-f", "../../profiles/lab/ib.yaml", "-o", "json")
	printed("InitResult", 0, "init", "--out", t.TempDir(), "--force", "--hosts", "2", "-o", "json")
	// A profile holds no targets: apply and recover print their documents
	// without reaching anything.
	printed("ApplyResult", 0, "apply", "-f", "../../profiles/roce-lossless.yaml", "--yes", "-o", "json")
	printed("RecoverReport", 0, "recover", "-f", "../../profiles/roce-lossless.yaml", "-o", "json")
	printed("CounterReport", 0, "counters", "-f", simCountersFabric(t), "--target", "leaf-01", "-o", "json")

	fab, captures, rendered := auditFabric(t)
	capture := filepath.Join(captures, "leaf-07.cfg")
	os.WriteFile(capture, []byte(strings.ReplaceAll(rendered, "bandwidth percent 50", "bandwidth percent 30")), 0o644)
	printed("Plan", exitChanges, "drift", "-f", fab, "--from-dir", captures, "-o", "json")
	printed("SwitchIntent", 0, "switch", "parse", "--platform", "arista-eos", capture, "-o", "json")

	logs := writeLogs(t, map[string]string{"clean.log": ncclCleanLog, "socket.log": ncclSocketLog, "nccl_lib_locations.txt": "/usr/lib/x86_64-linux-gnu/libnccl.so.2.28.3\n"})
	printed("NCCLAnalysis", exitChanges, "nccl", "analyze", "-o", "json", filepath.Join(logs, "socket.log"), filepath.Join(logs, "clean.log"))
	printed("AnalysisReport", exitChanges, "analyze", "-o", "json", filepath.Join(logs, "socket.log"), filepath.Join(logs, "nccl_lib_locations.txt"))

	dir := t.TempDir()
	host := filepath.Join(dir, "gpu-01")
	os.MkdirAll(host, 0o755)
	for src, dst := range map[string]string{
		"../../checks/hostparse/testdata/ibstat/roce_and_ib.txt":                 "ibstat.txt",
		"../../checks/perftest/testdata/text/write_bw_client_roce_2qp_gbits.txt": "ib_write_bw.txt",
		"../../checks/perftest/testdata/text/err_oob_connect_client.txt":         "ib_read_bw.txt",
	} {
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(host, dst), b, 0o644)
	}
	code, out, errs := runCLI(t, "check", "--from-dir", dir, "-o", "json")
	if code == exitError {
		t.Fatalf("check --from-dir: exit 1; stderr %s", errs)
	}
	docs["CheckReport"] = append(docs["CheckReport"], out)

	f := fixtureHost(t, "mlx5-ofed")
	d := desiredFile(t, "mlx5-ofed")
	state := t.TempDir()
	printed("HostState", 0, "host", "show", "-o", "json")
	printed("HostPlan", exitChanges, "host", "plan", "--desired", d, "--state-dir", state, "-o", "json")
	printed("HostApplyReport", 0, "host", "apply", "--desired", d, "--dry-run", "--state-dir", state, "-o", "json")
	printed("HostRecoverReport", 0, "host", "recover", "--state-dir", state, "-o", "json")
	fixtureHost(t, "mlx5-upstream")
	interruptedApply(t, f, d, state)
	fixtureHost(t, "mlx5-ofed")
	printed("HostRecoverReport", 0, "host", "recover", "--state-dir", state, "-o", "json")
	printed("HostApplyReport", 0, "host", "apply", "--desired", d, "--yes", "--state-dir", state, "-o", "json")

	for _, k := range outputKinds() {
		ds := docs[k.kind]
		if len(ds) == 0 {
			t.Errorf("kind %s: no command printed one here; add one to this test", k.kind)
			continue
		}
		schema := outputSchema(k)
		for i, doc := range ds {
			if err := jsonschema.Validate(schema, []byte(doc)); err != nil {
				t.Errorf("kind %s, document %d does not match its schema:\n%v\n%.2000s", k.kind, i, err, doc)
			}
			var head struct{ APIVersion, Kind string }
			if err := json.Unmarshal([]byte(doc), &head); err != nil || head.Kind != k.kind {
				t.Errorf("kind %s, document %d: kind %q (%v)", k.kind, i, head.Kind, err)
			}
		}
	}
	for kind := range docs {
		if !strings.Contains(" "+strings.Join(outputKindNames(), " ")+" ", " "+kind+" ") {
			t.Errorf("kind %s was printed but is not in outputKinds", kind)
		}
	}
}

// TestDocumentKindMethods: a type whose kind output.Write inserts names the
// kind outputKinds lists for it.
func TestDocumentKindMethods(t *testing.T) {
	for _, k := range outputKinds() {
		v := reflect.New(k.typ).Elem().Interface()
		if kd, ok := v.(output.Kinded); ok && kd.DocumentKind() != k.kind {
			t.Errorf("%s: DocumentKind() is %q", k.kind, kd.DocumentKind())
		}
		if f, ok := k.typ.FieldByName("Kind"); ok {
			if _, isKinded := v.(output.Kinded); isKinded {
				t.Errorf("%s: both a Kind field (%s) and a DocumentKind method", k.kind, f.Tag)
			}
		} else if _, isKinded := v.(output.Kinded); !isKinded {
			t.Errorf("%s: %s has neither a Kind field nor a DocumentKind method", k.kind, k.typ)
		}
	}
}

func TestSchemaOutputKind(t *testing.T) {
	code, out, _ := runCLI(t, "schema", "--list")
	for _, k := range outputKinds() {
		if code != 0 || !strings.Contains(out, k.kind) {
			t.Errorf("schema --list: exit %d, lacks %s\n%s", code, k.kind, out)
		}
	}
	code, out, _ = runCLI(t, "schema", "--output-kind", "Plan")
	var s struct {
		ID         string                     `json:"$id"`
		Required   []string                   `json:"required"`
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &s) != nil || string(s.Properties["kind"]) == "" ||
		!strings.Contains(strings.Join(s.Required, ","), "kind") || !strings.HasSuffix(s.ID, "/Plan.json") {
		t.Errorf("schema --output-kind Plan: exit %d\n%.500s", code, out)
	}
	code, _, errs := runCLI(t, "schema", "--output-kind", "Nope")
	if code != 1 || !strings.Contains(errs, `"Nope" is not a kind of output document (kinds: AnalysisReport, ApplyResult`) {
		t.Errorf("unknown kind: exit %d, stderr %q", code, errs)
	}
	if code, out, _ := runCLI(t, "schema", "--output-kind", "HostPlan", "-o", "yaml"); code != 0 || !strings.Contains(out, "const: HostPlan") {
		t.Errorf("-o yaml: exit %d\n%.300s", code, out)
	}
	if code, out, _ := runCLI(t, "schema"); code != 0 || !strings.Contains(out, "Fabric") {
		t.Errorf("the input schema: exit %d", code)
	}
}
