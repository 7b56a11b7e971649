package textdiff

import (
	"fmt"
	"strings"
)

// Unified returns the unified diff (three lines of context) of two
// texts line by line, labelled fromName and toName, or "" when they are
// equal.
func Unified(fromName, toName, from, to string) string {
	a, b := textLines(from), textLines(to)
	ops := editScript(a, b)
	if !hasEdits(ops) {
		return ""
	}
	const context = 3
	var out strings.Builder
	fmt.Fprintf(&out, "--- %s\n+++ %s\n", fromName, toName)
	// Line numbers (0-based) in a and b before each op.
	type at struct{ a, b int }
	pos := make([]at, len(ops)+1)
	for k, o := range ops {
		next := pos[k]
		if o.op != '+' {
			next.a++
		}
		if o.op != '-' {
			next.b++
		}
		pos[k+1] = next
	}
	for k := 0; k < len(ops); {
		if ops[k].op == ' ' {
			k++
			continue
		}
		// A hunk: from context lines before the first edit to context
		// lines after the last edit that is within 2*context of the next.
		start := max(k-context, 0)
		end := k
		for end < len(ops) {
			if ops[end].op != ' ' {
				end++
				continue
			}
			run := end
			for run < len(ops) && ops[run].op == ' ' {
				run++
			}
			if run == len(ops) || run-end > 2*context {
				end = min(end+context, len(ops))
				break
			}
			end = run
		}
		na, nb := pos[end].a-pos[start].a, pos[end].b-pos[start].b
		fmt.Fprintf(&out, "@@ -%s +%s @@\n", hunkRange(pos[start].a, na), hunkRange(pos[start].b, nb))
		for _, o := range ops[start:end] {
			out.WriteByte(o.op)
			out.WriteString(o.line)
			out.WriteByte('\n')
		}
		k = end
	}
	return out.String()
}

// hunkRange is a unified diff's "start,count" (1-based; an empty range
// names the line before it).
func hunkRange(start, n int) string {
	if n == 0 {
		return fmt.Sprintf("%d,0", start)
	}
	if n == 1 {
		return fmt.Sprintf("%d", start+1)
	}
	return fmt.Sprintf("%d,%d", start+1, n)
}

// edit is one line of a line diff: ' ' kept, '-' only in a, '+' only in b.
type edit struct {
	op   byte
	line string
}

func hasEdits(ops []edit) bool {
	for _, o := range ops {
		if o.op != ' ' {
			return true
		}
	}
	return false
}

// editScript computes a shortest line edit script from a to b (longest
// common subsequence by dynamic programming: configurations are hundreds
// of lines, not millions).
func editScript(a, b []string) []edit {
	n, m := len(a), len(b)
	lcs := make([][]int, n+1)
	for i := range lcs {
		lcs[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var ops []edit
	i, j := 0, 0
	for i < n && j < m {
		switch {
		case a[i] == b[j]:
			ops = append(ops, edit{' ', a[i]})
			i, j = i+1, j+1
		case lcs[i+1][j] >= lcs[i][j+1]:
			ops = append(ops, edit{'-', a[i]})
			i++
		default:
			ops = append(ops, edit{'+', b[j]})
			j++
		}
	}
	for ; i < n; i++ {
		ops = append(ops, edit{'-', a[i]})
	}
	for ; j < m; j++ {
		ops = append(ops, edit{'+', b[j]})
	}
	return ops
}

// textLines splits s into lines without their newlines ("" has none).
func textLines(s string) []string {
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}
