package output

import (
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
	if b, err := marshalFast(v); err != errFallback {
		return b, err
	}
	return marshalReflow(v)
}

// marshalReflow is MarshalJSON through encoding/json: for every type, and
// the definition marshalFast must agree with.
func marshalReflow(v any) ([]byte, error) {
	compact, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return IndentCompact(compact), nil
}

// IndentCompact reformats valid compact JSON (as json.Marshal writes it).
func IndentCompact(src []byte) []byte {
	// Pass 1: for every opening bracket, in order of appearance, where it
	// closes and whether it holds another container.
	type span struct {
		end    int32
		nested bool
	}
	spans := make([]span, 0, len(src)/16)
	stack := make([]int32, 0, 16)
	for i := 0; i < len(src); i++ {
		switch src[i] {
		case '"':
			i = stringEnd(src, i)
		case '{', '[':
			if n := len(stack); n > 0 {
				spans[stack[n-1]].nested = true
			}
			stack = append(stack, int32(len(spans)))
			spans = append(spans, span{end: -1})
		case '}', ']':
			if n := len(stack); n > 0 {
				spans[stack[n-1]].end = int32(i)
				stack = stack[:n-1]
			}
		}
	}
	// Pass 2: copy, breaking lines except inside short innermost containers.
	out := make([]byte, 0, len(src)+len(src)/2)
	depth, inline, next := 0, 0, 0
	newline := func() {
		out = append(out, '\n')
		for n := 2 * depth; n > 0; n -= len(spaces) {
			out = append(out, spaces[:min(n, len(spaces))]...)
		}
	}
	for i := 0; i < len(src); i++ {
		switch c := src[i]; c {
		case '"':
			j := stringEnd(src, i)
			out = append(out, src[i:min(j+1, len(src))]...)
			i = j
		case '{', '[':
			sp := spans[next]
			next++
			end := int(sp.end)
			if end == i+1 { // empty
				out = append(out, c, src[end])
				i = end
				continue
			}
			out = append(out, c)
			if inline > 0 || (end > 0 && !sp.nested && end-i <= inlineLimit) {
				inline++
				continue
			}
			depth++
			newline()
		case '}', ']':
			if inline > 0 {
				inline--
				out = append(out, c)
				continue
			}
			depth--
			newline()
			out = append(out, c)
		case ',':
			if inline > 0 {
				out = append(out, ',', ' ')
			} else {
				out = append(out, ',')
				newline()
			}
		case ':':
			out = append(out, ':', ' ')
		default: // a number or literal: copy up to the next structural byte
			j := i + 1
			for j < len(src) && !structural[src[j]] {
				j++
			}
			out = append(out, src[i:j]...)
			i = j - 1
		}
	}
	return append(out, '\n')
}

const spaces = "                                                                "

// structural marks the bytes that end a number or literal.
var structural = [256]bool{'"': true, '{': true, '}': true, '[': true, ']': true, ',': true, ':': true}

// stringEnd returns the index of the quote closing the string that opens at
// src[i], or len(src)-1 when it is unterminated. Strings here are short keys
// and values, for which a plain loop beats bytes.IndexByte.
func stringEnd(src []byte, i int) int {
	for j := i + 1; j < len(src); j++ {
		switch src[j] {
		case '\\':
			j++
		case '"':
			return j
		}
	}
	return len(src) - 1
}
