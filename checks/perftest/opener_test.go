package perftest

import (
	"os"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/checks"
)

// TestErrorsByPerftestsOwnOpeners: an error line no pattern names is still
// a failure when it opens as perftest opens its errors, classed by the
// object it names; the rdma_cm Event/ERRNO lines under it join it; a
// command line's -d names the device.
func TestErrorsByPerftestsOwnOpeners(t *testing.T) {
	for line, want := range map[string]checks.FailureClass{
		"Unable to create QP.":                     checks.Resources,
		"Couldn't allocate MR":                     checks.Resources,
		"Failed to disconnect RDMA CM connection.": checks.OOBConnect,
		"Couldn't get device attributes":           checks.NoDevice,
		"Did not detect devices":                   checks.NoDevice,
		"Couldn't get context for the device":      checks.NoDevice,
		" >   Port number 1 state is Down":         checks.PortDown,
		"Failed to modify QP 12 to RTR":            checks.QPBringUp,
		"poll CQ failed 1":                         checks.CompletionError,
	} {
		if !FailureLine(line) {
			t.Errorf("%q: not a failure line", line)
			continue
		}
		if f, _ := classify(cleanLine(line), 1); f.Class != want {
			t.Errorf("%q: class %s, want %s", line, f.Class, want)
		}
	}
	for _, ok := range []string{" local address: LID 0000 QPN 0x0108 PSN 0x3f2a", "Conflicting CPU frequency values detected: 800.0 != 3400.0. CPU Frequency is not max.", "#bytes     #iterations    BW peak[Gb/sec]"} {
		if FailureLine(ok) {
			t.Errorf("%q taken for a failure", ok)
		}
	}
	r, err := Parse(strings.NewReader("# ib_write_bw -R -d cxgb4_0 10.0.0.1\nRDMA CM event error:\nEvent: RDMA_CM_EVENT_REJECTED; error: -111.\nERRNO: No such file or directory.\n"))
	if err != nil {
		t.Fatal(err)
	}
	if r.Header.Device != "cxgb4_0" || len(r.Failures) != 1 || !strings.Contains(r.Failures[0].Detail, "RDMA_CM_EVENT_REJECTED") || !strings.Contains(r.Failures[0].Detail, "No such file") {
		t.Errorf("device %q failures %+v", r.Header.Device, r.Failures)
	}
}

// TestFiguresThatAreNoMeasurement: rows with NaN, an infinity or a
// negative figure are left out and listed by line, text and JSON alike.
func TestFiguresThatAreNoMeasurement(t *testing.T) {
	text := string(mustReadFile(t, "testdata/text/write_bw_client_roce_2qp_gbits.txt"))
	for _, v := range []string{"nan", "-Inf", "-97.61"} {
		r, err := Parse(strings.NewReader(strings.Replace(text, "97.61", v, 1)))
		if err != nil {
			t.Fatal(err)
		}
		if len(r.NotNumbers) != 1 || !strings.Contains(r.NotNumbers[0], "line 30") {
			t.Errorf("%s: %q", v, r.NotNumbers)
		}
		for _, row := range r.BW {
			if row.Bytes == 1048576 {
				t.Errorf("%s: the row was kept: %+v", v, row)
			}
		}
	}
	r, err := ParseJSON([]byte(`{"results": {"MsgSize": 65536, "BW_average": NaN}}`))
	if err == nil && (len(r.BW) != 0 || len(r.NotNumbers) != 1) {
		t.Errorf("json: %+v", r)
	}
}

func mustReadFile(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestFiguresThatDoNotFit: a message size or iteration count that is not a
// whole number an int64 holds (1e23 read as −9223372036854775808 before), a
// figure past float64 (1e999, read as a row-ending word before) and, in
// JSON, a result field that is no number at all (1e999 read as absent, a "0
// average" before) leave the row out, listed by line or field; never zero.
func TestFiguresThatDoNotFit(t *testing.T) {
	text := string(mustReadFile(t, "testdata/text/write_bw_client_roce_2qp_gbits.txt"))
	for _, c := range []struct{ old, new, want string }{
		{"1048576    5000", "1e23    5000", "#bytes 1e+23 is too large"},
		{"1048576    5000", "1048576    5000.5", "#iterations 5000.5 is not a whole number"},
		{"97.61", "1e999", "1e999 does not fit a float64"},
	} {
		r, err := Parse(strings.NewReader(strings.Replace(text, c.old, c.new, 1)))
		if err != nil {
			t.Fatal(err)
		}
		if len(r.NotNumbers) != 1 || !strings.Contains(r.NotNumbers[0], "line 30: "+c.want) {
			t.Errorf("%s: %q", c.new, r.NotNumbers)
		}
		if row, _ := r.Final(); row.Bytes != 65536 {
			t.Errorf("%s: final row %+v", c.new, row)
		}
	}
	for doc, want := range map[string]string{
		`{"results": {"MsgSize": 65536, "BW_average": 1e999}}`:  "results[0].BW_average: 1e999 does not fit a float64",
		`{"results": {"MsgSize": 1e23, "BW_average": 9.5}}`:     "results[0].MsgSize: MsgSize 1e+23 is too large for a count",
		`{"results": {"MsgSize": 65536, "BW_average": "fast"}}`: `results[0].BW_average: "fast" is not a number`,
		`{"results": {"MsgSize": 65536, "BW_average": null}}`:   "results[0].BW_average: null is not a number",
	} {
		r, err := ParseJSON([]byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		if len(r.BW) != 0 || len(r.NotNumbers) != 1 || r.NotNumbers[0] != want {
			t.Errorf("%s: rows %+v, not numbers %q, want %q", doc, r.BW, r.NotNumbers, want)
		}
	}
	r, err := Parse(strings.NewReader("Failed status 99999999999999999999: wr_id 0 syndrom 0x81\n"))
	if err != nil || len(r.Failures) != 1 || !strings.Contains(r.Failures[0].Detail, "status 99999999999999999999 (out of range)") {
		t.Errorf("overflowing completion status: %+v %v", r, err)
	}
}
