package hostparse

import (
	"errors"
	"strings"
	"testing"
)

// TestP2PBandwidth pins what each p2pBandwidthLatencyTest capture says:
// peer access per pair, the matrices' values, a capture cut inside a matrix.
func TestP2PBandwidth(t *testing.T) {
	nv, err := ParseP2PBandwidth(open(t, "p2pbw/h200_pair_nvlink.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if len(nv.GPUs) != 2 || nv.GPUs[1] != (P2PGPU{Index: 1, Name: "NVIDIA H200", BusID: "43"}) || !nv.Access[0][1] || !nv.Access[1][0] || nv.Truncated {
		t.Errorf("%+v", nv)
	}
	// 5 bandwidth matrices (connectivity, 2 uni, 2 bi) + 2 latency matrices × (GPU, CPU).
	if len(nv.Matrices) != 9 {
		t.Errorf("%d matrices", len(nv.Matrices))
	}
	if m, ok := nv.Matrix("bandwidth", true, true); !ok || m.Title != "Bidirectional P2P=Enabled Bandwidth" {
		t.Errorf("%+v", m)
	} else if v, _ := m.At(0, 1); v != 733.96 {
		t.Errorf("bidirectional 0→1 = %v", v)
	}
	if m, ok := nv.Matrix("latency", true, false); !ok || m.Title != "P2P=Enabled Latency (P2P Writes) GPU" {
		t.Errorf("%+v", m)
	}

	pc, err := ParseP2PBandwidth(open(t, "p2pbw/pcie_four_gpus_partial_access.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if !pc.Access[0][1] || pc.Access[0][2] || pc.Access[3][1] || !pc.Access[3][2] {
		t.Errorf("access %v", pc.Access)
	}

	cut, err := ParseP2PBandwidth(open(t, "p2pbw/v100_cut_in_matrix.txt"))
	if err != nil {
		t.Fatal(err)
	}
	m, ok := cut.Matrix("bandwidth", true, true)
	if !cut.Truncated || !ok || len(m.Values) != 2 || len(m.Values[1]) != 1 {
		t.Errorf("truncated %v %+v", cut.Truncated, m)
	}
	if _, ok := m.At(1, 2); ok {
		t.Error("a cell the capture cut off has a value")
	}

	if _, err := ParseP2PBandwidth(strings.NewReader("Device: 0 is not here\n")); !errors.Is(err, ErrNoData) {
		t.Errorf("got %v", err)
	}
}
