package report

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/checks"
)

// TestHeatmapShowsTheWorstBetweenTwoHosts: several measurements between the
// same two hosts (two rails, a retest, both directions) fold into the worst.
func TestHeatmapShowsTheWorstBetweenTwoHosts(t *testing.T) {
	r := New("lab", fixture().Started, SuitePairwise)
	bw := func(a, b, dev string, v float64, st checks.Status) Pair {
		return Pair{A: a, B: b, DeviceA: dev, DeviceB: dev, Test: "write_bw", Value: gbps(v), Unit: checks.UnitGbps, Status: st}
	}
	r.AddPairs(
		bw("n1", "n2", "mlx5_0", 95, checks.StatusPass),
		bw("n2", "n1", "mlx5_1", 40, checks.StatusWarn),
		bw("n1", "n2", "mlx5_1", 70, checks.StatusFail), // worse status beats a lower value
		bw("n1", "n10", "mlx5_0", 90, checks.StatusPass),
	)
	cells := parseHeatmaps(t, render(t, WriteHTML, r))["write_bw"]
	if len(cells) != 9 {
		t.Fatalf("%d cells, want 3×3", len(cells))
	}
	// Natural order: n1, n2, n10.
	var rows []string
	for _, c := range cells[:3] {
		rows = append(rows, c.B)
	}
	if got := strings.Join(rows, ","); got != "n1,n2,n10" {
		t.Errorf("column order %s, want n1,n2,n10", got)
	}
	for _, i := range []int{1, 3} { // n1×n2 and n2×n1
		c := cells[i]
		if c.A != "n1" || c.B != "n2" || c.Gbps != "70" || c.Status != "fail" || !strings.Contains(c.Title, "worst of 3 measurements") {
			t.Errorf("cell %d: %+v, want the failed 70 Gb/s n1→n2 measurement, worst of 3", i, c)
		}
	}
	if c := cells[5]; c.Status != "" || c.Gbps != "" || !strings.Contains(c.Title, "not tested") { // n2×n10
		t.Errorf("untested cell: %+v", c)
	}
	if c := cells[0]; c.Loopback != "true" || c.Status != "" || !strings.Contains(c.Title, "no loopback") {
		t.Errorf("diagonal without loopback result: %+v", c)
	}
}

// fills renders r and returns the write_bw (or other single) heatmap's
// tested cells by "row→column".
func fills(t *testing.T, r *Report) map[string]svgCell {
	t.Helper()
	out := map[string]svgCell{}
	for _, cells := range parseHeatmaps(t, render(t, WriteHTML, r)) {
		for _, c := range cells {
			if c.Status != "" {
				out[c.A+"→"+c.B] = c
			}
		}
	}
	return out
}

// blue and red say which side of RdYlBu a fill is on.
func blue(t *testing.T, fill string) bool { c := rgb(t, fill); return c[2] > c[0] }
func red(t *testing.T, fill string) bool {
	c := rgb(t, fill)
	return c[0] > c[2] && c[0] > c[1]
}

// TestColourByVerdict: the hue of a cell is its verdict (pass blue, warn
// amber, fail red) and its shade the distance from the criterion: the
// best pass is the deepest blue, a failure far below the criterion the
// deepest red.
func TestColourByVerdict(t *testing.T) {
	r := New("lab", fixture().Started)
	r.Criteria = []Criterion{{Suite: SuitePairwise, Test: "write_bw", MinPercentOfBest: 93}}
	bw := func(b string, v float64, st checks.Status) Pair {
		return Pair{A: "h0", B: b, Test: "write_bw", Value: gbps(v), Unit: checks.UnitGbps, Status: st}
	}
	r.AddPairs(bw("h1", 100, checks.StatusPass), bw("h2", 94, checks.StatusPass), bw("h3", 85, checks.StatusWarn),
		bw("h4", 30, checks.StatusFail), bw("h5", 99, checks.StatusFail)) // h5: counter evidence at full rate
	f := fills(t, r)
	if got := f["h0→h1"].Rect[0].Fill; got != hex(passBand[1]) {
		t.Errorf("the best pass painted %s, want the deepest blue %s", got, hex(passBand[1]))
	}
	if got := f["h0→h2"].Rect[0].Fill; !blue(t, got) || got == hex(passBand[1]) {
		t.Errorf("a pass just above the criterion painted %s, want a lighter blue", got)
	}
	if got := f["h0→h3"].Rect[0].Fill; blue(t, got) || red(t, got) && got == hex(failBand[0]) {
		t.Errorf("a warning painted %s, want amber", got)
	}
	if got := f["h0→h4"].Rect[0].Fill; got != hex(failBand[0]) {
		t.Errorf("a failure far below the criterion painted %s, want the deepest red %s", got, hex(failBand[0]))
	}
	if got := f["h0→h5"].Rect[0].Fill; !red(t, got) {
		t.Errorf("a failure at full rate (counter evidence) painted %s, want red", got)
	}
	// Latency: lower is better; the bound is the criterion.
	r = New("lab", fixture().Started)
	r.Criteria = []Criterion{{Suite: SuitePairwise, Test: "write_lat", MaxLatencyUsec: 10}}
	lat := func(b string, v float64, st checks.Status) Pair {
		return Pair{A: "a", B: b, Test: "write_lat", Value: gbps(v), Unit: checks.UnitUsec, Status: st}
	}
	r.AddPairs(lat("b", 2, checks.StatusPass), lat("c", 8, checks.StatusPass), lat("d", 30, checks.StatusFail))
	f = fills(t, r)
	if f["a→b"].Rect[0].Fill != hex(passBand[1]) || !blue(t, f["a→c"].Rect[0].Fill) || f["a→c"].Rect[0].Fill == hex(passBand[1]) ||
		f["a→d"].Rect[0].Fill != hex(failBand[0]) {
		t.Errorf("latency 2/8/30 µs painted %s %s %s", f["a→b"].Rect[0].Fill, f["a→c"].Rect[0].Fill, f["a→d"].Rect[0].Fill)
	}
}

// TestPassingPairsAreNotRed (issue 30): the healthy lab's loopback results
// (0.23–0.28 Gb/s, one host, no switch) sat on the pairs' colour scale, so
// its slowest passing pair (0.09 Gb/s) was painted the deepest red and its
// neighbours orange. The diagonal is now off the scale, and a passing pair
// is blue whatever the spread.
func TestPassingPairsAreNotRed(t *testing.T) {
	r := labReport(t, "lab-healthy")
	for _, withCriteria := range []bool{true, false} {
		if !withCriteria {
			r.Criteria = nil // a report of an older fabricctl
		}
		for k, c := range fills(t, r) {
			switch {
			case c.Loopback == "true":
				if c.Rect[0].Fill != fillLoopback {
					t.Errorf("criteria %v: loopback %s painted %s, want the neutral %s", withCriteria, k, c.Rect[0].Fill, fillLoopback)
				}
			case c.Status == "pass" && !blue(t, c.Rect[0].Fill):
				t.Errorf("criteria %v: passing pair %s (%s Gb/s) painted %s, not blue", withCriteria, k, c.Gbps, c.Rect[0].Fill)
			}
		}
	}
	// And the fault lab: its failed pairs are red, the others blue.
	for k, c := range fills(t, labReport(t, "lab-fault")) {
		if c.Status == "fail" && !red(t, c.Rect[0].Fill) || c.Status == "pass" && !blue(t, c.Rect[0].Fill) {
			t.Errorf("fault lab: %s %s painted %s", k, c.Status, c.Rect[0].Fill)
		}
	}
}

// TestValuesPrintedInCells: every measured cell prints its value (a
// printed page has no tooltips), up to 48 hosts.
func TestValuesPrintedInCells(t *testing.T) {
	for _, n := range []int{4, 30} {
		r := New("lab", fixture().Started)
		for i := 1; i < n; i++ {
			r.AddPairs(Pair{A: "h00", B: fmt.Sprintf("h%02d", i), Test: "write_bw", Value: gbps(90 + float64(i)/10), Unit: checks.UnitGbps, Status: checks.StatusPass})
		}
		page := string(render(t, WriteHTML, r))
		texts := regexp.MustCompile(`<text [^>]*>(9\d\.\d)</text>`).FindAllStringSubmatch(page, -1)
		if len(texts) != 2*(n-1) {
			t.Errorf("%d hosts: %d values printed in cells, want %d", n, len(texts), 2*(n-1))
		}
	}
}

func rgb(t *testing.T, s string) [3]uint8 {
	t.Helper()
	var c [3]uint8
	for i := range c {
		var v uint8
		for _, ch := range s[1+2*i : 3+2*i] {
			v = v*16 + uint8(strings.IndexRune("0123456789abcdef", ch))
		}
		c[i] = v
	}
	return c
}

func TestCompareHosts(t *testing.T) {
	got := []string{"gpu-10", "gpu-2", "gpu-01", "b", "a", "gpu-1", "gpu-002", "node9x", "node10a", ""}
	slices.SortFunc(got, compareHosts)
	want := []string{"", "a", "b", "gpu-01", "gpu-1", "gpu-002", "gpu-2", "gpu-10", "node9x", "node10a"}
	if !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	for _, p := range [][2]string{{"gpu-01", "gpu-1"}, {"x", "x"}, {"a1b", "a01b"}} {
		if c1, c2 := compareHosts(p[0], p[1]), compareHosts(p[1], p[0]); c1 != -c2 || (c1 == 0) != (p[0] == p[1]) {
			t.Errorf("compareHosts(%q, %q) = %d, reverse %d: not a total order", p[0], p[1], c1, c2)
		}
	}
}
