package report

import (
	"cmp"
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"slices"
	"strings"

	"github.com/fabricctl/fabricctl/checks"
	"github.com/fabricctl/fabricctl/checks/topology"
	"github.com/fabricctl/fabricctl/fabric"
)

//go:embed report.html.tmpl
var pageTemplate string

var pageTmpl = template.Must(template.New("report").Funcs(template.FuncMap{
	"upper":    func(s any) string { return strings.ToUpper(fmt.Sprint(s)) },
	"describe": func(c checks.FailureClass) string { return c.Describe() },
	"arrow":    func(target string) string { return strings.ReplaceAll(target, "->", " → ") },
	"unit":     displayUnit,
	"human":    human,
	"note":     cardNote,
	"minus":    func(a, b int) int { return a - b },
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
	Problems []group // failing, errored and warning results, alike ones as one
	Rows     []row
	Drawing  *drawing // the topology with the suspects, when the report has one
	// Headline is the verdict the page opens with.
	Headline headline
	// PrintEvidence is how many evidence lines of a problem print; the
	// page on screen shows them all.
	PrintEvidence int
	// Generator is "fabricctl v1.2.0 (rev 0123456789ab)", or "fabricctl (version not recorded)".
	Generator string
	// Criteria are the report's pass criteria in words, per suite and test.
	Criteria []criterionText
	// Cables are the hosts' cables to their switch ports, when the report
	// carries a topology; Uplinks the switches' links to each other, by switch.
	Cables  []cable
	Uplinks []string
	// IB: the topology is the declared InfiniBand cabling, and the cables'
	// column says what the ib suite found on each.
	IB bool
	// Passed sums up the passing and skipped results by check, for print,
	// where the full table is left out.
	Passed []passedCheck
}

// criterionText is one suite's criterion in words.
type criterionText struct {
	Suite Suite
	Test  string
	Rules []string
}

// cable is one host port and the switch port it is cabled to.
type cable struct {
	Host, Port string
	Switch     string // "leaf-01:swp2"
	Found      string // where LLDP found it instead, with the finding's kind
	Mark       string // "suspect" or "alternative" when the localiser names it
}

// passedCheck is one check ID and how many targets passed or skipped it.
type passedCheck struct {
	ID         string
	Pass, Skip int
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
	p := page{Report: s, Summary: s.Summary(), Heatmaps: heatmaps(s), Rows: rows(s), Stats: stats(s), Drawing: drawTopology(s),
		Generator: "fabricctl (version not recorded)", PrintEvidence: 6}
	if s.Generator != nil {
		p.Generator = "fabricctl " + s.Generator.String()
	}
	p.Headline = headlineOf(s, p.Rows, p.Summary)
	for _, c := range s.Criteria {
		p.Criteria = append(p.Criteria, criterionText{Suite: c.Suite, Test: c.Test, Rules: c.Rules()})
	}
	p.Cables, p.Uplinks = cablesOf(s)
	p.IB = ibReport(s)
	p.Passed = passedChecks(p.Rows)
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
	var problems []row
	for _, x := range p.Rows {
		if x.Status.Worse(checks.StatusSkip) {
			problems = append(problems, x)
		}
	}
	p.Problems = groupRows(problems)
	if err := pageTmpl.Execute(w, p); err != nil {
		return fmt.Errorf("writing HTML report: %w", err)
	}
	return nil
}

// passedChecks counts the passing and skipped rows by check ID, in the order of first appearance.
func passedChecks(rs []row) []passedCheck {
	var out []passedCheck
	index := map[string]int{}
	for _, x := range rs {
		if x.Status != checks.StatusPass && x.Status != checks.StatusSkip {
			continue
		}
		i, ok := index[x.ID]
		if !ok {
			i = len(out)
			index[x.ID] = i
			out = append(out, passedCheck{ID: x.ID})
		}
		if x.Status == checks.StatusPass {
			out[i].Pass++
		} else {
			out[i].Skip++
		}
	}
	slices.SortStableFunc(out, func(a, b passedCheck) int { return compareSuites(SuiteOf(a.ID), SuiteOf(b.ID)) })
	return out
}

// cablesOf lists the report topology's host cables (host end first, by
// host in natural order) with what LLDP found instead and the localiser's
// marks, and its switch-to-switch links by switch; nothing without a
// topology.
func cablesOf(r *Report) ([]cable, []string) {
	t := r.Topology
	if t == nil {
		return nil, nil
	}
	found := map[string]string{}
	for _, f := range r.Cabling {
		what := string(f.Kind)
		if f.Discovered != nil {
			what = f.Discovered.String() + " (" + what + ")"
		}
		found[f.At.String()] = what
	}
	mk := marks(r.Suspects)
	ib := ibFindings(r)
	var cables []cable
	uplinks := map[string][]string{}
	var switches []string
	for _, l := range t.Links {
		if l.Kind != topology.Access {
			for _, e := range []fabric.Endpoint{l.A, l.B} {
				other, _ := l.Other(e)
				if _, seen := uplinks[e.Device]; !seen {
					switches = append(switches, e.Device)
				}
				u := e.Port + " → " + other.String()
				if f, ok := ib[l.String()]; ok {
					u += " (" + strings.ToUpper(string(f.Status)) + ": " + f.Text + ")"
				}
				uplinks[e.Device] = append(uplinks[e.Device], u)
			}
			continue
		}
		c := cable{Host: l.A.Device, Port: l.A.Port, Switch: l.B.String(), Found: found[l.A.String()],
			Mark: worstMark(mk["nic:"+l.A.String()], mk["cable:"+l.A.String()], mk["port:"+l.B.String()])}
		if f, ok := ib[l.String()]; ok {
			// the InfiniBand suite's finding on this cable
			c.Mark, c.Found = "suspect", f.Text
		}
		cables = append(cables, c)
	}
	slices.SortStableFunc(cables, func(a, b cable) int {
		return cmp.Or(compareHosts(a.Host, b.Host), cmp.Compare(a.Port, b.Port))
	})
	slices.SortFunc(switches, compareHosts)
	var lines []string
	for _, sw := range switches {
		lines = append(lines, fmt.Sprintf("%s: %s", sw, strings.Join(uplinks[sw], ", ")))
	}
	return cables, lines
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
