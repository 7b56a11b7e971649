package output

import (
	"bytes"
	"encoding/json"
)

// inlineLimit is the longest container (in compact bytes) kept on one line.
const inlineLimit = 72

// MarshalJSON encodes v as indented JSON in which innermost arrays and
// objects that are short stay on one line: a DSCP entry reads
// {"dscp": 26, "priority": 3} and a prio→TC map [0, 0, 0, 3, 0, 0, 6, 0].
// It is about four times smaller than json.MarshalIndent's output for host
// state and correspondingly faster to write and read.
func MarshalJSON(v any) ([]byte, error) {
	compact, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return IndentCompact(compact), nil
}

// IndentCompact reformats valid compact JSON (as json.Marshal writes it).
func IndentCompact(src []byte) []byte {
	// match[i] is the index of the bracket closing the one opened at i, and
	// nested[i] says whether that container holds another container.
	// Indexed by byte offset; only bracket positions are set (match 0 = none).
	match := make([]int32, len(src))
	nested := make([]bool, len(src))
	var stack []int
	inStr := false
	for i := 0; i < len(src); i++ {
		c := src[i]
		if inStr {
			if c == '\\' {
				i++
			} else if c == '"' {
				inStr = false
			}
			continue
		}
		switch c {
		case '"':
			inStr = true
		case '{', '[':
			if len(stack) > 0 {
				nested[stack[len(stack)-1]] = true
			}
			stack = append(stack, i)
		case '}', ']':
			if len(stack) > 0 {
				open := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				match[open] = int32(i)
			}
		}
	}
	var b bytes.Buffer
	b.Grow(len(src) + len(src)/2)
	depth := 0
	newline := func() {
		b.WriteByte('\n')
		for j := 0; j < depth; j++ {
			b.WriteString("  ")
		}
	}
	inline := 0 // > 0 while inside a container kept on one line
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch c {
		case '"':
			j := i + 1
			for ; j < len(src); j++ {
				if src[j] == '\\' {
					j++
				} else if src[j] == '"' {
					break
				}
			}
			b.Write(src[i : j+1])
			i = j
		case '{', '[':
			end, ok := int(match[i]), match[i] > 0
			if ok && end == i+1 { // empty
				b.WriteByte(c)
				b.WriteByte(src[end])
				i = end
				continue
			}
			b.WriteByte(c)
			if inline > 0 || (ok && !nested[i] && end-i <= inlineLimit) {
				inline++
				continue
			}
			depth++
			newline()
		case '}', ']':
			if inline > 0 {
				inline--
				b.WriteByte(c)
				continue
			}
			depth--
			newline()
			b.WriteByte(c)
		case ',':
			b.WriteByte(',')
			if inline > 0 {
				b.WriteByte(' ')
			} else {
				newline()
			}
		case ':':
			b.WriteString(": ")
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('\n')
	return b.Bytes()
}
