package report

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/fabricctl/fabricctl/checks"
)

// palette runs from the worst colour to the best (ColorBrewer RdYlBu, which
// colour-blind readers can tell apart).
var palette = [][3]uint8{{0xd7, 0x30, 0x27}, {0xfc, 0x8d, 0x59}, {0xfe, 0xe0, 0x90}, {0x91, 0xbf, 0xdb}, {0x45, 0x75, 0xb4}}

// Colours of the cells that carry no value.
const (
	fillUntested = "#f1f3f5"
	fillNoValue  = "#dee2e6"
)

// heatmap is the geometry of one test's host × host matrix, ready for the
// template: every number is in SVG user units (pixels).
type heatmap struct {
	Index      int
	Test, Unit string
	Better     string // "higher is better" or "lower is better"
	Hosts      []string
	Width      int
	Height     int
	Cells      []cell
	RowLabels  []label
	ColLabels  []label
	Rotate     bool // column labels are rotated to fit
	Legend     legend
	FontSize   int
	ShowValues bool
	Worst      []ranked // the worst pairs of the test, worst first
}

// ranked is one line of the "worst pairs" list next to a heatmap.
type ranked struct {
	Target string
	Value  string
	Status checks.Status
}

type label struct {
	X, Y int
	Text string
}

// cell is one square of the matrix. Row host × column host shows the worst
// measurement between the two hosts in either direction; A and B name that
// measurement's server and client as they appear in the JSON.
type cell struct {
	X, Y, Size     int
	TX, TY         int    // text anchor
	Fill           string // "#rrggbb"
	Ink            string // text colour readable on Fill
	Text           string // the value, rounded, or the status when there is no value
	Title          string // tooltip: the exact value and verdict
	A, B           string // data-a, data-b
	Test           string
	Value          string // exact value as in the JSON ("" when none)
	Unit           string
	Status         string
	Loopback       bool
	Tested         bool
	Marked         bool // fail or error: drawn with a dark border and a corner flag
	Warned         bool // warn: corner flag only
	Flag           string
	FlagX, FlagY   int
	FlagX2, FlagY2 int
}

type legend struct {
	X, Y, W  int
	Stops    []stop
	Low      string // worst end of the scale
	High     string // best end
	SwatchY  int
	TextY    int
	Swatches []swatch
}

type stop struct {
	Offset string
	Colour string
}

type swatch struct {
	X      int
	Fill   string
	Marked bool
	Warned bool
	FlagX  int
	Text   string
	TX     int
}

// measure is a value found for a cell, with where it came from.
type measure struct {
	a, b     string
	value    *float64
	status   checks.Status
	summary  string
	loopback bool
}

// worse orders measures worst first: status, then value (a missing value is
// the worst), in the unit's sense of better.
func worse(x, y measure, higherBetter bool) bool {
	if x.status != y.status {
		return x.status.Worse(y.status)
	}
	switch {
	case x.value == nil || y.value == nil:
		return x.value == nil && y.value != nil
	case higherBetter:
		return *x.value < *y.value
	default:
		return *x.value > *y.value
	}
}

// heatmaps builds one heatmap per pair test of a sorted report.
func heatmaps(r *Report) []heatmap {
	var out []heatmap
	for i, test := range r.tests() {
		out = append(out, buildHeatmap(r, i, test))
	}
	return out
}

func buildHeatmap(r *Report, index int, test string) heatmap {
	var unit checks.Unit
	cells := map[[2]string][]measure{} // key: hosts in natural order
	hostSet := map[string]bool{}
	for _, p := range r.Pairs {
		if p.Test != test {
			continue
		}
		unit = p.Unit
		hostSet[p.A], hostSet[p.B] = true, true
		k := [2]string{p.A, p.B}
		if compareHosts(p.B, p.A) < 0 {
			k = [2]string{p.B, p.A}
		}
		cells[k] = append(cells[k], measure{a: p.A, b: p.B, value: p.Value, status: p.Status, summary: p.Summary, loopback: p.A == p.B})
	}
	// The diagonal: loopback results of the same test on each host.
	for _, res := range r.Results {
		if res.ID != string(SuiteLoopback)+"/"+test {
			continue
		}
		h := HostOf(res.Target)
		if h == "" {
			continue
		}
		hostSet[h] = true
		m := measure{a: h, b: h, status: res.Status, summary: res.Summary, loopback: true}
		for _, x := range res.Measurements {
			if x.Unit == unit {
				v := x.Value
				m.value = &v
				break
			}
		}
		cells[[2]string{h, h}] = append(cells[[2]string{h, h}], m)
	}
	hosts := make([]string, 0, len(hostSet))
	for h := range hostSet {
		hosts = append(hosts, h)
	}
	slices.SortFunc(hosts, compareHosts)

	hb := higherIsBetter(unit)
	chosen := map[[2]string]measure{}
	lo, hi := math.Inf(1), math.Inf(-1)
	for k, ms := range cells {
		w := ms[0]
		for _, m := range ms[1:] {
			if worse(m, w, hb) {
				w = m
			}
		}
		chosen[k] = w
		for _, m := range ms {
			if m.value != nil {
				lo, hi = math.Min(lo, *m.value), math.Max(hi, *m.value)
			}
		}
	}
	// The scale runs from the worst value to the best; it always spans at
	// least 20% of the best so that a healthy fleet within a few percent of
	// itself does not paint its slowest pair red.
	worst, best := lo, hi
	if !hb {
		worst, best = hi, lo
	}
	if hb && worst > best*0.8 {
		worst = best * 0.8
	}
	if !hb && worst < best*1.25 {
		worst = best * 1.25
	}
	scale := func(v float64) float64 {
		if worst == best {
			return 1
		}
		return math.Max(0, math.Min(1, (v-worst)/(best-worst)))
	}

	hm := heatmap{Index: index, Test: test, Unit: string(unit), Hosts: hosts, Better: "higher is better"}
	if !hb {
		hm.Better = "lower is better"
	}
	n := len(hosts)
	size := 12
	for _, c := range []struct{ upTo, size int }{{6, 64}, {12, 52}, {24, 34}, {48, 20}} {
		if n <= c.upTo {
			size = c.size
			break
		}
	}
	hm.ShowValues = size >= 34
	hm.FontSize = 12
	if size < 52 {
		hm.FontSize = 10
	}
	longest := 0
	for _, h := range hosts {
		longest = max(longest, len([]rune(h)))
	}
	labelW := 16 + longest*7
	left := labelW
	top := 28
	if labelW-16 > size-6 {
		hm.Rotate = true
		top = int(float64(labelW)*0.72) + 12
	}
	for i, h := range hosts {
		hm.RowLabels = append(hm.RowLabels, label{X: left - 8, Y: top + i*size + size/2 + 4, Text: h})
		if hm.Rotate {
			hm.ColLabels = append(hm.ColLabels, label{X: left + i*size + size/2, Y: top - 8, Text: h})
		} else {
			hm.ColLabels = append(hm.ColLabels, label{X: left + i*size + size/2, Y: top - 10, Text: h})
		}
	}
	for i, row := range hosts {
		for j, col := range hosts {
			k := [2]string{row, col}
			if compareHosts(col, row) < 0 {
				k = [2]string{col, row}
			}
			c := cell{X: left + j*size, Y: top + i*size, Size: size - 2, Test: test, Unit: string(unit),
				A: row, B: col, Fill: fillUntested, Ink: "#495057", Loopback: i == j}
			c.TX, c.TY = c.X+c.Size/2, c.Y+c.Size/2+hm.FontSize/3+1
			m, ok := chosen[k]
			if !ok {
				c.Title = fmt.Sprintf("%s → %s: not tested", row, col)
				if i == j {
					c.Title = fmt.Sprintf("%s: no loopback %s result", row, test)
				}
				hm.Cells = append(hm.Cells, c)
				continue
			}
			c.Tested, c.A, c.B, c.Status = true, m.a, m.b, string(m.status)
			c.Marked = m.status == checks.StatusFail || m.status == checks.StatusError
			c.Warned = m.status == checks.StatusWarn
			what := fmt.Sprintf("%s → %s", m.a, m.b)
			if m.loopback {
				what = m.a + " loopback"
			}
			if m.value != nil {
				c.Value = strconv.FormatFloat(*m.value, 'f', -1, 64)
				c.Fill = colourAt(scale(*m.value))
				c.Text = shortValue(*m.value, unit)
				c.Title = fmt.Sprintf("%s %s: %s %s (%s)", what, test, c.Value, unit, m.status)
			} else {
				c.Fill = fillNoValue
				c.Text = strings.ToUpper(string(m.status))
				c.Title = fmt.Sprintf("%s %s: no value (%s)", what, test, m.status)
			}
			c.Ink = inkFor(c.Fill)
			if m.summary != "" {
				c.Title += "\n" + m.summary
			}
			if n := len(cells[k]); n > 1 {
				c.Title += fmt.Sprintf("\nworst of %d measurements", n)
			}
			f := max(size/4, 6)
			c.FlagX, c.FlagY, c.FlagX2, c.FlagY2 = c.X+c.Size-f, c.Y, c.X+c.Size, c.Y+f
			c.Flag = "#7f0000"
			if c.Warned {
				c.Flag = "#b35c00"
			}
			hm.Cells = append(hm.Cells, c)
		}
	}

	gridBottom := top + n*size
	hm.Legend = legend{X: left, Y: gridBottom + 22, W: max(200, min(320, n*size))}
	for i, p := range palette {
		hm.Legend.Stops = append(hm.Legend.Stops, stop{Offset: fmt.Sprintf("%d%%", i*100/(len(palette)-1)), Colour: hex(p)})
	}
	if !math.IsInf(lo, 0) {
		hm.Legend.Low = shortValue(worst, unit) + " " + string(unit)
		hm.Legend.High = shortValue(best, unit) + " " + string(unit)
	}
	hm.Worst = worstPairs(r, test, hb, 8)
	hm.Legend.TextY = hm.Legend.Y + 28
	hm.Legend.SwatchY = hm.Legend.Y + 44
	x := left
	for _, s := range []swatch{
		{Fill: hex(palette[4]), Marked: true, Text: "fail or error"},
		{Fill: hex(palette[4]), Warned: true, Text: "warn"},
		{Fill: fillNoValue, Text: "no value"},
		{Fill: fillUntested, Text: "not tested"},
	} {
		s.X, s.TX, s.FlagX = x, x+20, x+8
		hm.Legend.Swatches = append(hm.Legend.Swatches, s)
		x += 20 + 7*len(s.Text) + 24
	}
	hm.Width = max(left+n*size, x, hm.Legend.X+hm.Legend.W) + 16
	hm.Height = hm.Legend.SwatchY + 22
	return hm
}

// worstPairs lists up to n pairs of test, worst first (status, then value).
func worstPairs(r *Report, test string, higherBetter bool, n int) []ranked {
	var ms []measure
	var ps []Pair
	for _, p := range r.Pairs {
		if p.Test == test {
			ps = append(ps, p)
			ms = append(ms, measure{value: p.Value, status: p.Status})
		}
	}
	idx := make([]int, len(ps))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(i, j int) int {
		switch {
		case worse(ms[i], ms[j], higherBetter):
			return -1
		case worse(ms[j], ms[i], higherBetter):
			return 1
		}
		return 0
	})
	var out []ranked
	for _, i := range idx[:min(n, len(idx))] {
		p := ps[i]
		v := "no value"
		if p.Value != nil {
			v = formatValue(*p.Value, p.Unit)
		}
		out = append(out, ranked{Target: p.Target(), Value: v, Status: p.Status})
	}
	return out
}

// colourAt interpolates the palette at t ∈ [0,1] (0 worst, 1 best).
func colourAt(t float64) string {
	seg := t * float64(len(palette)-1)
	i := min(int(seg), len(palette)-2)
	f := seg - float64(i)
	var c [3]uint8
	for k := range c {
		c[k] = uint8(math.Round(float64(palette[i][k])*(1-f) + float64(palette[i+1][k])*f))
	}
	return hex(c)
}

func hex(c [3]uint8) string { return fmt.Sprintf("#%02x%02x%02x", c[0], c[1], c[2]) }

// inkFor picks black or white text for a "#rrggbb" background by its luminance.
func inkFor(fill string) string {
	var r, g, b uint8
	if _, err := fmt.Sscanf(fill, "#%02x%02x%02x", &r, &g, &b); err != nil {
		return "#212529"
	}
	if 0.299*float64(r)+0.587*float64(g)+0.114*float64(b) < 140 {
		return "#ffffff"
	}
	return "#212529"
}

// shortValue is the number printed inside a cell.
func shortValue(v float64, u checks.Unit) string {
	if u == checks.UnitUsec || math.Abs(v) < 10 {
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
	if math.Abs(v) >= 1000 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'f', 1, 64)
}

// compareHosts orders host names the way people number them (gpu-2 before
// gpu-10), falling back to byte order so that it is a total order.
func compareHosts(a, b string) int {
	x, y := a, b
	for x != "" && y != "" {
		if isDigit(x[0]) && isDigit(y[0]) {
			dx, dy := leadingDigits(x), leadingDigits(y)
			tx, ty := strings.TrimLeft(dx, "0"), strings.TrimLeft(dy, "0")
			if c := cmp.Or(cmp.Compare(len(tx), len(ty)), cmp.Compare(tx, ty)); c != 0 {
				return c
			}
			x, y = x[len(dx):], y[len(dy):]
			continue
		}
		if x[0] != y[0] {
			return cmp.Compare(x[0], y[0])
		}
		x, y = x[1:], y[1:]
	}
	return cmp.Or(cmp.Compare(len(x), len(y)), cmp.Compare(a, b))
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func leadingDigits(s string) string {
	i := 0
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	return s[:i]
}
