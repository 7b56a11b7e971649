package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// -v logs the fabric, each target's plan and its outcome on stderr, for
// plan and drift alike (issue 13: -v logged nothing there).
func TestVerboseLogsPlanAndDrift(t *testing.T) {
	dir := t.TempDir()
	fab := filepath.Join(dir, "f.yaml")
	os.WriteFile(filepath.Join(dir, "p.yaml"), []byte(e2eProfile), 0o644)
	os.WriteFile(fab, []byte(`apiVersion: fabricctl.io/v1alpha1
kind: Fabric
metadata: {name: v}
spec:
  include: [p.yaml]
  defaults: {ssh: {knownHostsFile: `+filepath.Join(dir, "known_hosts")+`, port: 1}}
  hosts:
    - {name: h1, address: 127.0.0.1, profile: roce}
`), 0o644)
	for _, cmd := range []string{"plan", "drift"} {
		code, _, errs := runCLI(t, cmd, "-v", "-f", fab, "--timeout", "20s")
		if code != 1 {
			t.Errorf("%s: exit %d, want 1 (the host cannot be reached)", cmd, code)
		}
		for _, want := range []string{"msg=\"loaded fabric\"", "fabric=v targets=1", "msg=planning targets=1", `msg="planning failed" target=h1 tier=host`} {
			if !strings.Contains(errs, want) {
				t.Errorf("%s -v: stderr lacks %q:\n%s", cmd, want, errs)
			}
		}
	}
}
