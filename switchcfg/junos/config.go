package junos

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/fabricctl/fabricctl/switchcfg"
)

// This file turns Junos configuration text — curly-brace (`show
// configuration`) or set statements (`| display set`) — into a stream of
// statements with absolute paths, so the rest of the parser need not care
// which form the switch printed. The text is read line by line, never
// split or copied whole, and only one statement is held at a time: memory
// stays linear in the longest statement, whatever the size of the file.

// statement is one configuration statement as the words of its absolute
// path, e.g. [class-of-service forwarding-classes class NO-LOSS queue-num 4].
// Value lists keep their brackets: [... code-points [ 000000 000001 ]].
type statement struct {
	line  int
	words []string
}

// maxDepth is the deepest nesting of curly-brace blocks read: Junos's own
// hierarchies nest fewer than 20 deep, so deeper text is refused rather
// than read (each level holds the path to it).
const maxDepth = 64

// maxWords is the most words one statement may have: the longest value
// lists of a real configuration (VLAN members, code points) hold hundreds.
const maxWords = 1 << 16

// noise are lines around configuration text that are not configuration: CLI
// prompts with their command, the chassis line ("{master:0}"), "[edit]".
var noise = regexp.MustCompile(`^(\S+@\S+[>#].*|\{\w+:\d+\}|\[edit.*\])$`)

// errStop ends a walk early; it is never returned to a caller.
var errStop = errors.New("stop")

// eachStatement calls emit with each statement of text printed by `show
// configuration <base...>`, in either form, in order. The words are lent
// to emit for the call: it clones what it keeps. Curly text without a
// top-level statement named base[0] is taken as relative to base (that is
// how Junos prints a sub-hierarchy).
func eachStatement(text string, base []string, emit func(statement) error) error {
	if isSetForm(text) {
		return setStatements(text, emit)
	}
	if len(base) == 0 {
		return curlyStatements(text, emit)
	}
	absolute := false
	err := curlyStatements(text, func(st statement) error {
		if st.words[0] == base[0] {
			absolute = true
			return errStop
		}
		return nil
	})
	if err != nil && !errors.Is(err, errStop) {
		return err
	}
	if absolute {
		return curlyStatements(text, emit)
	}
	var buf []string
	return curlyStatements(text, func(st statement) error {
		buf = append(append(buf[:0], base...), st.words...)
		st.words = buf
		return emit(st)
	})
}

// eachLine calls fn with each line of text and its number, "\r" removed
// and /* … */ comments blanked — they may run over many lines, as
// Juniper's own configuration snippets open with; quoted strings and words
// holding "/*" (the interface wildcard et-0/0/*) are left alone, and an
// unterminated comment runs to the end of the text. The last line is the
// one after the last newline, empty when text ends with one.
func eachLine(text string, fn func(n int, line string) error) error {
	inComment := false
	for n := 1; ; n++ {
		line, rest, more := strings.Cut(text, "\n")
		if strings.IndexByte(line, '\r') >= 0 {
			line = strings.ReplaceAll(line, "\r", "")
		}
		if inComment || strings.Contains(line, "/*") {
			line, inComment = stripComments(line, inComment)
		}
		if err := fn(n, line); err != nil {
			return err
		}
		if !more {
			return nil
		}
		text = rest
	}
}

// isSetForm reports whether text is `| display set` output: a line that
// starts with "set ".
func isSetForm(text string) bool {
	return eachLine(text, func(_ int, l string) error {
		if strings.HasPrefix(strings.TrimSpace(l), "set ") {
			return errStop
		}
		return nil
	}) != nil
}

// setStatements reads `| display set` output: "set ..." lines, with
// "deactivate ..." lines removing what they name (before or after them).
func setStatements(text string, emit func(statement) error) error {
	var (
		inactive prefixSet
		words    []string
	)
	each := func(fn func(n int, verb string, words []string) error) error {
		return eachLine(text, func(n int, l string) error {
			verb, rest, _ := strings.Cut(strings.TrimSpace(l), " ")
			if verb != "set" && verb != "deactivate" {
				return nil
			}
			var err error
			words, err = tokens(words[:0], rest)
			if err != nil {
				return fmt.Errorf("line %d: %w", n, err)
			}
			if slices.ContainsFunc(words, func(w string) bool { return w == "{" || w == "}" || w == ";" }) {
				return switchcfg.NotThisFormat("line %d: braces in a set statement", n)
			}
			if len(words) == 0 {
				return nil
			}
			return fn(n, verb, words)
		})
	}
	err := each(func(_ int, verb string, words []string) error {
		if verb == "deactivate" {
			inactive.add(words)
		}
		return nil
	})
	if err != nil {
		return err
	}
	inactive.sort()
	return each(func(n int, verb string, words []string) error {
		if verb != "set" || inactive.hasPrefixOf(words) {
			return nil
		}
		return emit(statement{line: n, words: words})
	})
}

// prefixSet is a set of statement paths, held as their hashes (and where
// their text is, to tell a collision from a match), so that asking whether
// a statement lies under one costs the statement's length, whatever the
// number of paths.
type prefixSet struct {
	paths []hashedPath
}

type hashedPath struct {
	hash uint64
	key  string // the words joined by NUL
}

func (p *prefixSet) add(words []string) {
	h := uint64(fnvOffset)
	for _, w := range words {
		h = fnvWord(h, w)
	}
	p.paths = append(p.paths, hashedPath{hash: h, key: strings.Join(words, "\x00") + "\x00"})
}

// FNV-1a, 64 bits.
const fnvOffset, fnvPrime = 14695981039346656037, 1099511628211

// fnvWord adds w and a NUL to the hash h.
func fnvWord(h uint64, w string) uint64 {
	for i := 0; i < len(w); i++ {
		h = (h ^ uint64(w[i])) * fnvPrime
	}
	return h * fnvPrime
}

func (p *prefixSet) sort() {
	sort.Slice(p.paths, func(i, j int) bool { return p.paths[i].hash < p.paths[j].hash })
}

// hasPrefixOf reports whether a path of the set is words or a prefix of it.
func (p *prefixSet) hasPrefixOf(words []string) bool {
	if len(p.paths) == 0 {
		return false
	}
	h := uint64(fnvOffset)
	var key []byte
	for _, w := range words {
		h = fnvWord(h, w)
		key = append(append(key, w...), 0)
		sum := h
		i := sort.Search(len(p.paths), func(i int) bool { return p.paths[i].hash >= sum })
		for ; i < len(p.paths) && p.paths[i].hash == sum; i++ {
			if p.paths[i].key == string(key) {
				return true
			}
		}
	}
	return false
}

// curlyStatements reads curly-brace configuration. Statements marked
// "inactive:" are dropped with everything under them; "protect:" is
// ignored. The path to the current block is one slice that each block
// extends and each "}" cuts back, so nesting costs the depth, not its
// square.
func curlyStatements(text string, emit func(statement) error) error {
	type level struct {
		depth    int // len(path) inside the block
		inactive bool
	}
	var (
		path, cur, words, buf []string
		stack                 = []level{{}}
		start, last           int
	)
	err := eachLine(text, func(n int, l string) error {
		last = n
		if isNoise(l) {
			return nil
		}
		var err error
		if words, err = tokens(words[:0], l); err != nil {
			return fmt.Errorf("line %d: %w", n, err)
		}
		for _, w := range words {
			top := stack[len(stack)-1]
			switch w {
			case "{":
				if len(cur) == 0 {
					return switchcfg.NotThisFormat("line %d: block without a name", n)
				}
				if len(stack) > maxDepth {
					return fmt.Errorf("line %d: nesting deeper than %d levels", n, maxDepth)
				}
				path = appendStripped(path[:top.depth], cur)
				stack = append(stack, level{depth: len(path), inactive: top.inactive || cur[0] == "inactive:"})
				cur = cur[:0]
			case ";":
				if len(cur) > 0 && !top.inactive && cur[0] != "inactive:" {
					buf = appendStripped(append(buf[:0], path[:top.depth]...), cur)
					if len(buf) > top.depth {
						if err := emit(statement{line: start, words: buf}); err != nil {
							return err
						}
					}
				}
				cur = cur[:0]
			case "}":
				if len(cur) > 0 || len(stack) == 1 {
					return switchcfg.NotThisFormat("line %d: unexpected }", n)
				}
				stack = stack[:len(stack)-1]
			default:
				if len(cur) == 0 {
					start = n
				}
				if len(cur) == maxWords {
					return fmt.Errorf("line %d: a statement of more than %d words", start, maxWords)
				}
				cur = append(cur, w)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if len(stack) != 1 || len(cur) > 0 {
		return switchcfg.NotThisFormat("line %d: unterminated statement or block", last)
	}
	return nil
}

// isNoise reports whether a line is one of noise (the pattern runs only
// on lines that can match it).
func isNoise(l string) bool {
	t := strings.TrimSpace(l)
	return t != "" && (t[0] == '{' || t[0] == '[' || strings.IndexByte(t, '@') > 0) && noise.MatchString(t)
}

// appendStripped appends the words of a statement to dst without the
// annotations "inactive:" and "protect:".
func appendStripped(dst, words []string) []string {
	for _, w := range words {
		if w != "inactive:" && w != "protect:" {
			dst = append(dst, w)
		}
	}
	return dst
}

// tokens appends to out the words and punctuation { } ; [ ] of one line;
// "quoted strings" are one word, # and /* */ start comments. A line of
// more than maxWords words is refused.
func tokens(out []string, line string) ([]string, error) {
	for i := 0; i < len(line); {
		if len(out) > maxWords {
			return nil, fmt.Errorf("more than %d words on one line", maxWords)
		}
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
			out = append(out, line[i:i+1])
			i++
		case c == '"':
			end := strings.IndexByte(line[i+1:], '"')
			if end < 0 {
				return nil, switchcfg.NotThisFormat("unterminated quoted string")
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

// values returns the words of a value that may be a bracketed list.
func values(words []string) []string {
	return slices.DeleteFunc(slices.Clone(words), func(w string) bool { return w == "[" || w == "]" })
}

// stripComments blanks the /* … */ comments of one line, which starts
// inside a comment when inComment is set, keeping its length; it returns
// the line and whether a comment is still open at its end. Quoted strings
// and words holding "/*" (et-0/0/*) are left alone.
func stripComments(line string, inComment bool) (string, bool) {
	b := []byte(line)
	inQuote := false
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case inComment:
			if c == '*' && i+1 < len(b) && b[i+1] == '/' {
				inComment = false
				b[i+1] = ' '
			}
			b[i] = ' '
		case inQuote:
			inQuote = c != '"'
		case c == '"':
			inQuote = true
		case c == '/' && i+1 < len(b) && b[i+1] == '*' && (i == 0 || strings.IndexByte(" \t{};", b[i-1]) >= 0):
			// At the start of a word only: et-0/0/* is an interface wildcard.
			inComment = true
			b[i], b[i+1] = ' ', ' '
			i++
		}
	}
	return string(b), inComment
}
