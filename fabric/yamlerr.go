package fabric

import (
	"bytes"
	"io"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// YAML syntax errors at the problem mark. yaml.v3 says "line N" of the
// construct it was parsing when it failed (for parser errors, the 0-based
// line of the enclosing mapping or list), not of the token that broke it:
// a one-space over-indent on line 20 of a class is reported at line 14.
// The parser's problem mark is not exported, so it is found again: the
// first prefix of whole lines (from line N on) that fails to parse with the
// same problem is the line that holds it. A tab in that line's indentation
// is called a tab.

// yamlSearchLimit bounds the files whose problem line is searched for (a
// binary search parses log2(lines) prefixes, about 0.5 s at the limit);
// larger files keep yaml.v3's line.
const yamlSearchLimit = 512 << 10

// yamlError turns a yaml.v3 syntax error in data (read from file) into a
// located error.
func yamlError(file string, data []byte, err error) *Error {
	reported, problem := splitYAMLErr(err)
	ends := lineEnds(data)
	line := reported
	if line > len(ends) {
		line = len(ends)
	}
	// Flow lists and mappings are not searched: a prefix cut inside one
	// fails with the same problem long before the line that broke it,
	// while yaml.v3 reports those at the (0-based) line of the token that
	// did not fit.
	searched := reported > 0 && len(data) <= yamlSearchLimit && !flowProblems[problem]
	if searched {
		line = problemLine(data, ends, max(reported, 1), problem)
	} else if contextProblems[problem] != "" && reported > 0 && reported < len(ends) {
		// yaml.v3 counts the enclosing construct's line from 0 here.
		line = reported + 1
	}
	text := lineText(data, ends, line)
	col, tab := 1, -1
	if line > 0 {
		indent := len(text) - len(strings.TrimLeft(text, " \t"))
		tab = strings.IndexByte(text[:indent], '\t')
		col = indent + 1
		if indent == len(text) {
			col = 1
		}
	}
	// yaml.v3 calls a tab "character that cannot start any token" at the
	// start of a line; any tab in an indentation is one YAML refuses.
	if tab >= 0 {
		return &Error{Pos: Pos{File: file, Line: line, Col: tab + 1}, Code: CodeYAMLTab,
			Msg: "invalid YAML: tab character in the indentation; YAML indents with spaces"}
	}
	msg := "invalid YAML: " + problem
	if flowProblems[problem] && line > 0 {
		return &Error{Pos: Pos{File: file, Line: line, Col: col}, Code: CodeYAMLSyntax,
			Msg: msg + " before this line: a " + contextProblems[problem] + " above is missing a ',' or its closing bracket"}
	}
	if !searched && contextProblems[problem] != "" && line > 0 {
		return &Error{Pos: Pos{File: file, Line: line, Col: col}, Code: CodeYAMLSyntax,
			Msg: msg + " somewhere in the " + contextProblems[problem] + " that starts here (check the indentation of its lines)"}
	}
	switch problem {
	case "did not find expected key":
		if reported > 0 && line > reported {
			msg += "; this line does not line up with the keys of the mapping that starts at line " + strconv.Itoa(reported+1) + " (check its indentation)"
		}
	case "did not find expected '-' indicator":
		if reported > 0 && line > reported {
			msg += "; this line does not line up with the list that starts at line " + strconv.Itoa(reported+1) + " (check its indentation)"
		}
	case "mapping values are not allowed in this context":
		msg += " (a key indented under a value, or ': ' inside an unquoted value: fix the indentation or quote the value)"
	}
	return &Error{Pos: Pos{File: file, Line: line, Col: col}, Code: CodeYAMLSyntax, Msg: clipTo(msg, maxMsgLen)}
}

// contextProblems are yaml.v3 parser errors reported at the 0-based line
// of the construct being parsed, not at the problem: what that construct is.
var contextProblems = map[string]string{
	"did not find expected key":           "mapping",
	"did not find expected '-' indicator": "list",
	"did not find expected ',' or ']'":    "flow list",
	"did not find expected ',' or '}'":    "flow mapping",
}

// flowProblems are yaml.v3's errors inside [ … ] and { … }.
var flowProblems = map[string]bool{"did not find expected ',' or ']'": true, "did not find expected ',' or '}'": true}

// splitYAMLErr reads "yaml: line N: problem" into N (0 when absent) and problem.
func splitYAMLErr(err error) (int, string) {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	if rest, ok := strings.CutPrefix(msg, "line "); ok {
		if num, problem, ok := strings.Cut(rest, ": "); ok {
			if n, err := strconv.Atoi(num); err == nil {
				return n, problem
			}
		}
	}
	return 0, msg
}

// lineEnds returns the offset just past each line of data (its newline
// included).
func lineEnds(data []byte) []int {
	var ends []int
	for off := 0; off < len(data); {
		i := bytes.IndexByte(data[off:], '\n')
		if i < 0 {
			ends = append(ends, len(data))
			break
		}
		off += i + 1
		ends = append(ends, off)
	}
	return ends
}

// lineText returns line n (1-based) of data without its line break.
func lineText(data []byte, ends []int, n int) string {
	if n < 1 || n > len(ends) {
		return ""
	}
	start := 0
	if n > 1 {
		start = ends[n-2]
	}
	return strings.TrimRight(string(data[start:ends[n-1]]), "\r\n")
}

// problemLine returns the first line k ≥ from such that the lines up to k
// fail to parse with problem: the line the problem is on.
func problemLine(data []byte, ends []int, from int, problem string) int {
	if from > len(ends) {
		return len(ends)
	}
	fails := func(k int) bool {
		dec := yaml.NewDecoder(bytes.NewReader(data[:ends[k-1]]))
		for {
			var n yaml.Node
			err := dec.Decode(&n)
			if err == io.EOF {
				return false
			}
			if err != nil {
				_, p := splitYAMLErr(err)
				return p == problem
			}
		}
	}
	lo, hi := from, len(ends) // fails(hi) holds: the whole file fails so
	for lo < hi {
		mid := lo + (hi-lo)/2
		if fails(mid) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo
}
