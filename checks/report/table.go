package report

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/fabricctl/fabricctl/checks"
	"github.com/fabricctl/fabricctl/internal/output"
)

// row is one line of the table and one entry of the HTML lists: a host check
// or a pair, flattened.
type row struct {
	Status   checks.Status
	Suite    Suite
	ID       string
	Target   string
	Value    string // "97.41 Gb/s", "" when nothing was measured
	Class    checks.FailureClass
	Summary  string
	Evidence []string
}

// rows flattens a sorted report, failures first: error, fail, warn, skip,
// pass; then by suite, target and ID.
func rows(r *Report) []row {
	var out []row
	for _, res := range r.Results {
		var value string
		if len(res.Measurements) > 0 {
			value = formatValue(res.Measurements[0].Value, res.Measurements[0].Unit)
		}
		out = append(out, row{res.Status, SuiteOf(res.ID), res.ID, res.Target, value, res.Class, res.Summary, res.Evidence})
	}
	for _, p := range r.Pairs {
		var value string
		if p.Value != nil {
			value = formatValue(*p.Value, p.Unit)
		}
		out = append(out, row{p.Status, SuitePairwise, p.ID(), p.Target(), value, p.Class, p.Summary, p.Evidence})
	}
	slices.SortStableFunc(out, func(a, b row) int {
		return cmp.Or(statusOrder(a.Status, b.Status), compareSuites(a.Suite, b.Suite),
			cmp.Compare(a.Target, b.Target), cmp.Compare(a.ID, b.ID))
	})
	return out
}

// statusOrder sorts worse statuses first.
func statusOrder(a, b checks.Status) int {
	switch {
	case a.Worse(b):
		return -1
	case b.Worse(a):
		return 1
	}
	return 0
}

// formatValue prints a measurement for people: two decimals and the unit.
func formatValue(v float64, u checks.Unit) string {
	s := strconv.FormatFloat(v, 'f', 2, 64)
	if u == checks.UnitCount {
		s = strconv.FormatFloat(v, 'f', -1, 64)
	}
	if u == "" {
		return s
	}
	return s + " " + string(u)
}

// WriteTable writes one aligned line per host check and per pair, failures
// first, then the evidence of every failed, errored or warned line, then a
// summary line with the counts and the overall status.
//
// The table is laid out for output.TermOf(w): its SUMMARY wraps at the
// terminal's width, status words are coloured when the Term says so, and the
// SUITE column (the first part of CHECK) shows only in -o wide, CLASS only
// when a line has a failure class or in -o wide. In the
// evidence, a reason that warned lines share ("eth0 dcbx: eth0 (driver
// virtio_net) has no DCB netlink ops", on every virtio host) is written once,
// as a footnote in the evidence's own form, "eth0 dcbx, eth0 ets: reason (on
// lab-h1, lab-h2)", and each line's evidence points to it ("11 findings, see [1-4]"); -o wide and the evidence of
// failures and errors keep every line as it is.
func WriteTable(w io.Writer, r *Report) error {
	s, err := r.sorted()
	if err != nil {
		return fmt.Errorf("writing table report: %w", err)
	}
	rs := rows(s)
	term := output.TermOf(w)
	// Every cell and line is escaped (oneLine, Printable, PrintableLines): a
	// cell that oneLine did not clean (a suite, a value) cannot reach the
	// terminal raw either; colour is added after.
	var all strings.Builder
	tw := output.NewTableFor(&all, term)
	classes := term.Wide || slices.ContainsFunc(rs, func(x row) bool { return x.Class != "" })
	row := func(status, suite, id, target, value, class, summary string) {
		cells := []any{status, suite, id, target, value, class, summary}
		if !classes {
			cells = slices.Delete(cells, 5, 6)
		}
		if !term.Wide {
			cells = slices.Delete(cells, 1, 2)
		}
		tw.Row(cells...)
	}
	row("STATUS", "SUITE", "CHECK", "TARGET", "VALUE", "CLASS", "SUMMARY")
	shown := rs
	if !term.Wide {
		shown = foldPassing(rs)
	}
	for _, x := range shown {
		row(strings.ToUpper(string(x.Status)), string(x.Suite), oneLine(x.ID), oneLine(x.Target), dash(x.Value),
			dash(string(x.Class)), oneLine(x.Summary))
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("writing table report: %w", err)
	}
	writeEvidence(&all, rs, term)
	var b strings.Builder
	writeLocalization(&b, s)
	writeCongestion(&b, s)
	writeIBTopology(&b, s)
	sum := s.Summary()
	all.WriteString(output.PrintableLines(b.String()))
	fmt.Fprintf(&all, "\nRESULT: %s, %s\n", term.Paint(strings.ToUpper(string(sum.Status))),
		output.PrintableLines(fmt.Sprintf("%d checks (%s), %d pairs (%s)", sum.Checks.Total, sum.Checks, sum.Pairs.Total, sum.Pairs)))
	if _, err := io.WriteString(w, all.String()); err != nil {
		return fmt.Errorf("writing table report: %w", err)
	}
	return nil
}

// writeEvidence writes the EVIDENCE section: each failed, errored or warned
// line's evidence, a warned line's shared reasons as footnotes (see
// WriteTable).
func writeEvidence(b *strings.Builder, rs []row, term output.Term) {
	shared := sharedReasons(rs, term)
	var notes []*evidenceNote
	index := map[[2]string]int{}
	head := false
	for _, x := range rs {
		if len(x.Evidence) == 0 || !x.Status.Worse(checks.StatusSkip) {
			continue
		}
		if !head {
			b.WriteString("\nEVIDENCE\n")
			head = true
		}
		fmt.Fprintf(b, "%s %s %s\n", term.Paint(strings.ToUpper(string(x.Status))), oneLine(x.ID), oneLine(x.Target))
		var refs []int
		for _, e := range x.Evidence {
			key, reason, ok := splitEvidence(e)
			if !ok || x.Status != checks.StatusWarn || shared[[2]string{x.ID, reason}] < 2 {
				writeEvidenceLine(b, oneLine(e), term)
				continue
			}
			k := [2]string{x.ID, reason}
			i, seen := index[k]
			if !seen {
				i = len(notes)
				index[k] = i
				notes = append(notes, &evidenceNote{reason: reason})
			}
			notes[i].add(x.Target, key)
			refs = append(refs, i+1)
		}
		if len(refs) > 0 {
			fmt.Fprintf(b, "  %d findings, see %s\n", len(refs), output.Refs(refs))
		}
	}
	if len(notes) > 0 {
		b.WriteByte('\n')
	}
	for i, n := range notes {
		b.WriteString(term.Hang(fmt.Sprintf("[%d] ", i+1), oneLine(strings.Join(n.keys, ", ")+": "+n.reason+" (on "+output.Names(n.targets)+")")))
	}
}

// writeEvidenceLine writes one line of evidence, indented by two spaces;
// beyond term's width it wraps, its further lines indented by four.
func writeEvidenceLine(b *strings.Builder, line string, term output.Term) {
	lines := []string{line}
	if term.Width > 0 && !term.Wide {
		lines = output.Wrap(line, max(term.Width-4, 20))
	}
	for i, l := range lines {
		if i == 0 {
			b.WriteString("  ")
		} else {
			b.WriteString("    ")
		}
		b.WriteString(l)
		b.WriteByte('\n')
	}
}

// sharedReasons counts, per check ID and reason, the evidence lines of
// warned rows that give it; nothing is shared in -o wide.
func sharedReasons(rs []row, term output.Term) map[[2]string]int {
	n := map[[2]string]int{}
	if term.Wide {
		return n
	}
	for _, x := range rs {
		if x.Status != checks.StatusWarn {
			continue
		}
		for _, e := range x.Evidence {
			if _, reason, ok := splitEvidence(e); ok {
				n[[2]string{x.ID, reason}]++
			}
		}
	}
	return n
}

// splitEvidence splits "eth0 dcbx: reason" into what it concerns and why.
func splitEvidence(e string) (key, reason string, ok bool) {
	key, reason, ok = strings.Cut(strings.Join(strings.Fields(e), " "), ": ")
	key = strings.TrimSpace(key)
	return key, reason, ok && key != "" && reason != ""
}

// evidenceNote is a reason warned lines share: the targets and the keys
// ("eth0 dcbx") it was given for.
type evidenceNote struct {
	reason        string
	targets, keys []string
}

func (n *evidenceNote) add(target, key string) {
	if !slices.Contains(n.targets, target) {
		n.targets = append(n.targets, target)
	}
	if !slices.Contains(n.keys, key) {
		n.keys = append(n.keys, key)
	}
}

func dash(s string) string { return cmp.Or(s, "-") }

// oneLine keeps a table row on one line whatever a tool printed, its
// control characters (ESC sequences, NUL) shown escaped.
func oneLine(s string) string {
	return output.Printable(strings.Join(strings.Fields(s), " "))
}

// foldPassing folds passed and skipped lines that say the same thing (the
// same status, check, value, class and summary) into the first of them,
// its target "lab-h1 and 3 more": "SKIP preflight/gpu … no GPU" once, not
// once a host. Warned, failed and errored lines stay one per target, and
// so do the measurements of loopback and pairwise tests (two equal values
// are a coincidence, not one finding); -o wide folds nothing.
func foldPassing(rs []row) []row {
	type key struct{ status, id, value, class, summary string }
	var out []row
	first := map[key]int{}
	count := map[int]int{}
	for _, x := range rs {
		measured := x.Suite == SuiteLoopback || x.Suite == SuitePairwise
		if x.Status != checks.StatusPass && x.Status != checks.StatusSkip || measured && x.Status == checks.StatusPass {
			out = append(out, x)
			continue
		}
		k := key{string(x.Status), x.ID, x.Value, string(x.Class), x.Summary}
		if i, ok := first[k]; ok {
			count[i]++
			continue
		}
		first[k] = len(out)
		count[len(out)] = 1
		out = append(out, x)
	}
	for i, n := range count {
		if n > 1 {
			out[i].Target = fmt.Sprintf("%s and %d more", out[i].Target, n-1)
		}
	}
	return out
}
