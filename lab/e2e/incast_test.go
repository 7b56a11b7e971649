//go:build lab

package e2e

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fabricctl/fabricctl/checks"
	"github.com/fabricctl/fabricctl/checks/report"
)

// incastPFCOffHost is the host whose leaf port loses the lossless
// emulation (`lab fault add host/NAME pfc-off`).
const incastPFCOffHost = "lab-h3"

// incastCheck runs `check --suite incast` on the lab fabric: the JSON
// report decoded and the HTML report's text.
func (h *harness) incastCheck(ctx context.Context, name string) (result, *report.Report, string) {
	h.t.Helper()
	html := filepath.Join(h.t.TempDir(), name+".html")
	r := h.fabricctl(ctx, "check", "-f", fabricFile, "--target", "lab-h1,lab-h2,lab-h3,lab-h4,leaf-01,leaf-02",
		"--suite", "incast", "-o", "json", "--report", html)
	rep, err := report.ReadJSON(strings.NewReader(r.stdout))
	if err != nil {
		h.t.Fatalf("%s: check --suite incast -o json: %v\n%v", name, err, r)
	}
	b, err := os.ReadFile(html)
	if err != nil {
		h.t.Fatalf("%s: %v", name, err)
	}
	return r, rep, string(b)
}

// incastLossless returns the incast/lossless verdicts by host.
func incastLossless(rep *report.Report) map[string][]checks.Result {
	out := map[string][]checks.Result{}
	for _, r := range rep.Results {
		if r.ID == "incast/lossless" {
			host, _, _ := strings.Cut(r.Target, "/")
			out[host] = append(out[host], r)
		}
	}
	return out
}

// TestLabIncastSuite is the congestion suite through the product: after
// plan/apply as the demo does, the healthy lab passes `check --suite
// incast` (exit 0, every host's port judged lossless from rxe's sequence
// counters, PFC said to be not observable on rxe); with one host's leaf
// port shallow (pfc-off) it fails (exit 2) naming exactly that host's
// port, from its out_of_seq_request and the senders' rcvd_seq_err, in the
// JSON and the HTML report; clear restores the pass.
func TestLabIncastSuite(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Minute)
	defer cancel()
	tall := time.Now()
	h := up(t, ctx)
	sel := []string{"-f", fabricFile, "--target", targets}
	if r := h.fabricctl(ctx, append([]string{"apply", "--yes"}, sel...)...); r.code != 0 {
		t.Fatalf("apply: %v", r)
	}

	t0 := time.Now()
	r, rep, html := h.incastCheck(ctx, "healthy")
	phase("incast healthy", time.Since(t0))
	if r.code != 0 {
		t.Errorf("healthy lab: check --suite incast exit %d, want 0\n%s", r.code, r.stderr)
	}
	verdicts := incastLossless(rep)
	for _, host := range []string{"lab-h1", "lab-h2", "lab-h3", "lab-h4"} {
		rs := verdicts[host]
		if len(rs) != 1 || rs[0].Status != checks.StatusPass {
			t.Errorf("healthy lab: incast/lossless on %s: %+v, want one pass", host, rs)
		}
	}
	// Every host was a congested receiver once (receiversPerLeaf 2).
	for _, host := range []string{"lab-h1", "lab-h2", "lab-h3", "lab-h4"} {
		if rs := verdicts[host]; len(rs) == 1 && !slices.ContainsFunc(rs[0].Evidence, func(e string) bool {
			return strings.HasPrefix(e, "judged in rounds:") && strings.Contains(e, "receiver")
		}) {
			t.Errorf("healthy lab: %s was never an incast receiver: %q", host, rs[0].Evidence)
		}
	}
	var proved, unobservable bool
	for _, p := range rep.Congestion {
		proved = proved || p.Check == "incast/lossless" && p.Family == "rxe" && slices.Contains(p.Counters, "hw_counters/out_of_seq_request") && slices.Contains(p.Counters, "hw_counters/rcvd_seq_err")
		unobservable = unobservable || p.Check == "incast/pfc" && strings.Contains(p.NotObservable, "PFC activity not observable on rxe")
	}
	if !proved || !unobservable {
		t.Errorf("healthy lab: the congestion proofs do not say that rxe's sequence counters proved losslessness (%v) and that PFC is not observable (%v): %+v", proved, unobservable, rep.Congestion)
	}
	if !strings.Contains(html, "PFC activity not observable on rxe") {
		t.Error("healthy lab: the HTML report does not say that PFC activity is not observable on rxe")
	}

	if r := h.fabricctlHost(ctx, "lab", "fault", "add", "host/"+incastPFCOffHost, "pfc-off"); r.code != 0 {
		t.Fatalf("lab fault add host/%s pfc-off: %v", incastPFCOffHost, r)
	}
	t0 = time.Now()
	r, rep, html = h.incastCheck(ctx, "pfc-off")
	phase("incast pfc-off", time.Since(t0))
	if r.code != 2 {
		t.Errorf("pfc-off on %s: check --suite incast exit %d, want 2\n%s", incastPFCOffHost, r.code, r.stderr)
	}
	var blamed []string
	for host, rs := range incastLossless(rep) {
		for _, v := range rs {
			if v.Status == checks.StatusFail {
				blamed = append(blamed, host)
				ev := v.Summary + "\n" + strings.Join(v.Evidence, "\n")
				for _, want := range []string{"hw_counters/out_of_seq_request", "hw_counters/rcvd_seq_err"} {
					if host == incastPFCOffHost && !strings.Contains(ev, want) {
						t.Errorf("pfc-off: the failure on %s does not name %s:\n%s", v.Target, want, ev)
					}
				}
				t.Logf("pfc-off: FAIL %s: %s\n  %s", v.Target, v.Summary, strings.Join(v.Evidence, "\n  "))
			}
		}
	}
	if !slices.Equal(blamed, []string{incastPFCOffHost}) {
		t.Errorf("pfc-off on %s: incast/lossless fails on %v, want exactly [%s]", incastPFCOffHost, blamed, incastPFCOffHost)
	}
	if !strings.Contains(html, incastPFCOffHost+"/eth0/rxe0:1") || !strings.Contains(html, "out_of_seq_request") {
		t.Errorf("pfc-off: the HTML report names neither %s's port nor out_of_seq_request", incastPFCOffHost)
	}
	if r := h.fabricctlHost(ctx, "lab", "fault", "clear"); r.code != 0 {
		t.Fatalf("lab fault clear: %v", r)
	}
	phase("incast suite (all)", time.Since(tall))
}
