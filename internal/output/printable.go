package output

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Printable returns s safe to print on a terminal: control characters (C0,
// DEL, C1 — ESC sequences, BEL, NUL, and tabs and newlines, which would
// break a table's rows and columns) and bytes that are not UTF-8 are shown
// escaped ("\x1b", "\t"), so that text read from captures, logs or file
// names cannot move the cursor, retitle the terminal or hide a row.
func Printable(s string) string { return printable(s, false) }

// PrintableLines is Printable for a message of several lines (an error
// printed on stderr): newlines and tabs are kept, every other control
// character is shown escaped.
func PrintableLines(s string) string { return printable(s, true) }

func printable(s string, lines bool) string {
	clean := true
	for _, r := range s {
		if lines && (r == '\n' || r == '\t') {
			continue
		}
		if r == utf8.RuneError || r < 0x20 || (r >= 0x7f && r < 0xa0) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case lines && (r == '\t' || r == '\n'):
			b.WriteRune(r)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r >= 0x80 && r < 0xa0:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}
