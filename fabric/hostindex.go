package fabric

import "slices"

// hostIndex answers host selectors without scanning every host: a fabric
// has thousands of hosts and a partition profile dozens of selectors, each
// evaluated by validation and twice by Resolve.
type hostIndex struct {
	hosts   []Host
	byName  map[string][]int            // host name → positions (duplicates are a validation error)
	byLabel map[string]map[string][]int // label → value → positions, ascending
}

func newHostIndex(hosts []Host) *hostIndex {
	x := &hostIndex{hosts: hosts, byName: make(map[string][]int, len(hosts)), byLabel: map[string]map[string][]int{}}
	for i, h := range hosts {
		x.byName[h.Name] = append(x.byName[h.Name], i)
		for k, v := range h.Labels {
			vals := x.byLabel[k]
			if vals == nil {
				vals = map[string][]int{}
				x.byLabel[k] = vals
			}
			vals[v] = append(vals[v], i)
		}
	}
	return x
}

// has says whether a host is called name.
func (x *hostIndex) has(name string) bool { return len(x.byName[name]) > 0 }

// selectHosts returns the hosts matching s (all labels equal, or named), in
// fabric order. A selector with neither labels nor names matches nothing.
func (x *hostIndex) selectHosts(s *Selector) []Host {
	if len(s.Names) == 0 && len(s.Labels) == 0 {
		return nil
	}
	// Candidates: the named hosts, else the hosts carrying the rarest of the
	// selector's label values. A label wanted empty also matches hosts
	// without it, which no posting list holds: scan everything then.
	var cand []int
	switch {
	case len(s.Names) > 0:
		for _, n := range s.Names {
			cand = append(cand, x.byName[n]...)
		}
		slices.Sort(cand)
		cand = slices.Compact(cand)
	case !wantsEmptyLabel(s):
		first := true
		for k, v := range s.Labels {
			if l := x.byLabel[k][v]; first || len(l) < len(cand) {
				cand, first = l, false
			}
		}
	default:
		cand = make([]int, len(x.hosts))
		for i := range cand {
			cand[i] = i
		}
	}
	var out []Host
hosts:
	for _, i := range cand {
		h := x.hosts[i]
		for k, v := range s.Labels {
			if h.Labels[k] != v {
				continue hosts
			}
		}
		out = append(out, h)
	}
	return out
}

func wantsEmptyLabel(s *Selector) bool {
	for _, v := range s.Labels {
		if v == "" {
			return true
		}
	}
	return false
}
