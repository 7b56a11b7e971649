package junos

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// This file turns Junos configuration text — curly-brace (`show
// configuration`) or set statements (`| display set`) — into one list of
// statements with absolute paths, so the rest of the parser need not care
// which form the switch printed.

// statement is one configuration statement as the words of its absolute
// path, e.g. [class-of-service forwarding-classes class NO-LOSS queue-num 4].
// Value lists keep their brackets: [... code-points [ 000000 000001 ]].
type statement struct {
	line  int
	words []string
}

// noise are lines around configuration text that are not configuration: CLI
// prompts with their command, the chassis line ("{master:0}"), "[edit]".
var noise = regexp.MustCompile(`^(\S+@\S+[>#].*|\{\w+:\d+\}|\[edit.*\])$`)

// parseConfig reads text printed by `show configuration <base...>`, in
// either form. Curly text without a top-level statement named base[0] is
// taken as relative to base (that is how Junos prints a sub-hierarchy).
func parseConfig(text string, base []string) ([]statement, error) {
	lines := strings.Split(stripComments(strings.ReplaceAll(text, "\r", "")), "\n")
	for _, l := range lines {
		if t := strings.TrimSpace(l); strings.HasPrefix(t, "set ") {
			return setStatements(lines)
		}
	}
	sts, err := curlyStatements(lines)
	if err != nil || len(base) == 0 {
		return sts, err
	}
	if slices.ContainsFunc(sts, func(s statement) bool { return s.words[0] == base[0] }) {
		return sts, nil
	}
	for i := range sts {
		sts[i].words = append(slices.Clone(base), sts[i].words...)
	}
	return sts, nil
}

// setStatements reads `| display set` output: "set ..." lines, with
// "deactivate ..." lines removing what they name.
func setStatements(lines []string) ([]statement, error) {
	var sts []statement
	var inactive [][]string
	for i, l := range lines {
		t := strings.TrimSpace(l)
		verb, rest, _ := strings.Cut(t, " ")
		if verb != "set" && verb != "deactivate" {
			continue
		}
		words, err := tokens(rest)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", i+1, err)
		}
		if slices.ContainsFunc(words, func(w string) bool { return w == "{" || w == "}" || w == ";" }) {
			return nil, fmt.Errorf("line %d: braces in a set statement", i+1)
		}
		if len(words) == 0 {
			continue
		}
		if verb == "deactivate" {
			inactive = append(inactive, words)
			continue
		}
		sts = append(sts, statement{line: i + 1, words: words})
	}
	return slices.DeleteFunc(sts, func(s statement) bool {
		return slices.ContainsFunc(inactive, func(p []string) bool { return hasPrefix(s.words, p) })
	}), nil
}

// curlyStatements reads curly-brace configuration. Statements marked
// "inactive:" are dropped with everything under them; "protect:" is ignored.
func curlyStatements(lines []string) ([]statement, error) {
	type level struct {
		path     []string
		inactive bool
	}
	var (
		sts   []statement
		stack = []level{{}}
		cur   []string
		start int
	)
	for i, l := range lines {
		if noise.MatchString(strings.TrimSpace(l)) {
			continue
		}
		words, err := tokens(l)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", i+1, err)
		}
		for _, w := range words {
			top := stack[len(stack)-1]
			switch w {
			case "{":
				if len(cur) == 0 {
					return nil, fmt.Errorf("line %d: block without a name", i+1)
				}
				inactive := top.inactive || cur[0] == "inactive:"
				stack = append(stack, level{path: append(slices.Clone(top.path), strip(cur)...), inactive: inactive})
				cur = nil
			case ";":
				if len(cur) > 0 && !top.inactive && cur[0] != "inactive:" {
					if words := strip(cur); len(words) > 0 {
						sts = append(sts, statement{line: start, words: append(slices.Clone(top.path), words...)})
					}
				}
				cur = nil
			case "}":
				if len(cur) > 0 || len(stack) == 1 {
					return nil, fmt.Errorf("line %d: unexpected }", i+1)
				}
				stack = stack[:len(stack)-1]
			default:
				if len(cur) == 0 {
					start = i + 1
				}
				cur = append(cur, w)
			}
		}
	}
	if len(stack) != 1 || len(cur) > 0 {
		return nil, fmt.Errorf("line %d: unterminated statement or block", len(lines))
	}
	return sts, nil
}

// strip drops the annotations "inactive:" and "protect:" from a statement.
func strip(words []string) []string {
	return slices.DeleteFunc(slices.Clone(words), func(w string) bool { return w == "inactive:" || w == "protect:" })
}

// tokens splits one line into words and the punctuation { } ; [ ];
// "quoted strings" are one word, # and /* */ start comments.
func tokens(line string) ([]string, error) {
	var out []string
	for i := 0; i < len(line); {
		c := line[i]
		switch {
		case c == ' ' || c == '\t':
			i++
		case c == '#':
			return out, nil
		case strings.HasPrefix(line[i:], "/*"):
			end := strings.Index(line[i+2:], "*/")
			if end < 0 {
				return out, nil // a comment running to the end of the line
			}
			i += end + 4
		case c == '{' || c == '}' || c == ';' || c == '[' || c == ']':
			out = append(out, string(c))
			i++
		case c == '"':
			end := strings.IndexByte(line[i+1:], '"')
			if end < 0 {
				return nil, fmt.Errorf("unterminated quoted string")
			}
			out = append(out, line[i+1:i+1+end])
			i += end + 2
		default:
			j := i
			for j < len(line) && !strings.ContainsRune(" \t{};[]\"", rune(line[j])) {
				j++
			}
			out = append(out, line[i:j])
			i = j
		}
	}
	return out, nil
}

func hasPrefix(words, prefix []string) bool {
	return len(words) >= len(prefix) && slices.Equal(words[:len(prefix)], prefix)
}

// values returns the words of a value that may be a bracketed list.
func values(words []string) []string {
	return slices.DeleteFunc(slices.Clone(words), func(w string) bool { return w == "[" || w == "]" })
}

// stripComments blanks /* … */ comments, which may run over many lines (as
// Juniper's own configuration snippets open with), keeping the line breaks
// so line numbers stay right; quoted strings and words holding "/*" (the
// interface wildcard et-0/0/*) are left alone. An unterminated
// comment runs to the end of the text.
func stripComments(text string) string {
	var b strings.Builder
	b.Grow(len(text))
	inQuote, inComment := false, false
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case inComment:
			if c == '*' && i+1 < len(text) && text[i+1] == '/' {
				inComment = false
				i++
				b.WriteString("  ")
				continue
			}
			if c == '\n' {
				b.WriteByte('\n')
			} else {
				b.WriteByte(' ')
			}
		case inQuote:
			if c == '"' || c == '\n' {
				inQuote = false
			}
			b.WriteByte(c)
		case c == '"':
			inQuote = true
			b.WriteByte(c)
		case c == '/' && i+1 < len(text) && text[i+1] == '*' && (i == 0 || strings.ContainsRune(" \t\n{};", rune(text[i-1]))):
			// At the start of a word only: et-0/0/* is an interface wildcard.
			inComment = true
			i++
			b.WriteString("  ")
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}
