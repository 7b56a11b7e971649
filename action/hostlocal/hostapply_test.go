package hostlocal

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/hostcfg"
	"github.com/fabricctl/fabricctl/hostcfg/hostcfgtest"
	"github.com/fabricctl/fabricctl/internal/testutil"
)

func fixture(t *testing.T) (*hostcfgtest.Fixture, Options, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	root := testutil.RepoRoot(t)
	f := hostcfgtest.Load(t, filepath.Join(root, "hostcfg", "testdata", "hosts", "mlx5-upstream"))
	var out, errs bytes.Buffer
	return f, Options{StateDir: t.TempDir(), Format: "table", Stdout: &out, Stderr: &errs}, &out, &errs
}

// TestRunRefusesDisruptionThenApplies: without Yes a plan that flaps links is shown and refused
// with nothing written; with Yes it is applied, and a second Run finds nothing to do.
func TestRunRefusesDisruptionThenApplies(t *testing.T) {
	f, o, out, errs := fixture(t)
	d, err := hostcfg.ReadDesired(context.Background(), filepath.Join(testutil.RepoRoot(t), "hostcfg", "testdata", "desired", "mlx5-upstream.json"))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	err = Run(ctx, f.Host, *d, o)
	if err == nil || errors.Is(err, ErrReported) || !strings.Contains(err.Error(), "--yes") {
		t.Fatalf("without Yes: err = %v", err)
	}
	if !strings.Contains(errs.String(), "fabricctl: ") || !strings.Contains(errs.String(), "pfc.enable") || !strings.Contains(out.String(), "pfc.enable") {
		t.Errorf("refusal: stdout %q stderr %q, want the plan and the disruptive change", out, errs)
	}
	if n := len(f.Kernel.Writes()); n != 0 {
		t.Fatalf("a refused apply sent %d DCB writes", n)
	}
	o.Yes = true
	if err := Run(ctx, f.Host, *d, o); err != nil {
		t.Fatalf("with Yes: %v (stderr %s)", err, errs)
	}
	f.Kernel.ClearRequests()
	out.Reset()
	if err := Run(ctx, f.Host, *d, o); err != nil || len(f.Kernel.Writes()) != 0 {
		t.Errorf("second run: %v, %d DCB writes", err, len(f.Kernel.Writes()))
	}
	if WarnInterrupted(errs, o.StateDir, d.Host) {
		t.Error("a settled apply left a journal pending")
	}
}

// TestRunFailureIsReported: a write the kernel refuses rolls back and reports, ErrReported.
func TestRunFailureIsReported(t *testing.T) {
	f, o, out, errs := fixture(t)
	d, err := hostcfg.ReadDesired(context.Background(), filepath.Join(testutil.RepoRoot(t), "hostcfg", "testdata", "desired", "mlx5-upstream.json"))
	if err != nil {
		t.Fatal(err)
	}
	f.Kernel.SetUnprivileged(true)
	o.Yes = true
	if err := Run(context.Background(), f.Host, *d, o); !errors.Is(err, ErrReported) {
		t.Fatalf("err = %v, want ErrReported", err)
	}
	if !strings.Contains(errs.String(), "operation not permitted") || !strings.Contains(out.String(), "rolled-back") {
		t.Errorf("stdout %q\nstderr %q", out, errs)
	}
}
