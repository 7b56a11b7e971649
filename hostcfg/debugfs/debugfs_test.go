package debugfs_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/fabricctl/fabricctl/hostcfg/debugfs"
	"github.com/fabricctl/fabricctl/hostcfg/hostcfgtest"
)

func fixture(t *testing.T) debugfs.FS {
	dir := t.TempDir()
	if err := hostcfgtest.CopyTree(filepath.Join("..", "testdata", "hosts", "mlx5-upstream", "debug"), dir); err != nil {
		t.Fatal(err)
	}
	return debugfs.NewFS(dir)
}

func TestCCParamsReadWrite(t *testing.T) {
	ctx := context.Background()
	cc, err := fixture(t).CCParams("0000:3b:00.0")
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]int{"np_cnp_dscp": 48, "np_cnp_prio": 6, "rp_ai_rate": 5} {
		if got, err := cc.Get(ctx, name); err != nil || got != want {
			t.Errorf("Get(%s) = %d, %v; want %d", name, got, err, want)
		}
	}
	if err := cc.Set(ctx, "rp_ai_rate", 10); err != nil {
		t.Fatal(err)
	}
	if got, err := cc.Get(ctx, "rp_ai_rate"); err != nil || got != 10 {
		t.Errorf("Get after Set = %d, %v; want 10", got, err)
	}
	if err := cc.Set(ctx, "rp_ai_rate", -1); err == nil {
		t.Error("Set accepted -1 for a u32")
	}
	if _, err := cc.Get(ctx, "no_such_param"); !errors.Is(err, debugfs.ErrNotExist) {
		t.Errorf("Get(no_such_param) = %v, want ErrNotExist", err)
	}
	if err := cc.Set(ctx, "no_such_param", 1); !errors.Is(err, debugfs.ErrNotExist) {
		t.Errorf("Set(no_such_param) = %v; must not create files", err)
	}
	if _, err := cc.Get(ctx, "../cc_params/np_cnp_dscp"); err == nil {
		t.Error("Get accepted a path")
	}
	if err := os.WriteFile(filepath.Join(cc.Dir(), "rp_gd"), []byte("eleven\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := cc.Get(ctx, "rp_gd"); err == nil {
		t.Error("Get accepted a non-number")
	}
	names, err := cc.Names(ctx)
	if err != nil || len(names) != 20 {
		t.Errorf("Names = %d names, %v; want the fixture's 20", len(names), err)
	}
}

func TestCCParamsAbsent(t *testing.T) {
	d := fixture(t)
	for _, bdf := range []string{"0000:99:00.0", "", "..", "0000:3b:00.0/../x"} {
		if _, err := d.CCParams(bdf); err == nil {
			t.Errorf("CCParams(%q) found a directory", bdf)
		}
	}
	if _, err := debugfs.NewFS(t.TempDir()).CCParams("0000:3b:00.0"); !errors.Is(err, debugfs.ErrNotExist) {
		t.Errorf("CCParams on an unmounted debugfs = %v, want ErrNotExist", err)
	}
}

func TestNameMapping(t *testing.T) {
	for _, tc := range []struct{ point, vendor, file string }{
		{"np", "cnp_dscp", "np_cnp_dscp"}, {"np", "cnp_802p_prio", "np_cnp_prio"},
		{"rp", "rpg_ai_rate", "rp_ai_rate"}, {"rp", "clamp_tgt_rate_after_time_inc", "rp_clamp_tgt_rate_ati"},
	} {
		f, err := debugfs.FileName(tc.point, tc.vendor)
		if err != nil || f != tc.file {
			t.Errorf("FileName(%s, %s) = %q, %v; want %q", tc.point, tc.vendor, f, err, tc.file)
		}
		p, v, ok := debugfs.VendorName(tc.file)
		if !ok || p != tc.point || v != tc.vendor {
			t.Errorf("VendorName(%s) = %s, %s, %v", tc.file, p, v, ok)
		}
	}
	if _, err := debugfs.FileName("rp", "cnp_dscp"); !errors.Is(err, debugfs.ErrUnknownParam) {
		t.Errorf("FileName(rp, cnp_dscp) = %v, want ErrUnknownParam", err)
	}
	if _, _, ok := debugfs.VendorName("np_cnp_prio_mode"); ok {
		t.Error("np_cnp_prio_mode has no vendor name")
	}
}
