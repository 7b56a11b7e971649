package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// runCLIStdin is runCLI with stdin.
func runCLIStdin(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	g := &globals{stdin: strings.NewReader(stdin), stdout: &out, stderr: &errb}
	code := execute(context.Background(), g, args)
	return code, out.String(), errb.String()
}

// TestFabricFromStdin: -f - reads the fabric from standard input, its
// includes relative to the working directory, errors located at <stdin>.
func TestFabricFromStdin(t *testing.T) {
	lab, err := os.ReadFile(labFabric)
	if err != nil {
		t.Fatal(err)
	}
	_, want, _ := runCLI(t, "render", "-f", labFabric, "-o", "json")
	t.Chdir(filepath.Dir(labFabric)) // the fabric's includes are relative to it
	if code, out, errs := runCLIStdin(t, string(lab), "validate", "-f", "-"); code != 0 || !strings.Contains(out, "valid") {
		t.Errorf("validate -f -: exit %d\n%s%s", code, out, errs)
	}
	if code, out, errs := runCLIStdin(t, string(lab), "render", "-f", "-", "-o", "json"); code != 0 || out != want {
		t.Errorf("render -f -: exit %d, stderr %s; differs from render -f FILE: %v", code, errs, out != want)
	}
	code, out, _ := runCLIStdin(t, string(lab), "validate", "-f", "-", "-o", "json")
	var res struct{ File string }
	if code != 0 || json.Unmarshal([]byte(out), &res) != nil || res.File != "<stdin>" {
		t.Errorf("validate -f - -o json: exit %d\n%s", code, out)
	}

	bad := strings.Replace(string(lab), "address: 10.99.0.11", "address: 10.99.0.11.5", 1)
	for _, args := range [][]string{{"validate", "-f", "-"}, {"render", "-f", "-"}, {"plan", "-f", "-"}} {
		code, _, errs := runCLIStdin(t, bad, args...)
		if code != 1 || !regexp.MustCompile(`(?m)^<stdin>:\d+:\d+: spec\.hosts\[0\]\.address: `).MatchString(errs) {
			t.Errorf("%v with an invalid fabric: exit %d, stderr %q", args, code, errs)
		}
	}
	code, _, errs := runCLIStdin(t, string(lab), "apply", "-f", "-")
	if code != 1 || !strings.Contains(errs, "-f - reads the fabric from standard input, where apply reads its confirmation: add --yes") {
		t.Errorf("apply -f - without --yes: exit %d, stderr %q", code, errs)
	}
	code, _, errs = runCLIStdin(t, string(lab), "analyze", "-f", "-", "-")
	if code != 1 || !strings.Contains(errs, "where the FILE - is read") {
		t.Errorf("analyze -f - -: exit %d, stderr %q", code, errs)
	}
	code, _, errs = runCLIStdin(t, "", "render", "-f", "-")
	if code != 1 || !strings.Contains(errs, "<stdin>: file is empty") {
		t.Errorf("empty stdin: exit %d, stderr %q", code, errs)
	}
	big := strings.Repeat("# padding\n", 1<<20)
	code, _, errs = runCLIStdin(t, big, "render", "-f", "-")
	if code != 1 || !strings.Contains(errs, "<stdin>: file is larger than the 4 MiB input limit") {
		t.Errorf("10 MiB on stdin: exit %d, stderr %q", code, errs)
	}
}
