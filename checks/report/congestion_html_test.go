package report

import (
	"strings"
	"testing"
)

// TestCongestionSectionHTML: the HTML page, like the table, says which
// counters proved each incast verdict and why the others were not judged.
func TestCongestionSectionHTML(t *testing.T) {
	var b strings.Builder
	if err := WriteHTML(&b, congestionReport()); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`id="congestion"`,
		"<b>incast/lossless</b> on h1/eth0/rxe0:1 (rxe): hw_counters/out_of_seq_request, hw_counters/rcvd_seq_err",
		"<b>incast/pfc</b> on h1/eth0/rxe0:1, h2/eth0/rxe0:1 (rxe): not judged: PFC activity not observable on rxe",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	r := congestionReport()
	r.Congestion = nil
	b.Reset()
	if err := WriteHTML(&b, r); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), `id="congestion"`) {
		t.Error("a report without congestion proofs has the section")
	}
}
