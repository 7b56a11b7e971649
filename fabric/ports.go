package fabric

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

var portRangeRE = regexp.MustCompile(`^(.*?)(\d+)-(\d+)$`)

// maxPortsPerRange bounds what one range may expand to.
const maxPortsPerRange = 4096

// ExpandPorts expands one port entry: "swp1-4" → swp1 swp2 swp3 swp4,
// "Ethernet1/1-2" → Ethernet1/1 Ethernet1/2; anything else is returned as is.
func ExpandPorts(s string) ([]string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, fmt.Errorf("empty port name")
	}
	if strings.ContainsAny(s, " \t,;'\"$`\\") {
		return nil, fmt.Errorf("%q is not a port name or range", clip(s))
	}
	m := portRangeRE.FindStringSubmatch(s)
	if m == nil {
		return []string{s}, nil
	}
	lo, err1 := strconv.Atoi(m[2])
	hi, err2 := strconv.Atoi(m[3])
	if err1 != nil || err2 != nil || lo > hi {
		return nil, fmt.Errorf("port range %q runs backwards or is not numeric", clip(s))
	}
	// hi-lo cannot overflow (both are non-negative); hi-lo+1 can.
	if hi-lo >= maxPortsPerRange {
		return nil, fmt.Errorf("port range %s expands to more than %d ports", clip(s), maxPortsPerRange)
	}
	out := make([]string, 0, hi-lo+1)
	for k := 0; k <= hi-lo; k++ { // i <= hi would never end at the largest int
		out = append(out, m[1]+strconv.Itoa(lo+k))
	}
	return out, nil
}

// SortPorts sorts port names naturally (swp2 before swp10, Ethernet1/2 before Ethernet1/10).
func SortPorts(ports []string) {
	sort.SliceStable(ports, func(i, j int) bool { return naturalLess(ports[i], ports[j]) })
}

func naturalLess(a, b string) bool {
	for a != "" && b != "" {
		da, db := isDigit(a[0]), isDigit(b[0])
		if da && db {
			na, ra := leadingNumber(a)
			nb, rb := leadingNumber(b)
			if na != nb {
				return na < nb
			}
			a, b = ra, rb
			continue
		}
		if a[0] != b[0] {
			return a[0] < b[0]
		}
		a, b = a[1:], b[1:]
	}
	return len(a) < len(b)
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func leadingNumber(s string) (int, string) {
	i := 0
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	n, _ := strconv.Atoi(s[:min(i, 9)])
	return n, s[i:]
}
