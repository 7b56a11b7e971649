package fabric

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
)

// naiveSelect is the definition the index must agree with: every label
// equal (a missing label reads as ""), and named when names are given.
func naiveSelect(hosts []Host, s *Selector) []Host {
	var out []Host
	for _, h := range hosts {
		named := len(s.Names) == 0
		for _, n := range s.Names {
			named = named || n == h.Name
		}
		match := named && (len(s.Names) > 0 || len(s.Labels) > 0)
		for k, v := range s.Labels {
			match = match && h.Labels[k] == v
		}
		if match {
			out = append(out, h)
		}
	}
	return out
}

func TestHostIndexAgreesWithDefinition(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	vals := []string{"", "a", "b", "c"}
	for round := 0; round < 200; round++ {
		var hosts []Host
		for i := 0; i < rng.IntN(30); i++ {
			h := Host{Name: fmt.Sprintf("h%d", rng.IntN(25)), Labels: map[string]string{}} // names may repeat
			for _, k := range []string{"rack", "tenant"} {
				if rng.IntN(4) > 0 {
					h.Labels[k] = vals[rng.IntN(len(vals))]
				}
			}
			hosts = append(hosts, h)
		}
		x := newHostIndex(hosts)
		for q := 0; q < 20; q++ {
			s := &Selector{}
			for _, k := range []string{"rack", "tenant", "role"} {
				if rng.IntN(3) == 0 {
					if s.Labels == nil {
						s.Labels = map[string]string{}
					}
					s.Labels[k] = vals[rng.IntN(len(vals))]
				}
			}
			for i := 0; i < rng.IntN(3); i++ {
				s.Names = append(s.Names, fmt.Sprintf("h%d", rng.IntN(25)))
			}
			if got, want := x.selectHosts(s), naiveSelect(hosts, s); !reflect.DeepEqual(got, want) {
				t.Fatalf("selector %+v over %+v:\ngot  %v\nwant %v", s, hosts, got, want)
			}
		}
	}
}
