package nhc

import (
	"bytes"
	"context"
	"errors"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/fabricctl/fabricctl/checks"
	"github.com/fabricctl/fabricctl/checks/report"
)

func rep(results ...checks.Result) *report.Report {
	return &report.Report{Results: results}
}

func TestFromReport(t *testing.T) {
	for name, tc := range map[string]struct {
		rep  *report.Report
		code int
		line string
	}{
		"healthy with warnings": {rep(checks.Result{ID: "preflight/lossless", Target: "h", Status: checks.StatusWarn}, checks.Result{ID: "preflight/gpu-nic-affinity", Status: checks.StatusSkip}), Healthy, ""},
		"no device": {rep(checks.Result{ID: "preflight/rdma-device", Target: "h/eth0", Status: checks.StatusFail, Summary: "netdev eth0 has no\nRDMA device"},
			checks.Result{ID: "preflight/perftest", Target: "h", Status: checks.StatusError, Summary: "missing"},
			checks.Result{ID: "loopback/write_bw", Target: "h/rxe0", Status: checks.StatusFail, Summary: "low"}),
			Unhealthy, "ERROR: fabricctl: preflight/rdma-device h/eth0: netdev eth0 has no RDMA device (+1 more)"},
		"undecided": {rep(checks.Result{ID: "preflight/perftest", Target: "h", Status: checks.StatusError, Summary: "ib_write_bw not found"}),
			Unknown, "ERROR: fabricctl: could not decide: preflight/perftest h: ib_write_bw not found"},
	} {
		t.Run(name, func(t *testing.T) {
			v := FromReport(tc.rep)
			var b bytes.Buffer
			if err := v.Write(&b); err != nil {
				t.Fatal(err)
			}
			want := tc.line
			if want != "" {
				want += "\n"
			}
			if v.Code != tc.code || b.String() != want {
				t.Errorf("code %d %q, want %d %q", v.Code, b.String(), tc.code, want)
			}
		})
	}
	long := FromReport(rep(checks.Result{ID: "x", Status: checks.StatusFail, Summary: strings.Repeat("y", 500)}))
	if l := long.Line(); len(l) != MaxLine || strings.Contains(l, "\n") {
		t.Errorf("long line: %d bytes", len(l))
	}
}

// TestRunAnswersWithinBudget: a check that ignores its context (a hung device read) still gets
// an answer when the budget is spent; one that honours it is cut at nine tenths of it.
func TestRunAnswersWithinBudget(t *testing.T) {
	block := make(chan struct{})
	defer close(block)
	t0 := time.Now()
	v := Run(t.Context(), 300*time.Millisecond, func(context.Context) (*report.Report, error) { <-block; return nil, nil })
	if d := time.Since(t0); v.Code != Unknown || d > 2*time.Second || !strings.Contains(v.Line(), "budget") {
		t.Errorf("hung check: %+v after %s", v, d)
	}
	v = Run(t.Context(), 300*time.Millisecond, func(ctx context.Context) (*report.Report, error) { <-ctx.Done(); return nil, ctx.Err() })
	if v.Code != Unknown || !strings.Contains(v.Line(), "did not finish within the 300ms budget") {
		t.Errorf("cancelled check: %+v", v)
	}
	v = Run(t.Context(), time.Second, func(context.Context) (*report.Report, error) {
		return nil, errors.New("opening the host: permission denied")
	})
	if v.Code != Unknown || !strings.Contains(v.Line(), "permission denied") {
		t.Errorf("failed check: %+v", v)
	}
	v = Run(t.Context(), time.Second, func(context.Context) (*report.Report, error) { return rep(), nil })
	if v.Code != Healthy || v.Line() != "" {
		t.Errorf("healthy: %+v", v)
	}
}

// nhcLine is how a site's script or NPD's log reader takes an NHC-style line apart: ERROR:, the
// checker's name and a colon, the message; blanks between them may be one or more (NHC prints two).
var nhcLine = regexp.MustCompile(`^ERROR:[ \t]+([^ \t:]+):[ \t]+(\S.*)$`)

// TestLineReadsLikeNHC: fabricctl's line is read like LBNL NHC's own lines (testdata/nhc-output.txt,
// written from NHC's format strings; testdata/README.md): one line, "ERROR:", the name, the
// message; whatever the reason holds (newlines, tabs, long multi-byte text), the line stays one
// valid UTF-8 line of at most MaxLine bytes.
func TestLineReadsLikeNHC(t *testing.T) {
	data, err := os.ReadFile("testdata/nhc-output.txt")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if m := nhcLine.FindStringSubmatch(l); m == nil || m[1] != "nhc" {
			t.Errorf("NHC's line %q does not read as ERROR: nhc: MESSAGE (%q)", l, m)
		}
	}
	for name, v := range map[string]Verdict{
		"failed":    {Unhealthy, "preflight/rdma-device lab-h3/eth0: netdev eth0 has no RDMA device"},
		"undecided": {Unknown, "could not check: fabric.yaml: 2 error(s), the first fabric.yaml:8:5: spec.hosts[0].bogus: unknown field"},
		"newlines":  {Unknown, "could not check: first\nsecond\r\n\tthird"},
		"long utf8": {Unhealthy, strings.Repeat("é", 300)},
	} {
		l := v.Line()
		m := nhcLine.FindStringSubmatch(l)
		if m == nil || m[1] != "fabricctl" || strings.ContainsAny(l, "\r\n\t") || len(l) > MaxLine || !utf8.ValidString(l) {
			t.Errorf("%s: line %q (%d bytes) does not read as one ERROR: fabricctl: MESSAGE line", name, l, len(l))
		}
	}
}
