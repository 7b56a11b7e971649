package intset

import (
	"fmt"
	"slices"
	"strings"
)

// Integer is any integer type.
type Integer interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64 | ~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64
}

// Run is a maximal range of consecutive integers, First ≤ Last.
type Run[T Integer] struct{ First, Last T }

// Runs sorts and de-duplicates a copy of v and splits it into maximal runs of
// consecutive values. v is not changed.
func Runs[T Integer](v []T) []Run[T] {
	s := slices.Compact(slices.Sorted(slices.Values(v)))
	var out []Run[T]
	for i := 0; i < len(s); {
		j := i
		for j+1 < len(s) && s[j+1] == s[j]+1 {
			j++
		}
		out = append(out, Run[T]{s[i], s[j]})
		i = j + 1
	}
	return out
}

// String is "7" for a single value and "3-5" for a range.
func (r Run[T]) String() string { return r.Pad(0) }

// Pad is String with every number zero-padded to width digits ("001-004").
func (r Run[T]) Pad(width int) string {
	if r.First == r.Last {
		return fmt.Sprintf("%0*d", width, r.First)
	}
	return fmt.Sprintf("%0*d-%0*d", width, r.First, width, r.Last)
}

// Strings is each run of v as String writes it.
func Strings[T Integer](v []T) []string {
	var out []string
	for _, r := range Runs(v) {
		out = append(out, r.String())
	}
	return out
}

// Format is v's runs joined by commas: [26 0 1 2 3 3] is "0-3,26"; an
// empty set is "".
func Format[T Integer](v []T) string { return strings.Join(Strings(v), ",") }
