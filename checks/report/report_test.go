package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fabricctl/fabricctl/checks"
	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/internal/output"

	"github.com/fabricctl/fabricctl/internal/testutil"
	"github.com/google/go-cmp/cmp"
)

// writers are the four writers, by the name their errors use, with their golden file.
var writers = []struct {
	name, golden string
	write        func(io.Writer, *Report) error
}{
	{"table", "report.table.golden", WriteTable},
	{"JSON", "report.json.golden", WriteJSON},
	{"JUnit", "report.junit.golden", WriteJUnit},
	{"HTML", "report.html.golden", WriteHTML},
}

func render(t *testing.T, write func(io.Writer, *Report) error, r *Report) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := write(&b, r); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestGolden(t *testing.T) {
	for _, w := range writers {
		t.Run(w.golden, func(t *testing.T) {
			r := fixture()
			before := *r
			testutil.Golden(t, w.golden, render(t, w.write, r))
			if diff := cmp.Diff(before, *r); diff != "" {
				t.Errorf("writer modified the report (-before +after):\n%s", diff)
			}
		})
	}
}

func TestJSONRoundTrip(t *testing.T) {
	r := fixture()
	out := render(t, WriteJSON, r)
	back, err := ReadJSON(bytes.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	again := render(t, WriteJSON, back)
	if diff := cmp.Diff(string(out), string(again)); diff != "" {
		t.Errorf("JSON → ReadJSON → JSON differs (-first +second):\n%s", diff)
	}
	var doc map[string]any
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatal(err)
	}
	if doc["apiVersion"] != fabric.APIVersion || doc["kind"] != Kind {
		t.Errorf("apiVersion %v kind %v", doc["apiVersion"], doc["kind"])
	}
	sum := doc["summary"].(map[string]any)
	if sum["status"] != "error" {
		t.Errorf("summary status %v, want error", sum["status"])
	}
	// Sorted: results by target then ID, pairs by test, a, b.
	if !slices.IsSortedFunc(back.Results, func(a, b checks.Result) int {
		return cmp2(a.Target+"\x00"+a.ID, b.Target+"\x00"+b.ID)
	}) {
		t.Error("results not sorted by target, then ID")
	}
	if !slices.IsSortedFunc(back.Pairs, func(a, b Pair) int {
		return cmp2(a.Test+"\x00"+a.A+"\x00"+a.B, b.Test+"\x00"+b.A+"\x00"+b.B)
	}) {
		t.Error("pairs not sorted by test, a, b")
	}
	if got := fmt.Sprint(back.Suites); got != "[preflight loopback pairwise nccl]" {
		t.Errorf("suites %s", got)
	}
}

func cmp2(a, b string) int { return strings.Compare(a, b) }

func TestReadJSONRejects(t *testing.T) {
	for name, doc := range map[string]string{
		"other apiVersion": `{"apiVersion":"fabricctl.io/v2","kind":"CheckReport","results":[],"pairs":[]}`,
		"unknown field":    `{"apiVersion":"fabricctl.io/v1alpha1","kind":"CheckReport","color":"red"}`,
		"bad status":       `{"apiVersion":"fabricctl.io/v1alpha1","kind":"CheckReport","results":[{"id":"x","target":"h","status":"ok"}]}`,
		"pair unit":        `{"apiVersion":"fabricctl.io/v1alpha1","kind":"CheckReport","pairs":[{"a":"x","b":"y","test":"write_bw","unit":"MB/s","status":"pass"}]}`,
		"not JSON":         `apiVersion: fabricctl.io/v1alpha1`,
	} {
		if _, err := ReadJSON(strings.NewReader(doc)); err == nil {
			t.Errorf("%s: no error", name)
		} else if !strings.HasPrefix(err.Error(), "reading JSON report: ") {
			t.Errorf("%s: error %q lacks context", name, err)
		}
	}
}

func TestValidateNamesTheEntry(t *testing.T) {
	nan := math.NaN()
	cases := []struct {
		name   string
		mutate func(r *Report)
		want   string
	}{
		{"status", func(r *Report) { r.Results[1].Status = "passed" }, `results[1] preflight/roce-v2-gid gpu-04/mlx5_0: status "passed"`},
		{"measurement", func(r *Report) { r.Results[2].Measurements[0].Value = math.Inf(1) }, "results[2] loopback/write_bw gpu-04/mlx5_0: measurement bw_average is +Inf"},
		{"no host", func(r *Report) { r.Pairs[0].B = "" }, "pairs[0] pairwise/write_bw gpu-03/mlx5_0->/mlx5_0: a pair needs both hosts"},
		{"no test", func(r *Report) { r.Pairs[1].Test = "" }, "pairs[1] pairwise/ gpu-02/mlx5_0->gpu-04/mlx5_0: test is empty"},
		{"unit", func(r *Report) { r.Pairs[2].Unit = checks.UnitMBps }, `pairs[2] pairwise/write_bw gpu-01/mlx5_0->gpu-02/mlx5_0: unit "MB/s" is neither Gb/s nor us`},
		{"NaN", func(r *Report) { r.Pairs[3].Value = &nan }, "pairs[3] pairwise/write_bw gpu-01/mlx5_0->gpu-03/mlx5_0: value NaN is not a finite number"},
		{"two units", func(r *Report) { r.Pairs[6].Test = "write_bw" }, "pairs[6] pairwise/write_bw gpu-01->gpu-02: test write_bw measured in Gb/s and us"},
	}
	for _, c := range cases {
		r := fixture()
		c.mutate(r)
		err := r.Validate()
		if !errors.Is(err, ErrInvalid) || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q…", c.name, err, c.want)
		}
		for _, w := range writers {
			if err := w.write(io.Discard, r); !errors.Is(err, ErrInvalid) || !strings.HasPrefix(err.Error(), "writing "+w.name+" report: ") {
				t.Errorf("%s: %s writer: %v", c.name, w.name, err)
			}
		}
	}
}

func TestPairOf(t *testing.T) {
	res := checks.Result{ID: "pairwise/write_bw", Target: "gpu-01/mlx5_0->gpu-02/mlx5_1", Status: checks.StatusFail,
		Class: checks.LowBandwidth, Summary: "slow", Evidence: []string{"e"},
		Measurements: []checks.Measurement{{Name: "bw_peak", Value: 99, Unit: checks.UnitGbps}, {Name: "bw_average", Value: 74.2, Unit: checks.UnitGbps}}}
	got, err := PairOf(res, "bw_average")
	if err != nil {
		t.Fatal(err)
	}
	want := Pair{A: "gpu-01", DeviceA: "mlx5_0", B: "gpu-02", DeviceB: "mlx5_1", Test: "write_bw", Value: gbps(74.2),
		Unit: checks.UnitGbps, Status: checks.StatusFail, Class: checks.LowBandwidth, Summary: "slow", Evidence: []string{"e"},
		Measurements: []checks.Measurement{{Name: "bw_peak", Value: 99, Unit: checks.UnitGbps}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if got.Target() != res.Target || got.ID() != res.ID {
		t.Errorf("Target %q ID %q do not give back the result's", got.Target(), got.ID())
	}
	lat, err := PairOf(checks.Result{ID: "pairwise/send_lat", Target: "a->b", Status: checks.StatusError}, "t_typical")
	if err != nil || lat.Value != nil || lat.Unit != checks.UnitUsec || lat.A != "a" || lat.B != "b" {
		t.Errorf("latency pair without a value: %+v, %v", lat, err)
	}
	for _, target := range []string{"gpu-01/mlx5_0", "->b", "a->", ""} {
		if _, err := PairOf(checks.Result{ID: "pairwise/write_bw", Target: target}, "bw_average"); !errors.Is(err, ErrNotPair) {
			t.Errorf("target %q: got %v, want ErrNotPair", target, err)
		}
	}
}

func TestTableFailuresFirst(t *testing.T) {
	// -o wide: one line per check and pair (the default view folds passes that say the same).
	wide := func(w io.Writer, r *Report) error {
		return WriteTable(&output.Terminal{Writer: w, Term: output.Term{Wide: true}}, r)
	}
	out := string(render(t, wide, fixture()))
	lines := strings.Split(out, "\n")
	rank := map[string]int{"ERROR": 0, "FAIL": 1, "WARN": 2, "SKIP": 3, "PASS": 4}
	last, n := -1, 0
	for _, l := range lines[1:] {
		if l == "" {
			break
		}
		n++
		st, _, _ := strings.Cut(l, " ")
		if rank[st] < last {
			t.Errorf("%q after a better status", l)
		}
		last = rank[st]
	}
	if n != 16+8 {
		t.Errorf("%d table lines, want one per check (16) and per pair (8)", n)
	}
	if sum := lines[len(lines)-2]; !strings.HasPrefix(sum, "RESULT: ERROR, 16 checks (12 pass, 1 warn, 1 fail, 1 skip, 1 error), 8 pairs (5 pass, 1 warn, 1 fail, 0 skip, 1 error)") {
		t.Errorf("summary line %q", sum)
	}
}

func TestSummaryCounts(t *testing.T) {
	s := fixture().Summary()
	want := Summary{Status: checks.StatusError,
		Checks: Counts{Total: 16, Pass: 12, Warn: 1, Fail: 1, Skip: 1, Error: 1},
		Pairs:  Counts{Total: 8, Pass: 5, Warn: 1, Fail: 1, Error: 1},
		All:    Counts{Total: 24, Pass: 17, Warn: 2, Fail: 2, Skip: 1, Error: 2}}
	if diff := cmp.Diff(want, s); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if got := New("empty", time.Time{}).Summary().Status; got != checks.StatusPass {
		t.Errorf("empty report status %s", got)
	}
}

func TestEmptyReportWrites(t *testing.T) {
	r := New("empty", time.Time{})
	for _, w := range writers {
		if out := render(t, w.write, r); len(out) == 0 {
			t.Errorf("%s: empty output", w.name)
		}
	}
	out := render(t, WriteJSON, r)
	if !bytes.Contains(out, []byte(`"results": []`)) || !bytes.Contains(out, []byte(`"pairs": []`)) {
		t.Errorf("empty lists must be [] not null:\n%s", out)
	}
}
