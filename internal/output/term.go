package output

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// The --color modes.
const (
	ColorAuto   = "auto"
	ColorAlways = "always"
	ColorNever  = "never"
)

// Term is how a table is laid out where it is printed.
type Term struct {
	// Width is how many columns a line may take: beyond it the last cell
	// of a row wraps onto lines of its own, indented under its column, and
	// the columns a table marks with CutToFit are shortened. 0 means
	// unlimited: every row on one line.
	Width int
	// Wide is -o wide: every column, in full; nothing wraps or is cut.
	Wide bool
	// Color paints status words: FAIL and ERROR red; WARN, DISRUPTIVE and
	// UNSUPPORTED yellow; PASS and OK green.
	Color bool
}

// Terminal is a writer that carries the Term of what it writes to:
// NewTable and TermOf read it, so that a command's stdout tells every table
// printed on it how wide it may be and whether it is in colour.
type Terminal struct {
	io.Writer
	Term Term
}

// TermOf is the Term that w carries (a *Terminal), or the zero Term: no
// width limit, no colour, not wide.
func TermOf(w io.Writer) Term {
	if t, ok := w.(*Terminal); ok {
		return t.Term
	}
	return Term{}
}

// CheckColor returns an error when mode is not a --color mode.
func CheckColor(mode string) error {
	switch mode {
	case ColorAuto, ColorAlways, ColorNever:
		return nil
	}
	return fmt.Errorf("unknown color mode %q (valid: %s, %s, %s)", mode, ColorAuto, ColorAlways, ColorNever)
}

// DetectTerm says how tables print on w (a command's stdout) for the
// --color mode, with getenv reading the environment.
//
// Width: when w is a terminal, $COLUMNS if it is a positive number (a user's
// override), else the terminal's width (TIOCGWINSZ), else unlimited. When w
// is not a terminal (a pipe, a file, a test's buffer) the width is unlimited
// whatever $COLUMNS says: what reads a pipe (grep, awk, the lab's end-to-end
// tests, CI logs) takes one line per row, and shells export COLUMNS often
// enough that it must not break that by accident.
//
// Colour: never for ColorNever; always for ColorAlways (it overrides
// NO_COLOR, as https://no-color.org asks of an explicit flag); for ColorAuto
// only when w is a terminal, NO_COLOR is unset or empty and TERM is not
// "dumb".
func DetectTerm(w io.Writer, color string, getenv func(string) string) (Term, error) {
	if err := CheckColor(color); err != nil {
		return Term{}, err
	}
	tty := isTerminal(w)
	var t Term
	if tty {
		if n, err := strconv.Atoi(strings.TrimSpace(getenv("COLUMNS"))); err == nil && n > 0 {
			t.Width = n
		} else {
			t.Width = terminalWidth(w.(*os.File))
		}
	}
	switch color {
	case ColorAlways:
		t.Color = true
	case ColorAuto:
		t.Color = tty && getenv("NO_COLOR") == "" && getenv("TERM") != "dumb"
	}
	return t, nil
}

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// SGR colours of the status words.
const (
	red    = "\x1b[31m"
	yellow = "\x1b[33m"
	green  = "\x1b[32m"
	reset  = "\x1b[0m"
)

var statusColors = map[string]string{
	"FAIL": red, "ERROR": red, "FAILED": red,
	"WARN": yellow, "DISRUPTIVE": yellow, "UNSUPPORTED": yellow,
	"PASS": green, "OK": green,
}

// Paint returns s with its first word in its status colour when t.Color is
// set and that word is a status word ("FAIL", "UNSUPPORTED [1]"); s itself
// otherwise.
func (t Term) Paint(s string) string {
	if !t.Color {
		return s
	}
	end := strings.IndexAny(s, " :,")
	if end < 0 {
		end = len(s)
	}
	c, ok := statusColors[s[:end]]
	if !ok {
		return s
	}
	return c + s[:end] + reset + s[end:]
}

// Hang returns prefix and text as lines wrapped to t's width (unless t is
// Wide or unlimited), the lines after the first indented by the prefix's
// width: a footnote ("[1] reason…") under a table. Each line ends in "\n".
func (t Term) Hang(prefix, text string) string {
	lines := []string{strings.TrimSpace(text)}
	if t.Width > 0 && !t.Wide {
		lines = Wrap(text, max(t.Width-Width(prefix), minLast))
	}
	var b strings.Builder
	indent := strings.Repeat(" ", Width(prefix))
	for i, l := range lines {
		if i == 0 {
			b.WriteString(prefix)
		} else {
			b.WriteString(indent)
		}
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return b.String()
}
