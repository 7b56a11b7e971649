package configfs_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/fabricctl/fabricctl/hostcfg/configfs"
	"github.com/fabricctl/fabricctl/hostcfg/hostcfgtest"
)

func emulated(t *testing.T) (configfs.FS, *hostcfgtest.ConfigFS, string) {
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, "rdma_cm"), 0o755); err != nil {
		t.Fatal(err)
	}
	emu := hostcfgtest.NewConfigFS(root, map[string]map[int]string{
		"rxe0": {1: "Ethernet"}, "mlx5_0": {1: "InfiniBand"},
	})
	return configfs.NewFSWith(root, emu), emu, root
}

func TestMkdirWriteRmdir(t *testing.T) {
	ctx := context.Background()
	cfg, emu, root := emulated(t)
	if m, err := cfg.Mode(ctx, "rxe0", 1); err != nil || m != configfs.ModeV2 {
		t.Fatalf("Mode = %q, %v; want %q", m, err, configfs.ModeV2)
	}
	if err := cfg.SetToS(ctx, "rxe0", 1, 106); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "rdma_cm", "rxe0")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("rdma_cm/rxe0 left behind after the write: %v", err)
	}
	if _, tos, _ := emu.Values("rxe0", 1); tos != 106 {
		t.Errorf("kernel ToS after rmdir = %d, want 106 (values persist)", tos)
	}
	if tos, err := cfg.ToS(ctx, "rxe0", 1); err != nil || tos != 106 {
		t.Errorf("ToS read back = %d, %v; want 106", tos, err)
	}
	if emu.Mkdirs() != 3 {
		t.Errorf("mkdirs = %d, want one per call (3)", emu.Mkdirs())
	}
	if m, err := cfg.Mode(ctx, "mlx5_0", 1); err != nil || m != configfs.ModeV1 {
		t.Errorf("InfiniBand port mode = %q, %v; want %q", m, err, configfs.ModeV1)
	}
}

func TestExistingDirectoryIsLeftAlone(t *testing.T) {
	ctx := context.Background()
	cfg, emu, root := emulated(t)
	dir := filepath.Join(root, "rdma_cm", "rxe0")
	if err := emu.Mkdir(dir); err != nil { // someone else holds it
		t.Fatal(err)
	}
	if err := cfg.SetMode(ctx, "rxe0", 1, configfs.ModeV2); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); err != nil {
		t.Errorf("a directory fabricctl did not make was removed: %v", err)
	}
}

func TestErrors(t *testing.T) {
	ctx := context.Background()
	cfg, _, _ := emulated(t)
	if err := cfg.SetToS(ctx, "nosuchdev", 1, 106); !errors.Is(err, configfs.ErrNoDevice) || !errors.Is(err, syscall.ENODEV) {
		t.Errorf("unknown device = %v, want ErrNoDevice and ENODEV", err)
	}
	if _, err := cfg.ToS(ctx, "rxe0", 2); !errors.Is(err, configfs.ErrNoPort) {
		t.Errorf("port 2 = %v, want ErrNoPort", err)
	}
	if err := cfg.SetMode(ctx, "rxe0", 1, "RoCE v3"); err == nil {
		t.Error("SetMode accepted RoCE v3")
	}
	if err := cfg.SetToS(ctx, "rxe0", 1, 256); err == nil {
		t.Error("SetToS accepted 256")
	}
	if _, err := cfg.Mode(ctx, "../rdma_cm", 1); !errors.Is(err, configfs.ErrNoDevice) {
		t.Errorf("device name with a slash = %v, want ErrNoDevice", err)
	}
	bare := configfs.NewFS(t.TempDir()) // not DefaultRoot: never mounts
	if err := bare.Ready(ctx); !errors.Is(err, configfs.ErrNoRDMACM) {
		t.Errorf("Ready without rdma_cm = %v, want ErrNoRDMACM", err)
	}
}

// TestTwoProcessesShareTheDeviceDirectory: two fabricctl processes on one
// host (Slurm's periodic health check and a sweep's preflight step, as in
// the lab) each make rdma_cm/rxe0 when it is missing and remove it when
// done. One may find the directory the other made and lose it to the
// other's rmdir before it reads ports/1: that is not a missing port. Two
// FS values stand for the two processes (each has its own lock). Before the
// fix, reads failed with "no such rdma port" (CI, TestLabSlurm: "eth0
// roce.mode: finding /sys/kernel/config/rdma_cm/rxe0/ports/1: no such rdma
// port" on a healthy node).
func TestTwoProcessesShareTheDeviceDirectory(t *testing.T) {
	ctx := context.Background()
	a, emu, root := emulated(t)
	b := configfs.NewFSWith(root, emu)
	const n = 400
	errs := make(chan error, 2*n)
	done := make(chan struct{})
	for _, f := range []configfs.FS{a, b} {
		go func() {
			defer func() { done <- struct{}{} }()
			for range n {
				if m, err := f.Mode(ctx, "rxe0", 1); err != nil || m != configfs.ModeV2 {
					errs <- fmt.Errorf("Mode = %q, %w", m, err)
				}
			}
		}()
	}
	<-done
	<-done
	close(errs)
	var failed []error
	for err := range errs {
		failed = append(failed, err)
	}
	if len(failed) > 0 {
		t.Fatalf("%d of %d reads failed, first: %v", len(failed), 2*n, failed[0])
	}
	if _, err := os.Stat(filepath.Join(root, "rdma_cm", "rxe0")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("rdma_cm/rxe0 left behind: %v", err)
	}
}
