package report

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

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
func WriteTable(w io.Writer, r *Report) error {
	s, err := r.sorted()
	if err != nil {
		return fmt.Errorf("writing table report: %w", err)
	}
	rs := rows(s)
	// Everything is built first and written once, escaped: a cell that
	// oneLine did not clean (a suite, a value) cannot reach the terminal
	// raw either.
	var all strings.Builder
	tw := tabwriter.NewWriter(&all, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "STATUS\tSUITE\tCHECK\tTARGET\tVALUE\tCLASS\tSUMMARY")
	for _, x := range rs {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", strings.ToUpper(string(x.Status)), x.Suite, oneLine(x.ID), oneLine(x.Target),
			dash(x.Value), dash(string(x.Class)), oneLine(x.Summary))
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("writing table report: %w", err)
	}
	var b strings.Builder
	for _, x := range rs {
		if len(x.Evidence) == 0 || !x.Status.Worse(checks.StatusSkip) {
			continue
		}
		if b.Len() == 0 {
			b.WriteString("\nEVIDENCE\n")
		}
		fmt.Fprintf(&b, "%s %s %s\n", strings.ToUpper(string(x.Status)), x.ID, x.Target)
		for _, e := range x.Evidence {
			fmt.Fprintf(&b, "  %s\n", oneLine(e))
		}
	}
	writeLocalization(&b, s)
	sum := s.Summary()
	fmt.Fprintf(&b, "\nRESULT: %s, %d checks (%s), %d pairs (%s)\n", strings.ToUpper(string(sum.Status)),
		sum.Checks.Total, sum.Checks, sum.Pairs.Total, sum.Pairs)
	all.WriteString(b.String())
	if _, err := io.WriteString(w, output.PrintableLines(all.String())); err != nil {
		return fmt.Errorf("writing table report: %w", err)
	}
	return nil
}

func dash(s string) string { return cmp.Or(s, "-") }

// oneLine keeps a table row on one line whatever a tool printed, its
// control characters (ESC sequences, NUL) shown escaped.
func oneLine(s string) string {
	return output.Printable(strings.Join(strings.Fields(s), " "))
}
