package hostparse

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/internal/testutil"
	"github.com/google/go-cmp/cmp"
)

// kernelFixtures are the kernel-log fixtures: our own text in the forms
// dmesg, dmesg -T, journalctl -k and syslog files print.
func kernelFixtures(t testing.TB) []string {
	paths, _ := filepath.Glob(filepath.Join("testdata", "kernel", "*.txt"))
	if len(paths) == 0 {
		t.Fatal("no kernel-log fixtures")
	}
	return paths
}

// TestKernelLogGolden pins what ParseKernelLog reads from every fixture.
func TestKernelLogGolden(t *testing.T) {
	for _, path := range kernelFixtures(t) {
		name := "kernel/" + strings.TrimSuffix(filepath.Base(path), ".txt")
		t.Run(name, func(t *testing.T) {
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			k, err := ParseKernelLog(bytes.NewReader(b))
			if err != nil {
				t.Fatalf("parsing: %v", err)
			}
			testutil.Golden(t, name+".golden", testutil.JSON(t, k))
		})
	}
}

// TestKernelLogEras: every driver era's Xid line, the fallen-off-the-bus
// lines without an Xid, MIG attribution, repeats counted per GPU.
func TestKernelLogEras(t *testing.T) {
	k, err := ParseKernelLog(open(t, "kernel/dmesg_h100_fell_off_and_app_faults.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if k.Driver != "550.90.07" || len(k.GPUs) != 3 || k.GPUs[0].UUID != "GPU-1f2e3d4c-5b6a-7988-0a1b-2c3d4e5f6a7b" {
		t.Fatalf("%+v", k)
	}
	want := []XidEvent{
		{Xid: 13, Count: 3, Line: 6, LastLine: 16, Text: "[ 8123.551220] NVRM: Xid (PCI:0000:3b:00): 13, pid=40412, name=python3, Graphics SM Warp Exception on (GPC 2, TPC 1, SM 0): Out Of Range Address"},
		{Xid: 43, Count: 1, Line: 8, LastLine: 8, Text: "[ 8123.552007] NVRM: Xid (PCI:0000:3b:00): 43, pid=40412, name=python3, Ch 00000008"},
	}
	if d := cmp.Diff(want, k.GPUs[0].Events); d != "" {
		t.Errorf("GPU 3b (-want +got):\n%s", d)
	}
	fell := k.GPUs[1]
	if fell.Bus != "0000:5e:00" || len(fell.Events) != 3 || fell.Events[0].Count != 2 || fell.Events[1].Variant != VariantNoXidLine ||
		fell.Events[2].Xid != 154 || fell.Events[2].Variant != "0x2 (Node Reboot Required)" {
		t.Errorf("GPU 5e: %+v", fell)
	}

	old, err := ParseKernelLog(open(t, "kernel/dmesg_T_old_drivers_no_xid_fell_off.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var buses []string
	for _, g := range old.GPUs {
		buses = append(buses, g.Bus)
	}
	if d := cmp.Diff([]string{"0000:01:00", "0000:02:00", "0000:03:00"}, buses); d != "" || old.Driver != "331.49" {
		t.Errorf("old driver buses (-want +got):\n%s driver %q", d, old.Driver)
	}
	if e := old.GPUs[0].Events; len(e) != 2 || e[0].Xid != 3 || e[0].Count != 2 || e[1].Xid != 31 {
		t.Errorf("old Xid lines %+v", e)
	}
	if e := old.GPUs[1].Events; len(e) != 1 || e[0].Xid != 79 || e[0].Variant != VariantNoXidLine || e[0].Count != 2 {
		t.Errorf("fallen off without Xid %+v", e)
	}

	mig, err := ParseKernelLog(open(t, "kernel/journalctl_k_mig_nvlink5_recovered.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if g := mig.GPUs[0]; g.Bus != "0008:01:00" || g.Events[0].Xid != 94 {
		t.Errorf("MIG-attributed line: %+v", g)
	}
	if e := mig.GPUs[1].Events; len(e) != 4 || e[0].Variant != "RLW_REMAP Nonfatal" || e[1].Variant != "NETIR_LINK_EVT Fatal" ||
		e[2].Variant != "0x1 (GPU Reset Required)" || e[3].Variant != "0x0 (None)" {
		t.Errorf("NVLink5 and recovery variants: %+v", e)
	}

	bad, err := ParseKernelLog(open(t, "kernel/messages_iso_ignored_unknown_and_legacy.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if len(bad.Warnings) != 1 || !strings.HasPrefix(bad.Warnings[0], "line 9:") {
		t.Errorf("warnings %q", bad.Warnings)
	}
}

// TestKernelLogBusForms: the bus id as the driver prints it in each era,
// one key per GPU.
func TestKernelLogBusForms(t *testing.T) {
	for in, want := range map[string]string{
		"PCI:0000:3B:00":                    "0000:3b:00",
		"0000:01:00":                        "0000:01:00",
		"PCI:0000:00:01.0":                  "0000:00:01",
		"PCI:0008:01:00 GPU-I:02 GPU-CI:00": "0008:01:00",
		"01:00":                             "0000:01:00",
		"00000000:3b:00.0":                  "0000:3b:00",
		"":                                  "unknown",
	} {
		if got := normBus(in); got != want {
			t.Errorf("normBus(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestKernelLogNoData: input without a line from the NVIDIA driver is no
// kernel log of it; an over-long line is an error located by line.
func TestKernelLogNoData(t *testing.T) {
	for _, in := range []string{"", "\n\n", "$ true\nhello\n", "[    1.0] mlx5_core 0000:17:00.0: firmware version 28.39.1002\n"} {
		if _, err := ParseKernelLog(strings.NewReader(in)); !errors.Is(err, ErrNoData) {
			t.Errorf("%q: %v, want ErrNoData", in, err)
		}
	}
	long := strings.Repeat("x", maxLine+1)
	if _, err := ParseKernelLog(strings.NewReader("a\n" + long)); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("over-long line: %v", err)
	}
}

// FuzzParseKernelLog: the parser never panics and never returns nothing
// without an error; every event it returns has been seen at least once.
func FuzzParseKernelLog(f *testing.F) {
	for _, p := range kernelFixtures(f) {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		k, err := ParseKernelLog(bytes.NewReader(data))
		if err != nil {
			return
		}
		if k == nil {
			t.Fatal("nil result without an error")
		}
		for _, g := range k.GPUs {
			for _, e := range g.Events {
				if e.Count < 1 || e.Line < 1 || e.LastLine < e.Line {
					t.Fatalf("event %+v", e)
				}
				JudgeXid(e, g)
			}
		}
	})
}
