package hostparse

import "testing"

// TestIBLinkInfoPeersAndHints: every link line gives its peer (LID, port,
// name) or none (`[  ] "" ( )`), and iblinkinfo's "Could be …" hint.
func TestIBLinkInfoPeersAndHints(t *testing.T) {
	li, err := ParseIBLinkInfo(open(t, "iblinkinfo/switch_unconnected_and_degraded.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if len(li.Nodes) != 2 || li.Nodes[0].Type != "Switch" || li.Nodes[0].Name != "spine-01" || len(li.Nodes[0].Links) != 5 {
		t.Fatalf("%+v", li.Nodes)
	}
	sw := li.Nodes[0].Links
	if l := sw[0]; !l.Connected() || l.PeerLID != 12 || l.PeerPort != 1 || l.Peer != "gpu-11 HCA-1" || l.CouldBe != "" {
		t.Errorf("port 1: %+v", l)
	}
	if l := sw[1]; l.Width != "1X" || l.CouldBe != "4X" {
		t.Errorf("port 2: %+v", l)
	}
	if l := sw[2]; l.LaneGbps != 25.78125 || l.CouldBe != "53.125 Gbps" {
		t.Errorf("port 3: %+v", l)
	}
	if l := sw[3]; l.Connected() || l.State != "Down" || l.PhysState != "Polling" {
		t.Errorf("port 4: %+v", l)
	}
	if l := sw[4]; l.State != "Armed" || !l.Connected() {
		t.Errorf("port 5: %+v", l)
	}
	if l := li.Nodes[1].Links[0]; li.Nodes[1].Type != "CA" || l.Connected() || l.State != "Down" {
		t.Errorf("CA: %+v", li.Nodes[1])
	}
}
