package configfs_test

import (
	"context"
	"errors"
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
