package counters

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/fabricctl/fabricctl/internal/output"
)

// columns are the table's metric columns: their headers and metric names.
func columns(lossless []int) (heads, names []string) {
	for _, p := range lossless {
		heads = append(heads, fmt.Sprintf("PFC%d-RX", p), fmt.Sprintf("PFC%d-TX", p))
		names = append(names, PauseRx(p), PauseTx(p))
	}
	for _, c := range []struct{ head, name string }{
		{"ECN-MARKED", ECNMarked}, {"CNP-SENT", CNPSent}, {"CNP-HANDLED", CNPHandled},
		{"OUT-OF-SEQ", OutOfSequence}, {"SEQ-ERR", SequenceError}, {"ACK-TIMEOUT", AckTimeout}, {"RX-DISCARDS", RxDiscards},
		{"SYMBOL/CRC", SymbolCRC}, {"LINK-DOWN", LinkDown},
	} {
		heads, names = append(heads, c.head), append(names, c.name)
	}
	return heads, names
}

// Table writes the report as `fabricctl counters` prints it: one row per
// port with loss or errors (every port with all), "-" where the port has
// no such counter; then how many ports were clean, the targets that could
// not be read, and the sources that failed.
func Table(t *output.TableWriter, w io.Writer, rep *Report, all bool) {
	heads, names := columns(rep.Lossless)
	if rep.Interval != "" {
		t.Row(fmt.Sprintf("movements over %s (rates per second between the readings, on each target's clock)", rep.Interval))
	}
	clean, shown, reset := 0, 0, false
	for _, p := range rep.Ports {
		if p.Clean {
			clean++
			if !all {
				continue
			}
		}
		if shown == 0 {
			t.Row(append([]any{"TARGET", "PORT"}, strs(heads)...)...)
		}
		shown++
		row := []any{p.Target, p.Port}
		for _, n := range names {
			v, ok := p.Metrics[n]
			reset = reset || (ok && v.Reset)
			row = append(row, cell(v, ok))
		}
		t.Row(row...)
	}
	t.Flush()
	var notes []string
	if reset {
		notes = append(notes, "≥: a counter was cleared or wrapped during the interval; counted from zero, so at least this much")
	}
	what := "above zero"
	if rep.Interval != "" {
		what = "moved"
	}
	switch {
	case len(rep.Ports) == 0:
		notes = append(notes, "no port was read")
	case clean == len(rep.Ports):
		notes = append(notes, fmt.Sprintf("%d %s clean: no loss or error counter %s", clean, plural(clean, "port"), what))
	case clean > 0 && !all:
		notes = append(notes, fmt.Sprintf("%d %s clean (no loss or error counter %s; --all lists them)", clean, plural(clean, "port"), what))
	}
	for _, u := range rep.Unread {
		notes = append(notes, fmt.Sprintf("%s: not read: %s", u.Target, u.Error))
	}
	for _, p := range rep.Ports {
		for _, e := range p.SourceErrors {
			notes = append(notes, fmt.Sprintf("%s %s: %s", p.Target, p.Port, e))
		}
	}
	if shown > 0 && len(notes) > 0 {
		fmt.Fprintln(w)
	}
	for _, n := range notes {
		fmt.Fprintln(w, output.Printable(n))
	}
}

// cell is a metric as the table shows it: "-" when absent, the value,
// "≥value" after a reset, and its rate when it has one.
func cell(v Value, ok bool) string {
	if !ok {
		return "-"
	}
	s := strconv.FormatUint(v.Value, 10)
	if v.Reset {
		s = "≥" + s
	}
	if v.PerSecond != nil {
		s += " (" + rate(*v.PerSecond) + "/s)"
	}
	return s
}

// rate prints a rate: whole above 100, else with one decimal above 10 and
// two below, trailing zeros dropped ("40", "12.5", "0.25").
func rate(r float64) string {
	prec := 2
	switch {
	case r == 0:
		return "0"
	case r < 0.01:
		return "<0.01"
	case r >= 100:
		prec = 0
	case r >= 10:
		prec = 1
	}
	s := strconv.FormatFloat(r, 'f', prec, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

func plural(n int, s string) string {
	if n == 1 {
		return s
	}
	return s + "s"
}

func strs(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}
