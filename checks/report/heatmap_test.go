package report

import (
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

// TestColourScale: the worst value gets the worst colour and the best the
// best; a fleet within a few percent of its best stays near the best colour.
func TestColourScale(t *testing.T) {
	fill := func(values ...float64) map[string]string {
		r := New("lab", fixture().Started)
		for i, v := range values {
			r.AddPairs(Pair{A: "h0", B: "h" + string(rune('1'+i)), Test: "write_bw", Value: gbps(v), Unit: checks.UnitGbps, Status: checks.StatusPass})
		}
		s, err := r.sorted()
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for _, c := range heatmaps(s)[0].Cells {
			if c.Value != "" {
				out[c.Value] = c.Fill
			}
		}
		return out
	}
	worst, best := hex(palette[0]), hex(palette[len(palette)-1])
	f := fill(50, 75, 100)
	if f["50"] != worst || f["100"] != best || f["75"] == worst || f["75"] == best {
		t.Errorf("50/75/100 Gb/s → %v, want %s … %s", f, worst, best)
	}
	f = fill(97, 98, 99)
	if c := rgb(t, f["97"]); f["99"] != best || c[2] <= c[0] { // the slowest of them stays on the blue (good) side
		t.Errorf("a fleet within 2%% painted %v; its slowest pair must not look broken", f)
	}
	// Latency: lower is better.
	r := New("lab", fixture().Started)
	r.AddPairs(Pair{A: "a", B: "b", Test: "write_lat", Value: gbps(2), Unit: checks.UnitUsec, Status: checks.StatusPass},
		Pair{A: "a", B: "c", Test: "write_lat", Value: gbps(8), Unit: checks.UnitUsec, Status: checks.StatusPass})
	s, _ := r.sorted()
	for _, c := range heatmaps(s)[0].Cells {
		if c.Value == "2" && c.Fill != best || c.Value == "8" && c.Fill != worst {
			t.Errorf("latency %s µs painted %s", c.Value, c.Fill)
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
