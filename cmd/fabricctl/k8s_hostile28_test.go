package main

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"runtime"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/fabricctl/fabricctl/action/launch/task"
	"github.com/fabricctl/fabricctl/checks/collective"
)

// TestK8sRenderRefusesHostileFlags: flags that would go into a manifest unchecked, or make
// node-problem-detector's configuration broken, are refused (exit 1, the rule said on stderr,
// nothing on stdout).
func TestK8sRenderRefusesHostileFlags(t *testing.T) {
	for name, c := range map[string]struct {
		args []string
		want string
	}{
		"namespace path":       {[]string{"--namespace", "../../etc"}, `--namespace "../../etc": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-'`},
		"negative budget":      {[]string{"--budget", "-1s"}, "--budget -1s: must be positive"},
		"zero interval":        {[]string{"--interval", "0s"}, "--interval 0s: must be positive"},
		"budget over interval": {[]string{"--interval", "30s"}, "--budget 50s: NPD's timeout (the budget + 5s) must be shorter than --interval 30s"},
		"image":                {[]string{"--image", "registry.example/fabricctl:v1\n  privileged: true"}, `--image "registry.example/fabricctl:v1\n  privileged: true": not an image reference`},
		"selector value":       {[]string{"--node-selector", "pool=a b"}, `--node-selector "pool=a b"`},
		"selector twice":       {[]string{"--node-selector", "pool=a,pool=b"}, `key "pool" given twice`},
		"resource":             {[]string{"--rdma-resource", "rdma"}, `--rdma-resource "rdma": an extended resource is DOMAIN/NAME`},
		"condition":            {[]string{"--condition", "a b"}, `--condition "a b"`},
		"output format":        {[]string{"-o", "bogus"}, `unknown output format "bogus"`},
		"json":                 {[]string{"-o", "json"}, "k8s render writes YAML"},
	} {
		code, out, errs := runCLI(t, append([]string{"k8s", "render", "-f", labFabric}, c.args...)...)
		if code != 1 || out != "" || !strings.Contains(errs, c.want) {
			t.Errorf("%s: exit %d, stdout %d bytes, stderr %q; want 1, nothing, %q", name, code, len(out), errs, c.want)
		}
	}
	if code, out, errs := runCLI(t, "k8s", "render", "-f", labFabric, "-o", "yaml"); code != 0 || !strings.Contains(out, "kind: DaemonSet") {
		t.Errorf("-o yaml: exit %d, stderr %q", code, errs)
	}
}

// TestSchemaRefusesUnknownFormat: `schema -o bogus` is refused as every command refuses an
// unknown -o (it exited 0 printing JSON); -o yaml prints the schema as YAML.
func TestSchemaRefusesUnknownFormat(t *testing.T) {
	code, out, errs := runCLI(t, "schema", "-o", "bogus")
	if code != 1 || out != "" || !strings.Contains(errs, `unknown output format "bogus"`) {
		t.Errorf("exit %d, stdout %d bytes, stderr %q", code, len(out), errs)
	}
	code, out, _ = runCLI(t, "schema", "-o", "yaml")
	var s map[string]any
	if code != 0 || yaml.Unmarshal([]byte(out), &s) != nil || s["$defs"] == nil || strings.HasPrefix(out, "{") {
		t.Errorf("-o yaml: exit %d, not a YAML schema: %.80q", code, out)
	}
}

// TestTaskGzipBomb: `fabricctl task` given a spec that inflates to 100 MiB (from 136 KB of
// arguments) refuses it within a few MB, framed and on stderr (it took 520 MB).
func TestTaskGzipBomb(t *testing.T) {
	var b bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
	zw.Write([]byte(`{"v":1,"kind":"round","jobs":[{"server":{"node":"`))
	chunk := bytes.Repeat([]byte("a"), 1<<20)
	for range 100 {
		zw.Write(chunk)
	}
	zw.Close()
	spec := base64.RawURLEncoding.EncodeToString(b.Bytes())
	var args []string
	for len(spec) > task.ArgChunk {
		args, spec = append(args, spec[:task.ArgChunk]), spec[task.ArgChunk:]
	}
	args = append(args, spec)
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	code, out, errs := runCLI(t, append([]string{"task", "--node", "gpu07"}, args...)...)
	runtime.ReadMemStats(&after)
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("exit %d, %d bytes allocated, stderr %q", code, alloc, errs)
	want := "invalid task spec: decompressed size exceeds 67108864 bytes"
	r := task.Collect(strings.NewReader(out), nil).Results["gpu07"]
	if code != 1 || !strings.Contains(errs, want) || !strings.Contains(r.Error, want) {
		t.Errorf("exit %d, result %+v, stderr %q; want 1 and %q both framed and on stderr", code, r, errs, want)
	}
	if alloc > 16<<20 {
		t.Errorf("refusing the bomb allocated %d bytes, want under 16 MiB", alloc)
	}
}

// TestTaskNodeNameWithEscape: a node name with a terminal escape is refused before the step
// runs, and not framed.
func TestTaskNodeNameWithEscape(t *testing.T) {
	args, err := task.EncodeArgs(task.NCCLProbeSpec([]string{"h7"}, func(string) string { return "gpu07" }, collective.ProbeArgs{}))
	if err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCLI(t, append([]string{"task", "--node", "gpu07\x1b]0;owned\a"}, args...)...)
	if code != 1 || out != "" || !strings.Contains(errs, `node name "gpu07\x1b]0;owned\a": white space or a control character`) {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
}
