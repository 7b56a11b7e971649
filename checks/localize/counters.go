package localize

import (
	"slices"

	"github.com/fabricctl/fabricctl/fabric"
)

// Reading is one counter's running total at one endpoint at one moment
// (a switch port's FCS errors, a NIC's rx_crc_errors_phy).
type Reading struct {
	At    fabric.Endpoint `json:"at"`
	Kind  CounterKind     `json:"kind"`
	Name  string          `json:"name"`
	Value uint64          `json:"value"`
}

// Deltas turns two readings of the same counters, before and after the
// tests, into what SetCounters takes: read lists every endpoint whose
// counters were read both times, moved the counters that grew there.
// An endpoint read only once is not read (unknown, not clean), and so is
// one where any counter went backwards: its counters were cleared, or the
// device restarted, during the tests, so no difference says what
// happened. Read is sorted; moved follows after's order.
func Deltas(before, after []Reading) (read []fabric.Endpoint, moved []Counter) {
	type key struct {
		at   fabric.Endpoint
		name string
	}
	was := map[key]uint64{}
	for _, r := range before {
		was[key{r.At, r.Name}] = r.Value
	}
	cleared := map[fabric.Endpoint]bool{}
	for _, r := range after {
		if v, seen := was[key{r.At, r.Name}]; seen && r.Value < v {
			cleared[r.At] = true
		}
	}
	counted := map[fabric.Endpoint]bool{}
	for _, r := range after {
		v, seen := was[key{r.At, r.Name}]
		if !seen || cleared[r.At] {
			continue
		}
		counted[r.At] = true
		if r.Value > v {
			moved = append(moved, Counter{At: r.At, Kind: r.Kind, Name: r.Name, Delta: r.Value - v})
		}
	}
	for e := range counted {
		read = append(read, e)
	}
	slices.SortFunc(read, fabric.Endpoint.Compare)
	return read, moved
}
