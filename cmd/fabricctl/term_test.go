package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWideAndColorFlags: -o wide is a table wherever -o table is (drift shows TIER and
// COMPONENT in it), drift speaks of drift, --color always paints status words even into a
// buffer, the default into a buffer does not, and a bad --color is refused.
func TestWideAndColorFlags(t *testing.T) {
	fab, captures, rendered := auditFabric(t)
	os.WriteFile(filepath.Join(captures, "leaf-07.cfg"), []byte(strings.ReplaceAll(rendered, "bandwidth percent 50", "bandwidth percent 30")), 0o644)
	code, out, errs := runCLI(t, "drift", "-f", fab, "--from-dir", captures)
	if code != exitChanges || !strings.Contains(out, "target(s) drifted: leaf-07") || strings.Contains(out, "TIER") || strings.Contains(out, "\x1b[") {
		t.Errorf("drift: exit %d\n%s%s", code, out, errs)
	}
	code, out, errs = runCLI(t, "drift", "-f", fab, "--from-dir", captures, "-o", "wide", "--color", "always")
	if code != exitChanges || !strings.Contains(out, "TIER") || !strings.Contains(out, "COMPONENT") {
		t.Errorf("drift -o wide: exit %d\n%s%s", code, out, errs)
	}
	if code, out, _ := runCLI(t, "validate", "-f", labFabric, "-o", "wide"); code != 0 || !strings.Contains(out, "valid") {
		t.Errorf("validate -o wide: exit %d\n%s", code, out)
	}
	if code, _, errs := runCLI(t, "validate", "-f", labFabric, "--color", "sometimes"); code != exitError || !strings.Contains(errs, `unknown color mode "sometimes"`) {
		t.Errorf("--color sometimes: exit %d, stderr %s", code, errs)
	}
	code, out, _ = runCLI(t, "analyze", "--color", "always", filepath.Join(writeLogs(t, map[string]string{"clean.log": ncclCleanLog}), "clean.log"))
	if code != 0 || !strings.Contains(out, "\x1b[32mPASS\x1b[0m") {
		t.Errorf("analyze --color always: exit %d\n%q", code, out)
	}
}
