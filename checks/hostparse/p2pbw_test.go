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

	// Published outputs (README.md): 8 A100s on NVSwitch, whose pairs across
	// the two halves of the board differ (GPU4→GPU5 517.80 GB/s both ways,
	// GPU0→GPU1 416.29); two GeForce cards without peer access.
	a100, err := ParseP2PBandwidth(open(t, "p2pbw/real_a100_sxm4_8gpu_nvswitch.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if len(a100.GPUs) != 8 || a100.GPUs[7] != (P2PGPU{Index: 7, Name: "NVIDIA A100-SXM4-80GB", BusID: "c4"}) || !a100.Access[6][2] || a100.Truncated || len(a100.Matrices) != 9 {
		t.Errorf("%+v", a100)
	}
	if m, ok := a100.Matrix("bandwidth", true, true); !ok {
		t.Error("no bidirectional P2P matrix")
	} else if v, _ := m.At(4, 5); v != 517.80 {
		t.Errorf("bidirectional 4→5 = %v", v)
	} else if v, _ := m.At(0, 1); v != 416.29 {
		t.Errorf("bidirectional 0→1 = %v", v)
	}
	rtx, err := ParseP2PBandwidth(open(t, "p2pbw/real_rtx5090_pair_no_peer.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if len(rtx.GPUs) != 2 || rtx.Access[0][1] || rtx.Access[1][0] || !rtx.Access[0][0] {
		t.Errorf("%+v", rtx)
	}
	if m, ok := rtx.Matrix("bandwidth", true, false); !ok || m.Title != "Unidirectional P2P=Enabled Bandwidth (P2P Writes)" {
		t.Errorf("%+v", m)
	} else if v, _ := m.At(1, 0); v != 38.66 {
		t.Errorf("unidirectional 1→0 = %v", v)
	}

	if _, err := ParseP2PBandwidth(strings.NewReader("Device: 0 is not here\n")); !errors.Is(err, ErrNoData) {
		t.Errorf("got %v", err)
	}
}
