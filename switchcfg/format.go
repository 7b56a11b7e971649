package switchcfg

import (
	"errors"
	"fmt"
	"strings"
)

// ErrNotThisFormat is wrapped when a capture is not the output a reader
// takes: the reader refuses it rather than read nothing from it and report
// an empty, plausible switch.
var ErrNotThisFormat = errors.New("unrecognised format")

// CheckCLIFormat checks that text is a CLI configuration of the NOS whose
// top-level commands are topLevel: at least one unindented line, not a
// comment (lines starting with one of comments), must begin with one of
// them. A file with no such line ("foo = bar", another vendor's syntax) is
// refused with an error wrapping ErrNotThisFormat that quotes its first
// line; an empty configuration is accepted.
func CheckCLIFormat(nos, text string, comments string, topLevel map[string]bool) error {
	first, firstLine := "", 0
	for i, raw := range strings.Split(text, "\n") {
		t := strings.TrimSpace(raw)
		if t == "" || strings.ContainsRune(comments, rune(t[0])) {
			continue
		}
		if raw[0] == ' ' || raw[0] == '\t' {
			continue
		}
		if firstLine == 0 {
			first, firstLine = t, i+1
		}
		if topLevel[strings.Fields(t)[0]] {
			return nil
		}
	}
	if firstLine == 0 {
		return nil
	}
	return fmt.Errorf("%w: no line is a configuration command of %s (line %d: %q)", ErrNotThisFormat, nos, firstLine, first)
}

// WordSet returns the set of words.
func WordSet(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}
