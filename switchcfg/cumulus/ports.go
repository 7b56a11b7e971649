package cumulus

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/switchcfg"
)

// portRE is a Cumulus front-panel port: swpN or a breakout swpNsM.
var portRE = regexp.MustCompile(`^swp[1-9][0-9]{0,3}(s[0-9]{1,2})?$`)

var checkPort = switchcfg.PortPattern(Platform, portRE, "swp1 or swp1s0")

// ifaceRE is one interface name as NVUE accepts it in a list.
var ifaceRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_.:]{0,30}$`)

// maxRange bounds one range so a typo cannot allocate millions of names.
const maxRange = 4096

// ExpandInterfaces expands an NVUE interface list ("swp1-4,swp6",
// "swp1s0-3", "swp1-swp4", "eth0") into names, in the order written.
func ExpandInterfaces(list string) ([]string, error) {
	var out []string
	for _, part := range strings.Split(list, ",") {
		part = strings.TrimSpace(part)
		first, last, isRange := strings.Cut(part, "-")
		if !ifaceRE.MatchString(first) {
			return nil, fmt.Errorf("%s is not an interface name or range", fabric.Clip(part))
		}
		if !isRange {
			out = append(out, first)
			continue
		}
		prefix, lo, ok := splitLastNumber(first)
		if !ok {
			return nil, fmt.Errorf("interface range %s: %s does not end in a number", fabric.Clip(part), fabric.Clip(first))
		}
		hi, err := strconv.Atoi(last)
		if err != nil {
			p2, n2, ok2 := splitLastNumber(last)
			if !ok2 || p2 != prefix {
				return nil, fmt.Errorf("interface range %s: the end must be a number or %sN", fabric.Clip(part), fabric.Clip(prefix))
			}
			hi = n2
		}
		if hi < lo || hi-lo >= maxRange {
			return nil, fmt.Errorf("interface range %s runs backwards or is too long", fabric.Clip(part))
		}
		for i := lo; i <= hi; i++ {
			out = append(out, prefix+strconv.Itoa(i))
		}
	}
	return out, nil
}

// CompressInterfaces writes names as an NVUE range list: [swp1 swp2 swp3
// swp5 swp1s0 swp1s1] → "swp1-3,swp5,swp1s0-1". Names sharing a prefix
// before their last number fold into ranges; prefixes come in natural order.
func CompressInterfaces(names []string) string {
	byPrefix := map[string][]int{}
	var prefixes, plain []string
	for _, n := range names {
		prefix, num, ok := splitLastNumber(n)
		if !ok {
			plain = append(plain, n)
			continue
		}
		if _, seen := byPrefix[prefix]; !seen {
			prefixes = append(prefixes, prefix)
		}
		byPrefix[prefix] = append(byPrefix[prefix], num)
	}
	fabric.SortPorts(prefixes)
	fabric.SortPorts(plain)
	var parts []string
	for _, prefix := range prefixes {
		for _, r := range strings.Split(switchcfg.FormatIntSet(byPrefix[prefix]), ",") {
			parts = append(parts, prefix+r)
		}
	}
	parts = append(parts, plain...)
	fabric.SortPorts(parts)
	return strings.Join(parts, ",")
}

func splitLastNumber(name string) (string, int, bool) {
	i := len(name)
	for i > 0 && name[i-1] >= '0' && name[i-1] <= '9' {
		i--
	}
	if i == len(name) || i == 0 {
		return name, 0, false
	}
	n, err := strconv.Atoi(name[i:])
	if err != nil || (len(name)-i > 1 && name[i] == '0') {
		return name, 0, false
	}
	return name[:i], n, true
}
