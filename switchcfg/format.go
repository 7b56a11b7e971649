package switchcfg

import (
	"errors"
	"fmt"
	"strings"

	"github.com/fabricctl/fabricctl/fabric"
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

// ErrUnparsed is wrapped when a reading holds input that can affect QoS
// which its reader did not understand: the switch cannot be judged to
// match (drift exits 1, unknown) unless the caller allows it.
var ErrUnparsed = errors.New("QoS input not understood")

// CheckUnparsed returns nil when got has no Unparsed input or allow is
// set, else an error wrapping ErrUnparsed that lists the first lines.
func CheckUnparsed(got fabric.SwitchIntent, allow bool) error {
	if len(got.Unparsed) == 0 || allow {
		return nil
	}
	const show = 5
	var lines []string
	for i, u := range got.Unparsed {
		if i == show {
			lines = append(lines, fmt.Sprintf("… and %d more", len(got.Unparsed)-show))
			break
		}
		lines = append(lines, fmt.Sprintf("line %d: %q: %s", u.Line, u.Text, u.Reason))
	}
	return fmt.Errorf("%w (%d lines; --allow-unparsed judges the rest anyway):\n  %s", ErrUnparsed, len(got.Unparsed), strings.Join(lines, "\n  "))
}
