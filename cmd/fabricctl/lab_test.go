package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

func runLab(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	g := &globals{stdin: strings.NewReader(""), stdout: &out, stderr: &errb}
	code := execute(context.Background(), g, append([]string{"lab"}, args...))
	return code, out.String(), errb.String()
}

func TestLabHelpListsSubcommandsAndScenarios(t *testing.T) {
	code, out, _ := runLab(t, "--help")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, sub := range []string{"build", "up", "down", "status", "run", "exec"} {
		if !strings.Contains(out, "  "+sub+" ") {
			t.Errorf("lab --help lacks %s:\n%s", sub, out)
		}
	}
	_, out, _ = runLab(t, "run", "--help")
	for _, sc := range []string{"smoke", "perftest", "lossy"} {
		if !strings.Contains(out, sc) {
			t.Errorf("lab run --help lacks scenario %s", sc)
		}
	}
}

// Without a running lab, the commands that need one fail with exit 1 and say so; down is a no-op.
func TestLabWithoutALab(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"status", "--state-dir", dir},
		{"run", "smoke", "--state-dir", dir},
		{"exec", "--state-dir", dir, "lab-h1", "--", "true"},
	} {
		code, _, stderr := runLab(t, args...)
		if code != 1 || !strings.Contains(stderr, "lab is not running") {
			t.Errorf("lab %v: exit %d, stderr %q", args, code, stderr)
		}
	}
	if code, _, stderr := runLab(t, "down", "--state-dir", dir, "--netns", "fabricctl-lab-none"); code != 0 {
		t.Errorf("down without a lab: exit %d: %s", code, stderr)
	}
}

func TestLabUpRejectsBadInputBeforeBooting(t *testing.T) {
	dir := t.TempDir()
	for args, want := range map[string]string{
		"--hosts a=10.98.0.5":             "outside the lab subnet",
		"--hosts a":                       "want NAME=ADDRESS",
		"--hosts a=10.99.0.5,b=10.99.0.5": "already used",
		"-f x.yaml --hosts a=10.99.0.5":   "not both",
	} {
		code, _, stderr := runLab(t, append([]string{"up", "--state-dir", dir}, strings.Fields(args)...)...)
		if code != 1 || !strings.Contains(stderr, want) {
			t.Errorf("lab up %s: exit %d, stderr %q, want %q", args, code, stderr, want)
		}
	}
}
