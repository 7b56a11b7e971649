package perftest

import (
	"math"
	"os"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/checks"
)

func parseFile(t *testing.T, name string) *Report {
	t.Helper()
	f, err := os.Open("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := Parse(f)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestMiBHeader: perftest 24.07 and later print "BW peak[MiB/sec]" (linux-rdma/perftest
// 1d202bb, src/perftest_parameters.h RESULT_FMT). The unit is 2^20 bytes per second,
// and must never be read as Gb/s.
func TestMiBHeader(t *testing.T) {
	r := parseFile(t, "text/write_bw_mib_perftest24.txt")
	if r.BWUnit != checks.UnitMBps {
		t.Fatalf("unit %q, want %q", r.BWUnit, checks.UnitMBps)
	}
	row, _ := r.Final()
	if g := ToGbps(row.BWAverage, r.BWUnit); math.Abs(g-98.2) > 0.1 {
		t.Errorf("%v MiB/s is %.2f Gb/s, want 98.2", row.BWAverage, g)
	}
}

// TestRowWithMoreNumbersThanHeader: a row carrying one number more than the header
// names columns must not shift its values into the wrong columns (the peak read as
// the average); it is left out with a warning naming its line.
func TestRowWithMoreNumbersThanHeader(t *testing.T) {
	r := parseFile(t, "text/row_more_numbers_than_header.txt")
	if len(r.BW) != 0 {
		t.Errorf("the inconsistent row was used: %+v", r.BW)
	}
	if !r.ColumnMismatch {
		t.Error("ColumnMismatch not set")
	}
	found := false
	for _, w := range r.Warnings {
		if strings.HasPrefix(w, "line 18:") && strings.Contains(w, "6 numbers") && strings.Contains(w, "5 columns") {
			found = true
		}
	}
	if !found {
		t.Errorf("no located warning: %q", r.Warnings)
	}
}

// TestJSONCarriesUnit: --out_json files do not name the bandwidth unit; it follows
// from MsgRate × MsgSize, which perftest computes from the same measurement.
func TestJSONCarriesUnit(t *testing.T) {
	for file, want := range map[string]checks.Unit{"json/write_bw.json": checks.UnitGbps, "json/write_bw_mib.json": checks.UnitMBps} {
		b, err := os.ReadFile("testdata/" + file)
		if err != nil {
			t.Fatal(err)
		}
		r, err := ParseJSON(b)
		if err != nil {
			t.Fatal(err)
		}
		if r.BWUnit != want {
			t.Errorf("%s: unit %q, want %q", file, r.BWUnit, want)
		}
	}
	// Without a message rate nothing says the unit: it stays unknown, with a warning.
	r, err := ParseJSON([]byte(`{"test_info": {"test": "RDMA_Write_BW_Test"}, "results": {"bw_avg": 98.2}}`))
	if err != nil {
		t.Fatal(err)
	}
	if r.BWUnit != "" || len(r.Warnings) == 0 {
		t.Errorf("unit %q warnings %q", r.BWUnit, r.Warnings)
	}
	if _, ok := GbpsOf(98.2, r.BWUnit); ok {
		t.Error("an unknown unit converted to Gb/s")
	}
}
