package report

import (
	"cmp"
	_ "embed"
	"fmt"
	"html/template"
	"slices"
	"strings"

	"github.com/fabricctl/fabricctl/checks"
	"github.com/fabricctl/fabricctl/checks/topology"
	"github.com/fabricctl/fabricctl/fabric"
)

// A report's localisation part: Suspects (checks/localize names them, the
// strongest first), the Topology they sit in (for the drawing) and the
// Cabling findings of the declared-versus-LLDP comparison, and the
// Retests the localiser had run to split an ambiguity. All are optional; a
// report without them reads and writes as before.

// RetestRound is one round of localisation re-tests: the pairs the
// localiser picked to split what the results left open, run at once.
type RetestRound struct {
	// Round counts the re-test rounds from 1.
	Round int `json:"round"`
	// Splits are the ambiguities the round was chosen to split, for
	// people: "cable lab-h1:eth0 <-> leaf-01:swp1 or port leaf-01:swp1".
	Splits []string `json:"splits"`
	Pairs  []Retest `json:"pairs"`
}

// Retest is one re-test: its result as a Pair (A the server, B the
// client) and the component in question it bears on.
type Retest struct {
	Pair
	For checks.SuspectRef `json:"for"`
}

// Measured is the re-test's value with its unit, "-" when none.
func (r Retest) Measured() string {
	if r.Value == nil {
		return "-"
	}
	return formatValue(*r.Value, r.Unit)
}

// Retested reports whether a and b (either way round) were re-tested.
func (r *Report) Retested(a, b string) bool {
	for _, rr := range r.Retests {
		for _, p := range rr.Pairs {
			if p.A == a && p.B == b || p.A == b && p.B == a {
				return true
			}
		}
	}
	return false
}

// validateLocalization checks suspects, topology and cabling findings.
func (r *Report) validateLocalization() error {
	if err := checks.ValidateSuspects(r.Suspects); err != nil {
		return fmt.Errorf("%w: %w", err, ErrInvalid)
	}
	if err := checks.ValidateSuspects(r.Possible); err != nil {
		return fmt.Errorf("possible: %w: %w", err, ErrInvalid)
	}
	if r.Topology != nil {
		if err := r.Topology.Rebuild().Validate(); err != nil {
			return fmt.Errorf("topology: %w: %w", err, ErrInvalid)
		}
	}
	for i, f := range r.Cabling {
		if f.Kind == "" || f.At.Device == "" || f.At.Port == "" {
			return fmt.Errorf("cabling[%d]: a finding needs a kind and an endpoint: %w", i, ErrInvalid)
		}
	}
	for i, rr := range r.Retests {
		if rr.Round != i+1 {
			return fmt.Errorf("retests[%d]: round %d, want %d: %w", i, rr.Round, i+1, ErrInvalid)
		}
		for j, p := range rr.Pairs {
			if p.A == "" || p.B == "" || !p.Status.Valid() {
				return fmt.Errorf("retests[%d].pairs[%d]: a re-test needs both hosts and a status: %w", i, j, ErrInvalid)
			}
		}
	}
	return nil
}

// sortLocalization gives the copy its own slices in stable order: suspects
// by rank, the topology rebuilt (nodes and links sorted), findings by
// endpoint.
func (r *Report) sortLocalization() {
	byRank := func(a, b checks.Suspect) int { return cmp.Compare(a.Rank, b.Rank) }
	r.Suspects = slices.Clone(r.Suspects)
	slices.SortStableFunc(r.Suspects, byRank)
	r.Possible = slices.Clone(r.Possible)
	slices.SortStableFunc(r.Possible, byRank)
	r.Topology = r.Topology.Rebuild()
	r.Retests = slices.Clone(r.Retests) // in the order they ran
	r.Cabling = slices.Clone(r.Cabling)
	slices.SortStableFunc(r.Cabling, func(a, b topology.Finding) int {
		return cmp.Or(a.At.Compare(b.At), cmp.Compare(a.Kind, b.Kind))
	})
}

// writeLocalization appends the RE-TESTS, PORT COUNTERS, SUSPECTS, POSSIBLE and CABLING sections of
// the table.
func writeLocalization(b *strings.Builder, r *Report) {
	if len(r.Retests) > 0 {
		fmt.Fprintf(b, "\nRE-TESTS (to localise; no verdict counts them; stopped: %s)\n", dash(r.RetestStop))
		for _, rr := range r.Retests {
			fmt.Fprintf(b, "round %d to split: %s\n", rr.Round, oneLine(strings.Join(rr.Splits, "; ")))
			for _, p := range rr.Pairs {
				fmt.Fprintf(b, "  %s  %s  %s  for %s", strings.ToUpper(string(p.Status)), p.Target(), p.Measured(), oneLine(p.For.Name))
				if p.Status != checks.StatusPass && p.Summary != "" {
					fmt.Fprintf(b, ": %s", oneLine(p.Summary))
				}
				b.WriteString("\n")
			}
		}
	}
	if sc := r.SwitchCounters; sc != nil {
		fmt.Fprintf(b, "\nPORT COUNTERS read: %s\n", dash(strings.Join(sc.Read, ", ")))
		for _, u := range sc.Unread {
			fmt.Fprintf(b, "  not read: %s\n", oneLine(u))
		}
		for _, u := range sc.NotWeighed {
			fmt.Fprintf(b, "  not weighed: %s\n", oneLine(u))
		}
	}
	if len(r.Suspects) > 0 {
		b.WriteString("\nSUSPECTS\n")
		writeSuspects(b, r.Suspects, "confidence %.0f%%")
	}
	if len(r.Possible) > 0 {
		b.WriteString("\nPOSSIBLE (no component is likelier faulty than not, but tests failed: where to look, not whom to blame)\n")
		writeSuspects(b, r.Possible, "%.0f%% likely")
	}
	if len(r.Cabling) > 0 {
		b.WriteString("\nCABLING\n")
		for _, f := range r.Cabling {
			fmt.Fprintf(b, "%s  %s\n", strings.ToUpper(string(f.Kind)), oneLine(f.Message))
		}
	}
}

// drawing is the topology picture of the HTML page: spines on top, leaves
// below, each leaf's host NICs as small squares under it; suspects and
// their alternatives highlighted, every element carrying data-component.
type drawing struct {
	Width, Height  int
	Spines, Leaves []drawBox
	Hosts          []drawDot
	Uplinks        []drawLine
	Labels         []drawLabel
	Suspects       int
}

type drawBox struct {
	X, Y, W, H int
	Name, Role string
	Component  string
	Mark       string // "", "suspect" or "alternative"
	Title      string
}

type drawDot struct {
	X, Y, Size int
	Endpoint   string
	Components string // space-separated component IDs it stands for
	Mark       string
	Title      string
}

type drawLine struct {
	X1, Y1, X2, Y2 int
	Component      string
	Mark           string
	Title          string
}

type drawLabel struct {
	X, Y   int
	Text   string
	Anchor string
}

// marks maps component IDs to "suspect" (named exactly: red) or
// "alternative" (one of a set the evidence cannot split, the suspect
// included: amber).
func marks(ss []checks.Suspect) map[string]string {
	m := map[string]string{}
	for _, s := range ss {
		if len(s.Alternatives) == 0 {
			continue
		}
		for _, a := range append([]checks.SuspectRef{s.SuspectRef}, s.Alternatives...) {
			if m[a.Component] == "" {
				m[a.Component] = "alternative"
			}
		}
	}
	for _, s := range ss {
		if len(s.Alternatives) == 0 {
			m[s.Component] = "suspect"
		}
	}
	return m
}

func worstMark(ms ...string) string {
	out := ""
	for _, m := range ms {
		switch {
		case m == "suspect":
			return m
		case m == "alternative":
			out = m
		}
	}
	return out
}

// drawTopology lays out r.Topology, or returns nil when there is none or
// it has no leaf.
func drawTopology(r *Report) *drawing {
	t := r.Topology
	if t == nil {
		return nil
	}
	leaves := t.Names(topology.RoleLeaf)
	if len(leaves) == 0 {
		return nil
	}
	var spines []string
	for _, n := range t.Nodes {
		if n.Role == topology.RoleSpine || n.Role == topology.RoleSwitch {
			spines = append(spines, n.Name)
		}
	}
	mk := marks(r.Suspects)
	d := &drawing{Suspects: len(r.Suspects)}
	step := max(44, min(140, 1200/len(leaves)))
	d.Width = max(step*len(leaves), 360) + 40
	leafX := map[string]int{}
	for i, l := range leaves {
		x := 20 + i*step + (step-min(step-6, 90))/2
		w := min(step-6, 90)
		leafX[l] = x + w/2
		title := "leaf " + l
		if n, ok := t.Node(l); ok && n.Rail != nil {
			title += fmt.Sprintf(" (rail %d)", *n.Rail)
		}
		d.Leaves = append(d.Leaves, drawBox{X: x, Y: 150, W: w, H: 26, Name: l, Role: "leaf", Component: "leaf:" + l,
			Mark: worstMark(mk["leaf:"+l], mk["uplinks:"+l]), Title: title})
	}
	spineX := map[string]int{}
	if len(spines) > 0 {
		sstep := (d.Width - 40) / len(spines)
		for i, s := range spines {
			w := min(sstep-6, 110)
			x := 20 + i*sstep + (sstep-w)/2
			spineX[s] = x + w/2
			d.Spines = append(d.Spines, drawBox{X: x, Y: 30, W: w, H: 26, Name: s, Role: "spine", Component: "switch:" + s,
				Mark: mk["switch:"+s], Title: "spine " + s})
		}
	}
	for _, l := range t.Links {
		if l.Kind != topology.Fabric {
			continue
		}
		x1, ok1 := coord(l.A.Device, leafX, spineX)
		x2, ok2 := coord(l.B.Device, leafX, spineX)
		if !ok1 || !ok2 {
			continue
		}
		y1, y2 := yOf(l.A.Device, leafX), yOf(l.B.Device, leafX)
		if y1 == y2 { // two leaves joined directly: a line between their boxes
			y1, y2 = 163, 163
		}
		id := "link:" + l.A.String()
		m := mk[id]
		for _, e := range []fabric.Endpoint{l.A, l.B} {
			if _, isLeaf := leafX[e.Device]; isLeaf {
				m = worstMark(m, alternativeOf(mk["uplinks:"+e.Device]))
			}
		}
		d.Uplinks = append(d.Uplinks, drawLine{X1: x1, Y1: y1, X2: x2, Y2: y2, Component: id, Mark: m, Title: "uplink " + l.String()})
	}
	// Marked lines last, so that no grey line hides them.
	slices.SortStableFunc(d.Uplinks, func(a, b drawLine) int { return cmp.Compare(markOrder(a.Mark), markOrder(b.Mark)) })
	// Host NICs: a grid under their leaf.
	cols := max(1, (step-8)/9)
	count := map[string]int{}
	maxRows := 0
	for _, l := range t.Links {
		if l.Kind != topology.Access {
			continue
		}
		leaf := l.B.Device
		cx, ok := leafX[leaf]
		if !ok {
			continue
		}
		i := count[leaf]
		count[leaf]++
		row, col := i/cols, i%cols
		maxRows = max(maxRows, row+1)
		ids := []string{"nic:" + l.A.String(), "cable:" + l.A.String(), "port:" + l.B.String()}
		m := worstMark(mk[ids[0]], mk[ids[1]], mk[ids[2]])
		x := cx - cols*9/2 + col*9
		d.Hosts = append(d.Hosts, drawDot{X: x, Y: 196 + row*9, Size: 7, Endpoint: l.A.String(), Components: strings.Join(ids, " "), Mark: m,
			Title: l.String()})
		if m != "" {
			d.Labels = append(d.Labels, drawLabel{X: x + 3, Y: 0, Text: l.A.String(), Anchor: "middle"})
		}
	}
	base := 196 + maxRows*9 + 16
	for i := range d.Labels {
		d.Labels[i].Y = base + 12*(i%4)
		half := 3 * len(d.Labels[i].Text) // about half the width at font size 10
		d.Labels[i].X = min(max(d.Labels[i].X, half+4), d.Width-half-4)
	}
	d.Height = base + 12*min(len(d.Labels), 4) + 10
	return d
}

func markOrder(m string) int {
	switch m {
	case "suspect":
		return 2
	case "alternative":
		return 1
	}
	return 0
}

func alternativeOf(m string) string {
	if m != "" {
		return "alternative"
	}
	return ""
}

func coord(dev string, leafX, spineX map[string]int) (int, bool) {
	if x, ok := leafX[dev]; ok {
		return x, true
	}
	x, ok := spineX[dev]
	return x, ok
}

func yOf(dev string, leafX map[string]int) int {
	if _, ok := leafX[dev]; ok {
		return 150
	}
	return 56
}

//go:embed localisation.html.tmpl
var localizationTemplate string

// The localisation section is a template of its own, added to the page's
// set; the page calls it with {{template "localisation" .}}.
var _ = template.Must(pageTmpl.Funcs(template.FuncMap{
	"half":        func(n int) int { return n / 2 },
	"percent":     func(f float64) string { return fmt.Sprintf("%.0f%%", 100*f) },
	"suspectHelp": func(k checks.SuspectKind) string { return k.Describe() },
}).New("localisation").Parse(localizationTemplate))

// writeSuspects writes the table's lines of suspects (or possible
// faults): rank, kind, name and how sure (how, a format of a percentage),
// then the summary, the alternatives and the evidence.
func writeSuspects(b *strings.Builder, ss []checks.Suspect, how string) {
	for _, s := range ss {
		fmt.Fprintf(b, "%d. %s  %s  ("+how+")\n", s.Rank, strings.ToUpper(string(s.Kind)), oneLine(s.Name), 100*s.Confidence)
		if s.Summary != "" {
			fmt.Fprintf(b, "   %s\n", oneLine(s.Summary))
		}
		if len(s.Alternatives) > 0 {
			var names []string
			for _, a := range s.Alternatives {
				names = append(names, a.Name)
			}
			fmt.Fprintf(b, "   or one of: %s\n", oneLine(strings.Join(names, "; ")))
		}
		for _, e := range s.Evidence {
			fmt.Fprintf(b, "     %s\n", oneLine(e))
		}
	}
}
