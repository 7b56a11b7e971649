package hostparse

import (
	"slices"
	"testing"
)

// TestNvidiaSMITableEras: the plain table of every driver era parses — the
// header without "CUDA Version" (before R410), the numbered rows and
// "Volatile ECC SB / DB" column of 2012 drivers, a fragment of GPU rows
// without the header — with the fields printed ERR! named and the volatile
// ECC column read.
func TestNvidiaSMITableEras(t *testing.T) {
	s, err := ParseNvidiaSMI(open(t, "nvsmi-table/r375_no_cuda_header.txt"))
	if err != nil || s.Driver != "375.26" || s.CUDA != "" || len(s.GPUs) != 2 || s.GPUs[1].Name != "Tesla P100-PCIE..." ||
		s.GPUs[1].BusID != "0000:05:00.0" || len(s.GPUs[0].Errors) != 0 || *s.GPUs[0].VolatileUncorrectable != 0 {
		t.Errorf("R375: %+v %v", s, err)
	}
	s, err = ParseNvidiaSMI(open(t, "nvsmi-table/r295_numbered_rows_sb_db.txt"))
	if err != nil || s.Driver != "295.41" || len(s.GPUs) != 1 || s.GPUs[0].Name != "Tesla M2090" ||
		*s.GPUs[0].VolatileCorrectable != 3 || *s.GPUs[0].VolatileUncorrectable != 0 {
		t.Errorf("R295: %+v %v", s, err)
	}
	s, err = ParseNvidiaSMI(open(t, "nvsmi-table/err_fields_no_header.txt"))
	if err != nil || s.Driver != "" || len(s.GPUs) != 2 {
		t.Fatalf("fragment: %+v %v", s, err)
	}
	if g := s.GPUs[0]; g.Index != 2 || len(g.Errors) != 1 || g.Errors[0] != "Pwr:Usage" {
		t.Errorf("GPU 2: %+v", g)
	}
	want := []string{"Name", "Volatile Uncorr. ECC", "Fan", "Temp", "Perf", "Pwr:Usage", "Pwr:Cap", "GPU-Util/Compute M.", "MIG M."}
	if g := s.GPUs[1]; g.Name != "ERR!" || g.VolatileUncorrectable != nil || !slices.Equal(g.Errors, want) {
		t.Errorf("GPU 3: %+v, want errors %q", g, want)
	}
}

// TestNvidiaSMIFailures: nvidia-smi's own failure messages are read by both
// parsers (plain and -q print the same ones), quoted, prompted and with a
// typographic apostrophe too.
func TestNvidiaSMIFailures(t *testing.T) {
	for file, want := range map[string]SMIFailure{
		"failure_device_handle_gpu_lost.txt": {Line: 2, Kind: SMIFailDeviceHandle, BusID: "0000:41:00.0", Reason: "GPU is lost.  Reboot the system to recover this GPU"},
		"failure_driver_quoted.txt":          {Line: 1, Kind: SMIFailDriver},
		"failure_nvml_version_mismatch.txt":  {Line: 1, Kind: SMIFailNVMLInit, Reason: "Driver/library version mismatch"},
		"failure_no_devices.txt":             {Line: 2, Kind: SMIFailNoDevices},
		"failure_library.txt":                {Line: 1, Kind: SMIFailLibrary},
		"failure_q_device_handle.txt":        {Line: 2, Kind: SMIFailDeviceHandle, BusID: "0000:1B:00.0", Reason: "Unknown Error"},
		"err_fields_no_header.txt":           {},
		"r375_no_cuda_header.txt":            {},
		"ecc_uncorrectable_550.txt":          {},
		"r295_numbered_rows_sb_db.txt":       {},
	} {
		s, err := ParseNvidiaSMI(open(t, "nvsmi-table/"+file))
		if err != nil {
			t.Errorf("%s: %v", file, err)
			continue
		}
		q, qerr := ParseNvidiaSMIQ(open(t, "nvsmi-table/"+file))
		if want.Kind == "" {
			if len(s.Failures) != 0 {
				t.Errorf("%s: failures %+v", file, s.Failures)
			}
			continue
		}
		if qerr != nil || len(q.Failures) != 1 || len(s.Failures) != 1 {
			t.Errorf("%s: -q %+v %v; plain %+v", file, q, qerr, s.Failures)
			continue
		}
		got := s.Failures[0]
		got.Message = ""
		if got != want || q.Failures[0].Kind != want.Kind || s.Failures[0].Message == "" {
			t.Errorf("%s: %+v, want %+v", file, s.Failures[0], want)
		}
	}
}

// TestNvidiaSMIQMemoryErrors: the memory-error sections of every era are
// summed per class, the per-source SRAM breakdown is not counted twice, and
// a field NVML could not read is listed, not guessed.
func TestNvidiaSMIQMemoryErrors(t *testing.T) {
	q, err := ParseNvidiaSMIQ(open(t, "nvsmi/hopper_sram_parity_remap_failure.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if m := q.GPUs[0].Memory; m == nil || *m.AggregateUncorrectable != 1 || *m.VolatileUncorrectable != 0 || !m.RemapFailure || m.UnrepairableMemory || len(m.RepairPending) != 0 {
		t.Errorf("H100: %+v", m)
	}
	q, err = ParseNvidiaSMIQ(open(t, "nvsmi/retired_pages_volta_single_double_bit.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if m := q.GPUs[0].Memory; *m.VolatileCorrectable != 5 || *m.AggregateCorrectable != 9 || *m.AggregateUncorrectable != 0 || *m.RetiredSingleBit != 1 || !m.RetirePending {
		t.Errorf("V100 (Total lines only): %+v", m)
	}
	q, err = ParseNvidiaSMIQ(open(t, "nvsmi/remap_uncorrectable_pending_a30.txt"))
	if err != nil {
		t.Fatal(err)
	}
	g := q.GPUs[0]
	if m := g.Memory; *m.RemappedUncorrectable != 2 || !m.RemapPending || m.RetiredSingleBit != nil || len(g.Unreadable) != 1 || g.Unreadable[0] != "Addressing Mode" || g.Addressing != "" || g.WidthCurrent != 8 {
		t.Errorf("A30: %+v %+v", g, g.Memory)
	}
}
