package nhc

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

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
