package sim

import (
	"fmt"
	"strings"
)

// editOp is one line of a line diff: ' ' kept, '-' only in a, '+' only in b.
type editOp struct {
	op   byte
	line string
}

// lineDiff computes a shortest line edit script from a to b (LCS by dynamic
// programming; configurations are a few hundred lines).
func lineDiff(a, b []string) []editOp {
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
	var ops []editOp
	i, j := 0, 0
	for i < n && j < m {
		switch {
		case a[i] == b[j]:
			ops = append(ops, editOp{' ', a[i]})
			i++
			j++
		case lcs[i+1][j] >= lcs[i][j+1]:
			ops = append(ops, editOp{'-', a[i]})
			i++
		default:
			ops = append(ops, editOp{'+', b[j]})
			j++
		}
	}
	for ; i < n; i++ {
		ops = append(ops, editOp{'-', a[i]})
	}
	for ; j < m; j++ {
		ops = append(ops, editOp{'+', b[j]})
	}
	return ops
}

// unifiedDiff prints a unified diff (3 lines of context) of two texts, or ""
// when they are equal.
func unifiedDiff(fromName, toName, from, to string) string {
	a, b := splitLines(from), splitLines(to)
	ops := lineDiff(a, b)
	const ctx = 3
	changed := false
	for _, o := range ops {
		if o.op != ' ' {
			changed = true
			break
		}
	}
	if !changed {
		return ""
	}
	var out strings.Builder
	fmt.Fprintf(&out, "--- %s\n+++ %s\n", fromName, toName)
	// Walk hunks: runs of changes with ctx lines around them.
	ai, bi := 0, 0 // line numbers (0-based) before each op
	pos := make([][2]int, len(ops))
	for k, o := range ops {
		pos[k] = [2]int{ai, bi}
		if o.op != '+' {
			ai++
		}
		if o.op != '-' {
			bi++
		}
	}
	k := 0
	for k < len(ops) {
		if ops[k].op == ' ' {
			k++
			continue
		}
		start := max(k-ctx, 0)
		end := k
		for end < len(ops) {
			if ops[end].op != ' ' {
				end++
				continue
			}
			// Look ahead: do ctx*2 equal lines follow?
			run := 0
			for end+run < len(ops) && ops[end+run].op == ' ' {
				run++
			}
			if end+run == len(ops) || run > 2*ctx {
				end = min(end+ctx, len(ops))
				break
			}
			end += run
		}
		na, nb := 0, 0
		for _, o := range ops[start:end] {
			if o.op != '+' {
				na++
			}
			if o.op != '-' {
				nb++
			}
		}
		fmt.Fprintf(&out, "@@ -%s +%s @@\n", hunkRange(pos[start][0], na), hunkRange(pos[start][1], nb))
		for _, o := range ops[start:end] {
			out.WriteByte(o.op)
			out.WriteString(o.line)
			out.WriteByte('\n')
		}
		k = end
	}
	return out.String()
}

func hunkRange(start, n int) string {
	if n == 0 {
		return fmt.Sprintf("%d,0", start)
	}
	if n == 1 {
		return fmt.Sprintf("%d", start+1)
	}
	return fmt.Sprintf("%d,%d", start+1, n)
}

func splitLines(s string) []string {
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}
