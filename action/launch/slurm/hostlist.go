package slurm

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/fabricctl/fabricctl/internal/intset"
)

// ErrHostlist: a Slurm hostlist expression that cannot be read.
var ErrHostlist = errors.New("bad hostlist")

// maxExpand bounds how many names one hostlist may expand to (a typo like n[1-999999999] must not
// exhaust memory).
const maxExpand = 1 << 20

// ExpandHostlist reads a Slurm hostlist ("lab-h[1-4]", "gpu[001-003,007],login1") into names in
// the order written. A name may hold several bracket groups ("rack[0-1]_blade[0-2]", as
// slurm.conf(5) allows): the first varies slowest. Nested brackets are an error.
func ExpandHostlist(s string) ([]string, error) {
	var out []string
	for _, item := range splitTop(s) {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		names, err := expandItem(item, maxExpand-len(out))
		if err != nil {
			return nil, err
		}
		out = append(out, names...)
	}
	return out, nil
}

// expandItem expands one name of a hostlist into at most limit names.
func expandItem(item string, limit int) ([]string, error) {
	open := strings.IndexByte(item, '[')
	if open < 0 {
		if strings.ContainsAny(item, "]") {
			return nil, fmt.Errorf("%w: %q: unbalanced ]", ErrHostlist, item)
		}
		return []string{item}, nil
	}
	var out []string
	end := strings.IndexByte(item, ']')
	if end < open {
		return nil, fmt.Errorf("%w: %q: unbalanced [", ErrHostlist, item)
	}
	prefix, body, suffix := item[:open], item[open+1:end], item[end+1:]
	if strings.ContainsAny(body, "[") {
		return nil, fmt.Errorf("%w: %q: nested brackets", ErrHostlist, item)
	}
	if strings.HasPrefix(suffix, "[") {
		return nil, fmt.Errorf("%w: %q: bracket groups must be apart (rack[0-1]_blade[0-2])", ErrHostlist, item)
	}
	suffixes := []string{suffix}
	if strings.ContainsAny(suffix, "[]") {
		var err error
		if suffixes, err = expandItem(suffix, limit); err != nil {
			return nil, err
		}
	}
	for _, r := range strings.Split(body, ",") {
		lo, hi, isRange := strings.Cut(r, "-")
		if !isRange {
			hi = lo
		}
		a, err1 := strconv.ParseUint(lo, 10, 63)
		b, err2 := strconv.ParseUint(hi, 10, 63)
		if lo == "" || hi == "" || err1 != nil || err2 != nil || b < a {
			return nil, fmt.Errorf("%w: %q: range %q", ErrHostlist, item, r)
		}
		if b-a >= uint64(limit) || uint64(len(out))+(b-a+1)*uint64(len(suffixes)) > uint64(limit) {
			return nil, fmt.Errorf("%w: %q: more than %d names", ErrHostlist, item, maxExpand)
		}
		width := 0
		if len(lo) > 1 && lo[0] == '0' {
			width = len(lo)
		}
		for n := a; n <= b; n++ {
			for _, suf := range suffixes {
				out = append(out, fmt.Sprintf("%s%0*d%s", prefix, width, n, suf))
			}
		}
	}
	return out, nil
}

// splitTop splits at commas outside brackets.
func splitTop(s string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '[':
			depth++
		case ']':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}

// CompressHostlist writes names as a Slurm hostlist: names that differ only in a trailing number
// of the same width share a bracket group (lab-h[1-4], gpu[001-003,007]). Duplicates are dropped;
// ExpandHostlist(CompressHostlist(x)) holds the same set of names as x, in hostlist order.
func CompressHostlist(names []string) string {
	type key struct {
		prefix string
		width  int // digits, 0 = no leading zeros
	}
	groups := map[key][]uint64{}
	var plain []string
	seen := map[string]bool{}
	for _, n := range names {
		if n == "" || seen[n] {
			continue
		}
		seen[n] = true
		i := len(n)
		for i > 0 && n[i-1] >= '0' && n[i-1] <= '9' {
			i--
		}
		digits := n[i:]
		if digits == "" || len(digits) > 18 || strings.ContainsAny(n[:i], "[],") {
			plain = append(plain, n)
			continue
		}
		v, _ := strconv.ParseUint(digits, 10, 63)
		w := 0 // zero-padded numbers group by their width, so that they round-trip
		if len(digits) > 1 && digits[0] == '0' {
			w = len(digits)
		}
		groups[key{n[:i], w}] = append(groups[key{n[:i], w}], v)
	}
	var items []string
	for k, vs := range groups {
		sort.Slice(vs, func(a, b int) bool { return vs[a] < vs[b] })
		if len(vs) == 1 {
			items = append(items, fmt.Sprintf("%s%0*d", k.prefix, k.width, vs[0]))
			continue
		}
		var ranges []string
		for _, r := range intset.Runs(vs) {
			ranges = append(ranges, r.Pad(k.width))
		}
		items = append(items, k.prefix+"["+strings.Join(ranges, ",")+"]")
	}
	items = append(items, plain...)
	sort.Strings(items)
	return strings.Join(items, ",")
}
