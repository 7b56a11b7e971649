package output

import (
	"fmt"
	"io"
	"strings"
)

// minLast is the fewest columns the last cell of a row wraps in: where the
// other columns leave less, the row runs past the width rather than
// wrapping a word per line.
const minLast = 20

// minCut is the fewest columns CutToFit shortens a column to.
const minCut = 24

// gap is the space between two columns.
const gap = 2

// TableWriter aligns rows into columns, two spaces apart, and lays them out
// for its Term. A row's last cell is free text (a note, a summary, an
// error): it is never padded, so no line ends in spaces, and where the row
// is wider than Term.Width it wraps onto lines of its own, indented under
// it. Columns marked with CutToFit are shortened in the middle, with "…",
// (widest first, to no less than 24 columns or their header) where the table
// would leave its last column less than two fifths of the width (or less
// than that column's widest cell); nothing else is ever cut. Term.Wide and a Width of 0 keep every row on
// one line, in full.
//
// Rows separated by an empty row or a row of one cell are aligned apart (as
// by text/tabwriter): two tables may share a writer. A TableWriter is not
// safe for concurrent use.
type TableWriter struct {
	w    io.Writer
	term Term
	rows [][]string
	cut  map[int]bool
}

// NewTable returns a table writer on w, laid out for TermOf(w).
func NewTable(w io.Writer) *TableWriter { return NewTableFor(w, TermOf(w)) }

// NewTableFor returns a table writer on w laid out for term (tests fix the
// width with it).
func NewTableFor(w io.Writer, term Term) *TableWriter {
	return &TableWriter{w: w, term: term}
}

// Term is the layout the table is written for: a view shows more columns
// when it is Wide, and writes what follows the table for the same width.
func (t *TableWriter) Term() Term { return t.term }

// Wide reports whether the table is -o wide: every column, nothing cut.
func (t *TableWriter) Wide() bool { return t.term.Wide }

// Row adds one row, each cell Printable: text from input cannot reach
// the terminal raw.
func (t *TableWriter) Row(cols ...any) {
	s := make([]string, len(cols))
	for i, c := range cols {
		s[i] = Printable(fmt.Sprint(c))
	}
	t.rows = append(t.rows, s)
}

// CutToFit marks columns (counted from 0) whose cells may be shortened to
// fit the width, until the next Flush: long values whose ends say enough,
// shown in full by -o wide. The last column is never cut.
func (t *TableWriter) CutToFit(cols ...int) {
	if t.cut == nil {
		t.cut = map[int]bool{}
	}
	for _, c := range cols {
		t.cut[c] = true
	}
}

// Flush writes the rows added since the last Flush.
func (t *TableWriter) Flush() error {
	var b strings.Builder
	for i := 0; i < len(t.rows); {
		j := i
		for j < len(t.rows) && len(t.rows[j]) >= 2 {
			j++
		}
		if j == i { // an empty row or a single cell: a line of its own
			t.writeRow(&b, t.rows[i], nil)
			i++
			continue
		}
		widths := t.layout(t.rows[i:j])
		for _, r := range t.rows[i:j] {
			t.writeRow(&b, r, widths)
		}
		i = j
	}
	t.rows, t.cut = t.rows[:0], nil
	_, err := io.WriteString(t.w, b.String())
	return err
}

// limited reports whether rows are fitted to a width.
func (t *TableWriter) limited() bool { return t.term.Width > 0 && !t.term.Wide }

// layout returns the width of every column of rows but the last cell of
// each row, cut to fit where the table allows it.
func (t *TableWriter) layout(rows [][]string) []int {
	n := 0
	for _, r := range rows {
		n = max(n, len(r))
	}
	widths := make([]int, n-1)
	last := 0 // the widest cell of the last column
	for _, r := range rows {
		for c, cell := range r[:len(r)-1] {
			widths[c] = max(widths[c], Width(cell))
		}
		if len(r) == n {
			last = max(last, Width(r[n-1]))
		}
	}
	if !t.limited() || len(t.cut) == 0 {
		return widths
	}
	start := 0
	for _, w := range widths {
		start += w + gap
	}
	floor := make([]int, len(widths))
	for c := range floor { // a header stays whole; no column goes below minCut
		floor[c] = min(widths[c], max(minCut, Width(rows[0][c])))
	}
	want := min(last, max(minLast, t.term.Width*2/5))
	for excess := start + want - t.term.Width; excess > 0; excess-- {
		widest := -1
		for c, w := range widths {
			if t.cut[c] && w > floor[c] && (widest < 0 || w > widths[widest]) {
				widest = c
			}
		}
		if widest < 0 {
			break
		}
		widths[widest]--
	}
	return widths
}

// writeRow writes one row: its cells padded to widths, its last cell
// wrapped where the width ends; no line ends in spaces.
func (t *TableWriter) writeRow(b *strings.Builder, r []string, widths []int) {
	if len(r) == 0 {
		b.WriteByte('\n')
		return
	}
	var line strings.Builder
	pos := 0
	for c, cell := range r[:len(r)-1] {
		cell = Cut(cell, widths[c])
		line.WriteString(t.term.Paint(cell))
		line.WriteString(strings.Repeat(" ", widths[c]-Width(cell)+gap))
		pos += widths[c] + gap
	}
	lines := []string{r[len(r)-1]}
	if t.limited() {
		lines = Wrap(r[len(r)-1], max(t.term.Width-pos, minLast))
	}
	line.WriteString(t.term.Paint(lines[0]))
	b.WriteString(strings.TrimRight(line.String(), " "))
	b.WriteByte('\n')
	indent := strings.Repeat(" ", pos)
	for _, l := range lines[1:] {
		b.WriteString(indent)
		b.WriteString(l)
		b.WriteByte('\n')
	}
}
