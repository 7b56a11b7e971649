package output

import (
	"strings"
	"unicode/utf8"
)

// OneLine puts s on one line of at most max bytes: every run of blanks, tabs and newlines
// becomes one space, and a longer text is cut at a character boundary and ends in "...". It is
// for text that a one-line reader keeps (a health check's answer, a Slurm drain reason).
func OneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= max {
		return s
	}
	cut := max - 3
	if cut < 0 {
		cut = 0
	}
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "..."
}
