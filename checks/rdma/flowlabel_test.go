package rdma

import (
	"fmt"
	"slices"
	"testing"

	"github.com/fabricctl/fabricctl/checks/perftest"
)

func TestUDPSourcePort(t *testing.T) {
	// Worked by hand from rdma_flow_label_to_udp_sport (include/rdma/ib_verbs.h):
	// ((fl & 0x3fff) ^ ((fl & 0xfc000) >> 14)) | 0xc000.
	cases := []struct {
		label int
		want  uint16
	}{
		{1, 0xc001},
		{0x1a2b, 0xda2b},     // the upper 6 bits are 0: the low 14 bits pass
		{0x4000, 0xc001},     // bit 14 folds onto bit 0: the same port as label 1
		{0x4001, 0xc000},     // … and cancels it
		{0xfc000, 0xc03f},    // the upper 6 bits alone land in the low 6
		{0x12345, 0xe341},    // 0x2345 ^ 0x4 = 0x2341
		{0xfffff, 0xffc0},    // 0x3fff ^ 0x3f
		{0x3fff, 0xffff},     // the highest port
		{0x8000 | 7, 0xc005}, // 7 ^ 2
	}
	for _, c := range cases {
		got, ok := UDPSourcePort(c.label)
		if !ok || got != c.want {
			t.Errorf("UDPSourcePort(%#x) = %#x, %v; want %#x", c.label, got, ok, c.want)
		}
	}
	for _, bad := range []int{0, -1, FlowLabelAuto, 0x100000} {
		if p, ok := UDPSourcePort(bad); ok {
			t.Errorf("UDPSourcePort(%#x) = %#x, true; want no port", bad, p)
		}
	}
}

func TestPairFlowLabel(t *testing.T) {
	a, b := "gpu-01/mlx5_0", "gpu-02/mlx5_0"
	fl := PairFlowLabel(a, b, 0)
	if fl != PairFlowLabel(a, b, 0) {
		t.Fatal("the same pair got two labels")
	}
	if fl < 1 || fl > perftest.MaxFlowLabel {
		t.Fatalf("label %#x is outside 1..0xfffff", fl)
	}
	if fl == PairFlowLabel(b, a, 0) {
		t.Errorf("both directions got label %#x", fl)
	}
	if fl == PairFlowLabel(a, b, 1) {
		t.Errorf("salt 1 kept label %#x", fl)
	}
	// Spread: 1,000 pairs of a 64-host fleet land on many source ports.
	ports := map[uint16]bool{}
	for i := range 32 {
		for j := range 32 {
			if i == j || len(ports) >= 1000 {
				continue
			}
			p, ok := UDPSourcePort(PairFlowLabel(fmt.Sprintf("gpu-%02d/mlx5_0", i), fmt.Sprintf("gpu-%02d/mlx5_0", 32+j), 0))
			if !ok {
				t.Fatal("a pair label has no port")
			}
			ports[p] = true
		}
	}
	if len(ports) < 900 {
		t.Errorf("992 pairs share %d source ports; want them spread", len(ports))
	}
}

func TestPinned(t *testing.T) {
	g := 3
	srv := Endpoint{Host: "gpu-01", Device: "mlx5_0", Address: "10.0.0.1", GIDIndex: &g}
	cli := Endpoint{Host: "gpu-02", Device: "mlx5_0", Address: "10.0.0.2", GIDIndex: &g}
	auto := Test{Test: perftest.WriteBW, FlowLabel: FlowLabelAuto}
	want := PairFlowLabel("gpu-02/mlx5_0", "gpu-01/mlx5_0", 0)
	j := Job{Server: srv, Client: cli, Test: auto, TCPPort: 18600}
	if got := j.Pinned().FlowLabel; got != want {
		t.Fatalf("Pinned().FlowLabel = %#x, want %#x", got, want)
	}
	for _, s := range []perftest.Spec{j.ServerSpec(), j.ClientSpec()} {
		if s.FlowLabel != want {
			t.Errorf("%+v: flow label %#x, want %#x on both sides", s, s.FlowLabel, want)
		}
		argv, err := perftest.Args(s)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(argv, fmt.Sprintf("--flow_label=%d", want)) {
			t.Errorf("argv %q has no --flow_label=%d", argv, want)
		}
	}
	r := PairRun{Server: srv, Client: cli, Test: auto}
	if fl, sport, ok := r.FlowLabel(); !ok || fl != want {
		t.Errorf("PairRun.FlowLabel = %#x, %#x, %v; want %#x", fl, sport, ok, want)
	} else if p, _ := UDPSourcePort(want); p != sport {
		t.Errorf("PairRun.FlowLabel sport %#x, want %#x", sport, p)
	}

	none := []struct {
		name string
		job  Job
	}{
		{"loopback", Job{Server: srv, Client: srv, Test: auto}},
		{"infiniband", Job{Server: Endpoint{Host: "ib-01", Device: "mlx5_0"}, Client: Endpoint{Host: "ib-02", Device: "mlx5_0"}, Test: auto}},
		{"rdma_cm", Job{Server: srv, Client: cli, Test: Test{Test: perftest.WriteBW, FlowLabel: FlowLabelAuto, RDMACM: true}}},
		{"off", Job{Server: srv, Client: cli, Test: Test{Test: perftest.WriteBW}}},
	}
	for _, c := range none {
		if fl := c.job.Pinned().FlowLabel; fl != 0 {
			t.Errorf("%s: Pinned().FlowLabel = %#x, want none", c.name, fl)
		}
		if s := c.job.ClientSpec(); s.FlowLabel != 0 {
			t.Errorf("%s: client spec carries flow label %#x", c.name, s.FlowLabel)
		}
	}
	fixed := Job{Server: srv, Client: cli, Test: Test{Test: perftest.WriteBW, FlowLabel: 0x1a2b}}
	if s := fixed.ServerSpec(); s.FlowLabel != 0x1a2b {
		t.Errorf("a fixed label became %#x", s.FlowLabel)
	}
	if got := DescribeFlowLabel(0x1a2b); got != "flow label 0x01a2b → UDP source port 0xda2b (55851)" {
		t.Errorf("DescribeFlowLabel = %q", got)
	}
}
