package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/lab/iblab"
)

const ibLabFabric = "../../profiles/lab/ib.yaml"

// TestLabIBApplyDrift is the InfiniBand lab from the command line, as
// docs/ib-lab.md walks it: lab up --ib from the lab's fabric file, plan (2:
// the partitions and every port's P_Keys to change), apply, drift (0), lab
// down. (Drift of the ports themselves, by a second SM: lab/iblab.)
func TestLabIBApplyDrift(t *testing.T) {
	if err := iblab.Available(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	dir := filepath.Join(t.TempDir(), "ib")
	if code, out, errs := runCLI(t, "lab", "up", "--ib", "--ib-dir", dir, "-f", ibLabFabric); code != 0 || !strings.Contains(out, "running         true") {
		t.Fatalf("lab up --ib: %d\n%s\n%s", code, out, errs)
	}
	defer func() {
		if code, _, errs := runCLI(t, "lab", "down", "--ib", "--ib-dir", dir); code != 0 {
			t.Errorf("lab down --ib: %d %s", code, errs)
		}
		if code, _, _ := runCLI(t, "lab", "status", "--ib", "--ib-dir", dir); code != 1 {
			t.Errorf("lab status --ib after down: exit %d, want 1", code)
		}
	}()
	at := []string{"-f", ibLabFabric, "--target", "sm-01", "--ib-lab", dir}
	code, out, errs := runCLI(t, append([]string{"plan"}, at...)...)
	if code != 2 || strings.Count(out, "port 0x") != 8 || !strings.Contains(out, "(ib-h4) pkey 0x0002  absent → limited") {
		t.Errorf("plan: %d\n%s\n%s", code, out, errs)
	}
	if code, out, errs := runCLI(t, append([]string{"apply", "--yes"}, at...)...); code != 0 {
		t.Fatalf("apply: %d\n%s\n%s", code, out, errs)
	}
	if code, out, errs := runCLI(t, append([]string{"drift"}, at...)...); code != 0 {
		t.Errorf("drift after apply: %d\n%s\n%s", code, out, errs)
	}
	// A plan without the lab is refused, not sent to the fabric's address.
	if code, _, errs := runCLI(t, "plan", "-f", ibLabFabric, "--target", "sm-01", "--ib-lab", t.TempDir()); code != 1 || !strings.Contains(errs, "env") {
		t.Errorf("--ib-lab of no lab: %d %s", code, errs)
	}
}
