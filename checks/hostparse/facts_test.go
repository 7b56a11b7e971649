package hostparse

import (
	"errors"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/checks/pcitopo"
	"github.com/google/go-cmp/cmp"
)

func TestDevInfoFacts(t *testing.T) {
	d, err := ParseDevInfo(open(t, "devinfo/roce_active_and_ib_down.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Devices) != 2 || d.Devices[0].Ports[0].State != "PORT_ACTIVE" || d.Devices[0].Ports[0].LinkLayer != "Ethernet" ||
		d.Devices[1].Ports[0].PortLID != 65535 || d.Devices[1].VendorPartID != 4129 {
		t.Errorf("devices %+v", d.Devices)
	}
	v, err := ParseDevInfo(open(t, "devinfo/verbose_rxe_gids.txt"))
	if err != nil {
		t.Fatal(err)
	}
	p := v.Devices[0].Ports[0]
	if p.ActiveMTU != 1024 || p.PhysState != "LINK_UP" || len(p.GIDs) != 2 || p.GIDs[1].Type != "RoCE v2" || len(v.Devices[0].Flags["device_cap_flags"]) != 6 {
		t.Errorf("verbose port %+v", p)
	}
	w, _ := ParseDevInfo(strings.NewReader("hca_id: mlx5_0\n\tvendor_part_id: lots\n\tport: 1\n\t\tactive_mtu: big\n"))
	if len(w.Warnings) != 2 || !strings.HasPrefix(w.Warnings[0], "line 2:") || !strings.HasPrefix(w.Warnings[1], "line 4:") {
		t.Errorf("warnings %q", w.Warnings)
	}
}

func TestIBStatFacts(t *testing.T) {
	s, err := ParseIBStat(open(t, "ibstat/roce_and_ib.txt"))
	if err != nil {
		t.Fatal(err)
	}
	ib := s.CAs[1]
	if ib.NumPorts != 2 || len(ib.Ports) != 2 || ib.Ports[0].Rate != 200 || ib.Ports[0].SMLID != 1 || ib.Ports[1].PhysState != "Polling" {
		t.Errorf("CA %+v", ib)
	}
	w, err := ParseIBStat(strings.NewReader("CA 'mlx5_0'\n\tPort 1:\n\t\tRate: fast\n\t\tBase lid: ...\nibpanic: stat of IB device 'mlx5_1' failed\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(w.Warnings) != 2 || !strings.HasPrefix(w.Warnings[0], "line 3:") || len(w.Errors) != 1 {
		t.Errorf("warnings %q errors %q", w.Warnings, w.Errors)
	}
}

func TestShowGIDsRoCEv2(t *testing.T) {
	g, err := ParseShowGIDs(open(t, "showgids/roce_v2_ipv4_and_shared_ip.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if g.Found != 10 || len(g.Entries) != 10 || len(g.Warnings) != 0 {
		t.Fatalf("found %d entries %d warnings %q", g.Found, len(g.Entries), g.Warnings)
	}
	e, err := g.RoCEv2IPv4("mlx5_0", 1, "")
	if err != nil || e.Index != 3 || e.IPv4 != "10.0.1.11" {
		t.Errorf("mlx5_0: %+v %v", e, err)
	}
	if _, err := g.RoCEv2IPv4("mlx5_1", 1, ""); !errors.Is(err, ErrAmbiguousGID) || !strings.Contains(err.Error(), "3 (10.0.2.11 on vxlan100), 5 (10.0.2.11 on bond0)") {
		t.Errorf("mlx5_1 without netdev: %v", err)
	}
	if e, err := g.RoCEv2IPv4("mlx5_1", 1, "bond0"); err != nil || e.Index != 5 {
		t.Errorf("mlx5_1 on bond0: %+v %v", e, err)
	}
	if _, err := g.RoCEv2IPv4("mlx5_2", 1, ""); !errors.Is(err, ErrNoGID) {
		t.Errorf("mlx5_2: %v", err)
	}
	m, _ := ParseShowGIDs(strings.NewReader("DEV\tPORT\tINDEX\tGID\nmlx5_0\t1\t0\tfe80:0000:0000:0000:0000:0000:0000:0001\t\t\tv2\teth0\nn_gids_found=3\n"))
	if len(m.Warnings) != 1 || !strings.Contains(m.Warnings[0], "n_gids_found=3 but 1 rows") {
		t.Errorf("count mismatch warnings %q", m.Warnings)
	}
}

func TestIBDev2NetdevFacts(t *testing.T) {
	got, err := ParseIBDev2Netdev(open(t, "ibdev2netdev/verbose.txt"))
	if err != nil {
		t.Fatal(err)
	}
	want := []NetdevMap{
		{PCI: "0000:17:00.0", IBDev: "mlx5_0", Port: 1, PortState: "ACTIVE", Netdev: "ibp23s0", State: "Up"},
		{PCI: "0000:63:00.0", IBDev: "mlx5_1", Port: 1, PortState: "DOWN", Netdev: "ens2f0np0", State: "Down"},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

func TestTopoLookups(t *testing.T) {
	topo, err := ParseTopo(open(t, "topo/four_gpus_two_nics_legend.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		a, b string
		want pcitopo.Path
	}{
		{"GPU0", "mlx5_0", pcitopo.PIX}, {"GPU1", "NIC0", pcitopo.PXB}, {"mlx5_3", "GPU2", pcitopo.PHB},
		{"GPU3", "mlx5_3", pcitopo.NODE}, {"GPU0", "mlx5_3", pcitopo.SYS}, {"NIC0", "NIC0", pcitopo.Self},
	} {
		if p, err := topo.Path(c.a, c.b); err != nil || p != c.want {
			t.Errorf("Path(%s, %s) = %s %v, want %s", c.a, c.b, p, err, c.want)
		}
	}
	if c, ok := topo.Cell("GPU0", "GPU3"); !ok || c != "NV12" {
		t.Errorf("Cell(GPU0, GPU3) = %q %v", c, ok)
	}
	if _, err := topo.Path("GPU0", "GPU1"); !errors.Is(err, pcitopo.ErrNotPath) {
		t.Errorf("NVLink as PCIe path: %v", err)
	}
	if _, err := topo.Path("GPU0", "mlx5_9"); !errors.Is(err, ErrUnknownDevice) {
		t.Errorf("unknown NIC: %v", err)
	}
	if topo.NICName("NIC1") != "mlx5_3" || topo.NICName("GPU0") != "GPU0" || topo.Rows[2].CPUAffinity != "32-63" || topo.Rows[2].NUMAAffinity != "1" {
		t.Errorf("legend/affinity %+v", topo)
	}
	if len(topo.Warnings) != 0 {
		t.Errorf("warnings on a symmetric matrix: %q", topo.Warnings)
	}
	bad, _ := ParseTopo(strings.NewReader("\tGPU0\tNIC0\nGPU0\t X \tPIX\nNIC0\tSYS\t X \n"))
	if len(bad.Warnings) != 2 {
		t.Errorf("asymmetric matrix warnings %q", bad.Warnings)
	}
	if p, err := bad.Path("GPU0", "NIC0"); err != nil || p != pcitopo.PIX {
		t.Errorf("old SOC/asymmetric lookup %s %v", p, err)
	}
	old, _ := ParseTopo(strings.NewReader("\tGPU0\tmlx5_0\tCPU Affinity\nGPU0\t X \tSOC\t0-7\nmlx5_0\tSOC\t X \n"))
	if p, err := old.Path("GPU0", "mlx5_0"); err != nil || p != pcitopo.SYS {
		t.Errorf("SOC = %s %v, want SYS", p, err)
	}
}

func TestPCIProblems(t *testing.T) {
	devs, err := ParsePCI(open(t, "lspci/nic_ok_and_gpu_downgraded.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if len(devs) != 2 || *devs[1].NUMANode != 1 || devs[0].Driver != "mlx5_core" {
		t.Fatalf("devices %+v", devs)
	}
	if p := devs[0].Problems(); len(p) != 0 {
		t.Errorf("healthy NIC has problems: %q", p)
	}
	want := []string{
		"0000:9d:00.0: link speed 16GT/s is below its capability 32GT/s",
		"0000:9d:00.0: link width x8 is below its capability x16",
		"0000:9d:00.0: AER uncorrectable errors: CmpltTO",
		"0000:9d:00.0: AER correctable errors: RxErr BadDLLP",
	}
	if d := cmp.Diff(want, devs[1].Problems()); d != "" {
		t.Errorf("GPU problems (-want +got):\n%s", d)
	}
}

func TestNoData(t *testing.T) {
	for kind, parse := range parsers {
		for _, in := range []string{"", "\n\n", "$ true\nhello\n"} {
			if _, err := parse(strings.NewReader(in)); !errors.Is(err, ErrNoData) {
				t.Errorf("%s(%q) = %v, want ErrNoData", kind, in, err)
			}
		}
		long := strings.Repeat("x", maxLine+1)
		if _, err := parse(strings.NewReader("a\n" + long)); err == nil || !strings.Contains(err.Error(), "line 2") {
			t.Errorf("%s over-long line: %v", kind, err)
		}
	}
}
