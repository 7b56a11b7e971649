package report

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/fabricctl/fabricctl/checks"
	"github.com/fabricctl/fabricctl/checks/evaluate"
)

// The hue of a cell says its verdict, the shade how far its value sits
// from the pass criterion (ColorBrewer RdYlBu, which colour-blind readers
// can tell apart): passing pairs are blue, light at the criterion and
// deep at the sweep's best; warnings amber; failures red, deeper the
// further below the criterion. A passing pair is never red, whatever the
// spread of the fleet.
var (
	passBand = [2][3]uint8{{0xab, 0xd9, 0xe9}, {0x45, 0x75, 0xb4}} // at the criterion → at the best
	warnBand = [2][3]uint8{{0xfd, 0xae, 0x61}, {0xfe, 0xe0, 0x90}} // far below → at the criterion
	failBand = [2][3]uint8{{0xa5, 0x00, 0x26}, {0xf4, 0x6d, 0x43}} // far below → at the criterion
)

// Colours of the cells that carry no verdict colour.
const (
	fillUntested = "#f1f3f5"
	fillNoValue  = "#dee2e6"
	fillLoopback = "#e9ecef" // the diagonal: another test, off the pairs' scale
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
	FontSize   int
	ShowValues bool
	Worst      []ranked // the worst pairs of the test, worst first
	// The scale: Criterion is the value at which the blue band starts
	// (the pass criterion in the unit), Best the sweep's best off-diagonal
	// value, CriterionText says where the criterion came from.
	Criterion, Best string
	CriterionText   string
	Rules           []string // the criterion's rules in words, when the report carries them
	Loopbacks       bool     // the diagonal holds loopback results
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
	var offDiagonal []measure // the pairs' values: the diagonal is another test
	for k, ms := range cells {
		w := ms[0]
		for _, m := range ms[1:] {
			if worse(m, w, hb) {
				w = m
			}
		}
		chosen[k] = w
		for _, m := range ms {
			if !m.loopback {
				offDiagonal = append(offDiagonal, m)
			}
		}
	}
	sc := scaleOf(r, test, unit, offDiagonal)

	hm := heatmap{Index: index, Test: test, Unit: string(unit), Hosts: hosts, Better: "higher is better",
		CriterionText: sc.text, Rules: sc.rules}
	if sc.ok {
		hm.Criterion, hm.Best = shortValue(sc.criterion, unit), shortValue(sc.best, unit)
	}
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
	// Values are printed in every cell big enough to read them (up to 48
	// hosts), not left to tooltips that a printed page loses.
	hm.ShowValues = size >= 20
	switch {
	case size >= 52:
		hm.FontSize = 12
	case size >= 34:
		hm.FontSize = 10
	default:
		hm.FontSize = 8
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
				c.Fill = sc.fill(m, *m.value)
				c.Text = shortValue(*m.value, unit)
				c.Title = fmt.Sprintf("%s %s: %s %s (%s)", what, test, c.Value, unit, m.status)
				if !m.loopback && sc.ok && sc.best != 0 {
					c.Title += fmt.Sprintf(", %.0f%% of the sweep's best", 100**m.value/sc.best)
				}
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

	hm.Loopbacks = len(chosen) > 0 && slices.ContainsFunc(hosts, func(h string) bool { _, ok := chosen[[2]string{h, h}]; return ok })
	hm.Worst = worstPairs(r, test, hb, 8)
	hm.Width = left + n*size + 16
	hm.Height = top + n*size + 8
	return hm
}

// scale colours one heatmap's cells by verdict and distance from the pass
// criterion, from the pairs between two hosts only: the loopback diagonal
// is another test (one host, no switch) whose higher rate would push every
// pair towards the bad end.
type scale struct {
	ok              bool // some pair has a value
	higherBetter    bool
	criterion, best float64
	text            string   // where the criterion came from, for the legend
	rules           []string // the report's criterion in words
}

func scaleOf(r *Report, test string, unit checks.Unit, ms []measure) scale {
	sc := scale{higherBetter: higherIsBetter(unit)}
	crit, known := r.criterionOf(SuitePairwise, test)
	if known {
		sc.rules = crit.Rules()
	}
	for _, m := range ms {
		if m.value == nil {
			continue
		}
		v := *m.value
		if !sc.ok || sc.higherBetter && v > sc.best || !sc.higherBetter && v < sc.best {
			sc.best = v
		}
		sc.ok = true
	}
	if !sc.ok {
		return sc
	}
	u := " " + displayUnit(string(unit))
	if sc.higherBetter {
		var why []string
		if known && crit.MinPercentOfBest > 0 {
			sc.criterion = sc.best * crit.MinPercentOfBest / 100
			why = append(why, num(crit.MinPercentOfBest)+"% of the sweep's best")
		}
		// The port rate is in Gb/s: a floor from it only scales values in Gb/s.
		if known && crit.MinPercentOfPortRate > 0 && crit.PortRateGbps > 0 && unit == checks.UnitGbps {
			if v := crit.PortRateGbps * crit.MinPercentOfPortRate / 100; v >= sc.criterion {
				sc.criterion = v
				why = append([]string{num(crit.MinPercentOfPortRate) + "% of the declared " + num(crit.PortRateGbps) + " Gb/s port rate"}, why...)
			}
		}
		switch {
		case len(why) > 0:
		case known:
			// The report says which floors applied, and none scales this
			// test's values: shade against the best, and say so.
			sc.criterion = sc.best
			why = append(why, "no floor declared for this test: shaded against the sweep's best")
		default:
			sc.criterion = sc.best * evaluate.DefaultRelativeFloor
			why = append(why, fmt.Sprintf("%.0f%% of the sweep's best, the default relative floor", 100*evaluate.DefaultRelativeFloor))
		}
		sc.text = fmt.Sprintf("%s%s (%s)", shortValue(sc.criterion, unit), u, why[0])
	} else {
		if known && crit.MaxLatencyUsec > 0 {
			sc.criterion = crit.MaxLatencyUsec
			sc.text = fmt.Sprintf("%s%s (the latency bound)", shortValue(sc.criterion, unit), u)
		} else {
			sc.criterion = sc.best * 1.25
			sc.text = fmt.Sprintf("%s%s (no bound declared: 125%% of the sweep's best)", shortValue(sc.criterion, unit), u)
		}
	}
	return sc
}

// fill is a cell's colour: the band of its verdict, shaded by where its
// value sits between the criterion and the best (pass) or below the
// criterion (warn, fail). The diagonal and results without a verdict
// colour are grey.
func (sc scale) fill(m measure, v float64) string {
	if m.loopback && m.status == checks.StatusPass {
		return fillLoopback
	}
	// above: 0 at the criterion, 1 at the best; below: 1 at the criterion, 0 at half of it (twice it for latency).
	var above, below float64
	switch {
	case !sc.ok || sc.criterion <= 0:
		above, below = 1, 1
	case sc.higherBetter:
		if sc.best > sc.criterion {
			above = (v - sc.criterion) / (sc.best - sc.criterion)
		} else {
			above = 1
		}
		below = (v/sc.criterion - 0.5) / 0.5
	default:
		if sc.criterion > sc.best {
			above = (sc.criterion - v) / (sc.criterion - sc.best)
		} else {
			above = 1
		}
		below = 2 - v/sc.criterion
	}
	clamp := func(f float64) float64 { return math.Max(0, math.Min(1, f)) }
	switch m.status {
	case checks.StatusPass:
		return lerp(passBand, clamp(above))
	case checks.StatusWarn:
		return lerp(warnBand, clamp(below))
	case checks.StatusFail:
		return lerp(failBand, clamp(below))
	}
	return fillNoValue
}

// lerp interpolates a band at t ∈ [0,1].
func lerp(band [2][3]uint8, t float64) string {
	var c [3]uint8
	for k := range c {
		c[k] = uint8(math.Round(float64(band[0][k])*(1-t) + float64(band[1][k])*t))
	}
	return hex(c)
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
	if v != 0 && math.Abs(v) < 0.01 && u != checks.UnitUsec {
		return strconv.FormatFloat(v, 'g', 2, 64) // 0.0031, not 0.00
	}
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
