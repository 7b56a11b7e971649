package output

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Width is the number of terminal columns s takes: one per character
// ("→" is one), two for the wide characters of East Asian scripts and
// emoji, none for combining marks. s is Printable text (no control
// characters).
func Width(s string) int {
	n := 0
	for _, r := range s {
		n += runeWidth(r)
	}
	return n
}

func runeWidth(r rune) int {
	switch {
	case r < 0x300:
		return 1
	case unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Me, r) || r == 0x200b:
		return 0
	case r >= 0x1100 && r <= 0x115f, r >= 0x2e80 && r <= 0xa4cf && r != 0x303f,
		r >= 0xac00 && r <= 0xd7a3, r >= 0xf900 && r <= 0xfaff, r >= 0xfe30 && r <= 0xfe4f,
		r >= 0xff00 && r <= 0xff60, r >= 0xffe0 && r <= 0xffe6,
		r >= 0x1f300 && r <= 0x1f64f, r >= 0x1f900 && r <= 0x1f9ff, r >= 0x20000 && r <= 0x3fffd:
		return 2
	}
	return 1
}

// Wrap breaks s into lines of at most width columns, at spaces; a word
// wider than width is split. The lines carry no leading or trailing spaces.
// A width of 0 or less leaves s on one line.
func Wrap(s string, width int) []string {
	s = strings.TrimSpace(s)
	if width <= 0 || Width(s) <= width {
		return []string{s}
	}
	var lines []string
	var line strings.Builder
	lw := 0
	flush := func() {
		lines = append(lines, line.String())
		line.Reset()
		lw = 0
	}
	for _, word := range strings.Fields(s) {
		ww := Width(word)
		switch {
		case lw > 0 && lw+1+ww <= width:
			line.WriteByte(' ')
			line.WriteString(word)
			lw += 1 + ww
			continue
		case lw > 0:
			flush()
		}
		for ww > width { // a word wider than a line: split it
			head, rest := splitAt(word, width)
			lines = append(lines, head)
			word, ww = rest, Width(rest)
		}
		line.WriteString(word)
		lw = ww
	}
	if lw > 0 {
		flush()
	}
	return lines
}

// splitAt returns the longest prefix of s at most width columns wide (at
// least one character) and the rest.
func splitAt(s string, width int) (string, string) {
	w := 0
	for i, r := range s {
		rw := runeWidth(r)
		if w+rw > width && i > 0 {
			return s[:i], s[i:]
		}
		w += rw
	}
	return s, ""
}

// Cut shortens s to at most width columns by replacing its middle with "…",
// keeping both ends (a path's file name, a change's new value). s is
// returned whole when it fits or width is 0 or less.
func Cut(s string, width int) string {
	if width <= 0 || Width(s) <= width {
		return s
	}
	if width == 1 {
		return "…"
	}
	keep := width - 1
	head, _ := splitAt(s, keep-keep/2)
	// the tail: the longest suffix of at most keep/2 columns
	tail, tw := len(s), 0
	for tail > 0 {
		r, n := utf8.DecodeLastRuneInString(s[:tail])
		if tw+runeWidth(r) > keep/2 {
			break
		}
		tw += runeWidth(r)
		tail -= n
	}
	return head + "…" + s[tail:]
}
