package localize

import (
	"reflect"
	"testing"

	"github.com/fabricctl/fabricctl/fabric"
)

// TestDeltas: what grew is a delta; a port read once is unknown; a port
// whose counters went backwards (cleared during the tests) is unknown,
// not clean, and none of its counters is a delta.
func TestDeltas(t *testing.T) {
	p1 := fabric.Endpoint{Device: "leaf-01", Port: "swp1"}
	p2 := fabric.Endpoint{Device: "leaf-01", Port: "swp2"}
	p3 := fabric.Endpoint{Device: "leaf-02", Port: "swp3"}
	p4 := fabric.Endpoint{Device: "leaf-02", Port: "swp4"}
	before := []Reading{
		{At: p1, Kind: PhyErrors, Name: "fcs", Value: 10}, {At: p1, Kind: Discards, Name: "drops", Value: 5},
		{At: p2, Kind: PhyErrors, Name: "fcs", Value: 7},
		{At: p3, Kind: PhyErrors, Name: "fcs", Value: 900}, {At: p3, Kind: PhyErrors, Name: "symbol", Value: 3},
	}
	after := []Reading{
		{At: p1, Kind: PhyErrors, Name: "fcs", Value: 1851}, {At: p1, Kind: Discards, Name: "drops", Value: 5},
		{At: p2, Kind: PhyErrors, Name: "fcs", Value: 7},
		{At: p3, Kind: PhyErrors, Name: "fcs", Value: 2}, {At: p3, Kind: PhyErrors, Name: "symbol", Value: 40},
		{At: p4, Kind: PhyErrors, Name: "fcs", Value: 12},
	}
	read, moved := Deltas(before, after)
	if want := []fabric.Endpoint{p1, p2}; !reflect.DeepEqual(read, want) {
		t.Errorf("read %v, want %v", read, want)
	}
	if want := []Counter{{At: p1, Kind: PhyErrors, Name: "fcs", Delta: 1841}}; !reflect.DeepEqual(moved, want) {
		t.Errorf("moved %v, want %v", moved, want)
	}
	if read, moved := Deltas(nil, after); len(read)+len(moved) != 0 {
		t.Errorf("nothing before: read %v, moved %v, want nothing", read, moved)
	}
}
