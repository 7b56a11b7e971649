package fabric

import (
	"fmt"
	"sort"
	"strings"
)

// Pos is a place in a YAML file.
type Pos struct {
	File string `json:"file,omitempty"`
	Line int    `json:"line,omitempty"`
	Col  int    `json:"col,omitempty"`
}

func (p Pos) String() string {
	switch {
	case p.Line > 0:
		return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
	case p.File != "":
		return p.File
	}
	return ""
}

// Error is one located problem: FILE:LINE:COL: YAML.PATH: message.
type Error struct {
	Pos  Pos
	Path string
	Msg  string
	last bool // the too-many-errors notice, sorted after every error
}

func (e *Error) Error() string {
	var b strings.Builder
	if s := e.Pos.String(); s != "" {
		b.WriteString(s)
		b.WriteString(": ")
	}
	if e.Path != "" {
		b.WriteString(e.Path)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Errors is every problem found in a load, sorted by position. Load returns it
// as its error; use errors.As to get the list.
type Errors []*Error

func (es Errors) Error() string {
	lines := make([]string, len(es))
	for i, e := range es {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

func (es Errors) sort() {
	sort.SliceStable(es, func(i, j int) bool {
		if es[i].last != es[j].last {
			return es[j].last
		}
		a, b := es[i].Pos, es[j].Pos
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		if a.Col != b.Col {
			return a.Col < b.Col
		}
		return es[i].Msg < es[j].Msg
	})
}

// suggest returns ` (did you mean "x"?)` for the closest candidate, or "".
func suggest(got string, candidates []string) string {
	if len(got) > maxQuoted {
		return "" // nothing long is a typo of a field name
	}
	best, bestD := "", 1<<30
	for _, c := range candidates {
		if len(got) >= 3 && (strings.HasPrefix(strings.ToLower(c), strings.ToLower(got)) || strings.HasPrefix(strings.ToLower(got), strings.ToLower(c))) {
			return fmt.Sprintf(" (did you mean %q?)", c)
		}
		d := editDistance(strings.ToLower(got), strings.ToLower(c))
		if d < bestD {
			best, bestD = c, d
		}
	}
	limit := len(got) / 2
	if limit < 2 {
		limit = 2
	}
	if best == "" || bestD > limit {
		return ""
	}
	return fmt.Sprintf(" (did you mean %q?)", best)
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
