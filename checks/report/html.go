package report

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"slices"
	"strings"

	"github.com/fabricctl/fabricctl/checks"
)

//go:embed report.html.tmpl
var pageTemplate string

var pageTmpl = template.Must(template.New("report").Funcs(template.FuncMap{
	"upper":    func(s any) string { return strings.ToUpper(fmt.Sprint(s)) },
	"describe": func(c checks.FailureClass) string { return c.Describe() },
	"arrow":    func(target string) string { return strings.ReplaceAll(target, "->", " → ") },
	"unit":     displayUnit,
	"human":    human,
}).Parse(pageTemplate))

// page is what the HTML template renders.
type page struct {
	Report   *Report
	Summary  Summary
	Started  string
	Finished string
	Duration string
	Bars     []bar
	Stats    []testStats
	Heatmaps []heatmap
	Problems []row
	Rows     []row
	Drawing  *drawing // the topology with the suspects, when the report has one
}

// bar is one stacked status bar of the summary cards.
type bar struct {
	Title    string
	Counts   Counts
	Segments []segment
}

type segment struct {
	Status   string
	X, Width float64
}

// testStats sums up one pair test: how many pairs, the worst, median and best value.
type testStats struct {
	Test, Unit, Better  string
	N, Measured         int
	Worst, Median, Best string
}

// WriteHTML writes r as one self-contained HTML page: no script, font,
// stylesheet or image is fetched from anywhere, so the file can be mailed,
// archived as a CI artifact or opened on an air-gapped jump host. The page
// shows the summary, one heatmap per pair test (hosts × hosts, inline SVG,
// the loopback result on the diagonal), every failing, errored or warning
// check with its evidence, and every result. Each heatmap cell carries
// data-a, data-b, data-test, data-status and data-gbps or data-usec (the
// exact JSON value), so scripts can read the page back.
func WriteHTML(w io.Writer, r *Report) error {
	s, err := r.sorted()
	if err != nil {
		return fmt.Errorf("writing HTML report: %w", err)
	}
	p := page{Report: s, Summary: s.Summary(), Heatmaps: heatmaps(s), Rows: rows(s), Stats: stats(s), Drawing: drawTopology(s)}
	const layout = "2006-01-02 15:04:05 UTC"
	if !s.Started.IsZero() {
		p.Started = s.Started.Format(layout)
	}
	if !s.Finished.IsZero() {
		p.Finished = s.Finished.Format(layout)
		if d := s.Finished.Sub(s.Started); !s.Started.IsZero() && d >= 0 {
			p.Duration = d.Round(100_000_000).String() // 0.1 s
		}
	}
	p.Bars = []bar{barOf("Host checks", p.Summary.Checks), barOf("Pairs", p.Summary.Pairs)}
	for _, x := range p.Rows {
		if x.Status.Worse(checks.StatusSkip) {
			p.Problems = append(p.Problems, x)
		}
	}
	if err := pageTmpl.Execute(w, p); err != nil {
		return fmt.Errorf("writing HTML report: %w", err)
	}
	return nil
}

func barOf(title string, c Counts) bar {
	b := bar{Title: title, Counts: c}
	x := 0.0
	for _, s := range []struct {
		st checks.Status
		n  int
	}{{checks.StatusPass, c.Pass}, {checks.StatusSkip, c.Skip}, {checks.StatusWarn, c.Warn},
		{checks.StatusFail, c.Fail}, {checks.StatusError, c.Error}} {
		if s.n == 0 || c.Total == 0 {
			continue
		}
		w := 100 * float64(s.n) / float64(c.Total)
		b.Segments = append(b.Segments, segment{Status: string(s.st), X: x, Width: w})
		x += w
	}
	return b
}

func stats(r *Report) []testStats {
	var out []testStats
	for _, test := range r.tests() {
		st := testStats{Test: test}
		var vs []float64
		for _, p := range r.Pairs {
			if p.Test != test {
				continue
			}
			st.N++
			st.Unit = string(p.Unit)
			if p.Value != nil {
				vs = append(vs, *p.Value)
			}
		}
		st.Measured = len(vs)
		hb := higherIsBetter(checks.Unit(st.Unit))
		st.Better = map[bool]string{true: "higher is better", false: "lower is better"}[hb]
		if len(vs) > 0 {
			slices.Sort(vs)
			med := vs[len(vs)/2]
			if len(vs)%2 == 0 {
				med = (vs[len(vs)/2-1] + vs[len(vs)/2]) / 2
			}
			lo, hi := vs[0], vs[len(vs)-1]
			if !hb {
				lo, hi = hi, lo
			}
			u := checks.Unit(st.Unit)
			st.Worst, st.Median, st.Best = shortValue(lo, u), shortValue(med, u), shortValue(hi, u)
		}
		out = append(out, st)
	}
	return out
}

// human rewrites a formatted value for people: "1.87 us" becomes "1.87 µs".
func human(v string) string {
	if n, ok := strings.CutSuffix(v, " "+string(checks.UnitUsec)); ok {
		return n + " µs"
	}
	return v
}

// displayUnit writes a unit for people: "us" becomes "µs".
func displayUnit(u string) string {
	if checks.Unit(u) == checks.UnitUsec {
		return "µs"
	}
	return u
}
