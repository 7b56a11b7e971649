package hostparse

import "testing"

// TestIBStatFragmentWithoutCA: a pasted port block without its "CA '…'"
// line is still read, under a Partial CA.
func TestIBStatFragmentWithoutCA(t *testing.T) {
	s, err := ParseIBStat(open(t, "ibstat/fragment_port_no_ca.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.CAs) != 1 || !s.CAs[0].Partial || len(s.CAs[0].Ports) != 1 {
		t.Fatalf("%+v", s.CAs)
	}
	if p := s.CAs[0].Ports[0]; p.Port != 1 || p.State != "Initializing" || p.PhysState != "LinkUp" || p.Rate != 400 {
		t.Errorf("%+v", p)
	}
}
