package hostparse

import (
	"bytes"
	"testing"

	"github.com/fabricctl/fabricctl/checks/pcitopo"
	"github.com/fabricctl/fabricctl/internal/testutil"
)

// hostCorpus says, for every file of corpus/validation/host, which parser
// reads it and what it must find there. Files for tools fabricctl does not
// parse (nvidia-smi nvlink, iblinkinfo) are listed with an empty kind, so a new
// capture cannot slip through untested.
var hostCorpus = map[string]struct {
	kind  string
	check func(t *testing.T, v any)
}{
	"h01_ibv_devinfo_roce_port_down_mtu1024_and_cx7.txt": {"devinfo", func(t *testing.T, v any) {
		d := v.(*DevInfo)
		p := d.Devices[0].Ports[0]
		if d.Devices[0].ID != "mlx5_12" || p.State != "PORT_DOWN" || p.ActiveMTU != 1024 || len(d.Devices) != 2 || d.Devices[1].VendorPartID != 4129 {
			t.Errorf("%+v", d)
		}
	}},
	"h02_ibv_devinfo_roce_active_cx7.txt": {"devinfo", func(t *testing.T, v any) {
		d := v.(*DevInfo)
		if !d.Devices[0].Partial || d.Devices[1].ID != "mlx5_2" || d.Devices[1].Ports[0].State != "PORT_ACTIVE" || d.Devices[2].FWVer != "16.35.4030" {
			t.Errorf("%+v", d)
		}
	}},
	"h03_ibv_devinfo_ib_active_with_sm_lid.txt": {"devinfo", func(t *testing.T, v any) {
		d := v.(*DevInfo)
		if p := d.Devices[1].Ports[0]; p.SMLID != 1 || p.PortLID != 1690 || p.LinkLayer != "InfiniBand" {
			t.Errorf("%+v", p)
		}
	}},
	"h04_ibv_devinfo_v_device_caps_tabs.txt": {"devinfo", func(t *testing.T, v any) {
		d := v.(*DevInfo).Devices[0]
		if d.ID != "mlx5_1" || d.Attrs["max_qp"] != "262144" || len(d.Flags["device_cap_flags"]) != 9 || len(d.Flags["device_cap_exp_flags"]) != 16 {
			t.Errorf("%+v", d)
		}
	}},
	"h05_ibv_devinfo_v_roce_port_gid_table.txt": {"devinfo", func(t *testing.T, v any) {
		p := v.(*DevInfo).Devices[0].Ports[0]
		if p.Port != 1 || p.ActiveSpeed != "25.0 Gbps (32)" || len(p.GIDs) != 2 || p.GIDs[0].Index != 14 || p.GIDs[1].GID != "0000:0000:0000:0000:0000:ffff:c0a8:0606" {
			t.Errorf("%+v", p)
		}
	}},
	"h06a_ibv_devinfo_ib_active_cx7_end_of_listing.txt": {"devinfo", func(t *testing.T, v any) {
		d := v.(*DevInfo)
		if last := d.Devices[len(d.Devices)-1]; last.ID != "mlx5_13" || last.Ports[0].SMLID != 515 {
			t.Errorf("%+v", last)
		}
	}},
	"h06b_ibv_devinfo_ib_port_down_lid_65535.txt": {"devinfo", func(t *testing.T, v any) {
		d := v.(*DevInfo)
		if d.Devices[0].Partial || d.Devices[0].ID != "mlx5_0" || d.Devices[0].Ports[0].PortLID != 65535 {
			t.Errorf("%+v", d)
		}
	}},
	"h07_ibstat_roce_200_and_down_disabled.txt": {"ibstat", func(t *testing.T, v any) {
		s := v.(*IBStat)
		if len(s.CAs) != 3 || s.CAs[0].Ports[0].Rate != 200 || s.CAs[2].Ports[0].PhysState != "Disabled" || s.CAs[2].Type != "MT4125" {
			t.Errorf("%+v", s)
		}
	}},
	"h08_ibstat_roce_100_tabs_port_guid_zero.txt": {"ibstat", func(t *testing.T, v any) {
		s := v.(*IBStat)
		if s.CAs[0].Ports[0].Rate != 100 || s.CAs[0].Ports[0].PortGUID != "0x0000000000000000" || s.CAs[0].Ports[0].LinkLayer != "Ethernet" {
			t.Errorf("%+v", s)
		}
	}},
	"h09_ibstat_hdr_ib_200_and_down_disabled_rate10.txt": {"ibstat", func(t *testing.T, v any) {
		s := v.(*IBStat)
		if p := s.CAs[1].Ports[0]; p.State != "Down" || p.Rate != 10 || p.BaseLID != 65535 {
			t.Errorf("%+v", p)
		}
	}},
	"h10_ibstat_ndr_ib_400.txt": {"ibstat", func(t *testing.T, v any) {
		if p := v.(*IBStat).CAs[0].Ports[0]; p.Rate != 400 || p.SMLID != 1 || p.LinkLayer != "InfiniBand" {
			t.Errorf("%+v", p)
		}
	}},
	"h11_ibstat_ndr_single_ca_elided.txt": {"ibstat", func(t *testing.T, v any) {
		if s := v.(*IBStat); len(s.CAs) != 1 || s.CAs[0].Name != "mlx5_5" || s.CAs[0].Ports[0].BaseLID != 987 {
			t.Errorf("%+v", s)
		}
	}},
	"h12_ibstat_bluefield3_bond_roce_200.txt": {"ibstat", func(t *testing.T, v any) {
		if s := v.(*IBStat); s.CAs[0].Name != "mlx5_bond_0" || s.CAs[0].Type != "MT41692" || s.CAs[0].HardwareVersion != "1" {
			t.Errorf("%+v", s)
		}
	}},
	"h13_ibstat_partial_then_ibpanic.txt": {"ibstat", func(t *testing.T, v any) {
		s := v.(*IBStat)
		if len(s.Errors) != 1 || s.CAs[0].Ports[0].BaseLID != 13305 || s.CAs[0].Type != "..." {
			t.Errorf("%+v", s)
		}
	}},
	"h14_ibdev2netdev_h100_ib_plus_cx6_eth.txt": {"ibdev2netdev", func(t *testing.T, v any) {
		m := v.([]NetdevMap)
		if len(m) != 12 || m[1].Netdev != "enp27s0f0np0" || m[1].State != "Up" || m[0].State != "Down" {
			t.Errorf("%+v", m)
		}
	}},
	"h15_show_gids_single_dev_v1_v2_ipv4_spaces.txt": {"showgids", func(t *testing.T, v any) {
		g := v.(*ShowGIDs)
		if e, err := g.RoCEv2IPv4("mlx5_0", 1, ""); err != nil || e.Index != 5 || e.Netdev != "ens1f0" || g.Found != 6 {
			t.Errorf("%+v %v", e, err)
		}
	}},
	"h16_show_gids_pod_macvlan_idx4to7_tabs.txt": {"showgids", func(t *testing.T, v any) {
		g := v.(*ShowGIDs)
		if e, err := g.RoCEv2IPv4("mlx5_1", 1, ""); err != nil || e.Index != 7 || e.IPv4 != "10.152.4.12" || !g.Truncated {
			t.Errorf("%+v %v truncated=%v", e, err, g.Truncated)
		}
	}},
	"h17_show_gids_empty_n_gids_found_0.txt": {"showgids", func(t *testing.T, v any) {
		g := v.(*ShowGIDs)
		if _, err := g.RoCEv2IPv4("mlx5_0", 1, ""); len(g.Entries) != 0 || g.Found != 0 || err == nil {
			t.Errorf("%+v", g)
		}
	}},
	"h18_show_gids_qedr_old_format_no_ver.txt": {"showgids", func(t *testing.T, v any) {
		g := v.(*ShowGIDs)
		if len(g.Entries) != 2 || g.Entries[1].IPv4 != "192.168.10.100" || g.Entries[1].Version != "" {
			t.Errorf("%+v", g)
		}
	}},
	"h19_show_gids_ipv6_only_rocep_devices.txt": {"showgids", func(t *testing.T, v any) {
		g := v.(*ShowGIDs)
		if _, err := g.RoCEv2IPv4("rocep105s0", 1, ""); err == nil || len(g.Entries) != 10 || !g.Truncated {
			t.Errorf("IPv6-only device must have no RoCE v2 IPv4 GID: %v, %d entries", err, len(g.Entries))
		}
	}},
	"h20_show_gids_bond_with_vxlan_same_ip.txt": {"showgids", func(t *testing.T, v any) {
		g := v.(*ShowGIDs)
		if _, err := g.RoCEv2IPv4("mlx5_bond_0", 1, ""); err == nil {
			t.Error("two RoCE v2 GIDs share one IPv4: want ErrAmbiguousGID")
		}
		if e, err := g.RoCEv2IPv4("mlx5_bond_0", 1, "bond1"); err != nil || e.Index != 5 {
			t.Errorf("%+v %v", e, err)
		}
	}},
	"h21_topo_full_with_legend_nv4_phb_pix_nic_legend.txt": {"topo", func(t *testing.T, v any) {
		tp := v.(*Topo)
		if p, err := tp.Path("GPU2", "mlx5_1"); err != nil || p != pcitopo.PHB || tp.NICs["NIC0"] != "mlx5_0" || tp.Truncated || len(tp.Warnings) != 0 {
			t.Errorf("%s %v %+v", p, err, tp)
		}
	}},
	"h22_topo_nv8_9nics_pix_node_sys.txt": {"topo", func(t *testing.T, v any) {
		tp := v.(*Topo)
		if p, _ := tp.Path("GPU1", "NIC4"); p != pcitopo.PIX || !tp.Truncated || tp.Rows[4].CPUAffinity != "48-95,144-191" {
			t.Errorf("%s %+v", p, tp)
		}
	}},
	"h23_topo_h100_nv18_4of8_gpus_pix_nic.txt": {"topo", func(t *testing.T, v any) {
		tp := v.(*Topo)
		if p, _ := tp.Path("GPU6", "NIC3"); p != pcitopo.PIX {
			t.Errorf("GPU6↔NIC3 %s", p)
		}
		if p, _ := tp.Path("GPU1", "NIC0"); p != pcitopo.SYS {
			t.Errorf("GPU1↔NIC0 %s", p)
		}
	}},
	"h24_topo_h100_nv18_pix_node_sys_first3rows.txt": {"topo", func(t *testing.T, v any) {
		if p, _ := v.(*Topo).Path("GPU2", "NIC1"); p != pcitopo.PIX {
			t.Errorf("%s", p)
		}
	}},
	"h25_topo_a100_nv12_18nics_pxb.txt": {"topo", func(t *testing.T, v any) {
		tp := v.(*Topo)
		if p, _ := tp.Path("GPU0", "NIC5"); p != pcitopo.PXB || len(tp.Devices) != 26 || tp.Rows[0].NUMAAffinity != "3" {
			t.Errorf("%s %+v", p, tp.Rows[0])
		}
	}},
	"h26_topo_mp_pcie_only_14nics.txt": {"topo", func(t *testing.T, v any) {
		tp := v.(*Topo)
		if p, _ := tp.Path("GPU0", "GPU1"); p != pcitopo.NODE {
			t.Errorf("-mp prints PCIe paths between GPUs: %s", p)
		}
	}},
	"h27_topo_dgx2_old_format_mlx5_columns_nv6.txt": {"topo", func(t *testing.T, v any) {
		tp := v.(*Topo)
		if p, _ := tp.Path("GPU2", "mlx5_1"); p != pcitopo.PIX || len(tp.Devices) != 26 {
			t.Errorf("%s %v", p, tp.Devices)
		}
	}},
	"h28a_topo_a100_nv12_no_nics.txt": {"topo", func(t *testing.T, v any) {
		tp := v.(*Topo)
		if n, ok := pcitopo.NVLinks(tp.Rows[0].Cells[1]); !ok || n != 12 || len(tp.Rows) != 8 || tp.Rows[7].NUMAAffinity != "1" {
			t.Errorf("%+v", tp)
		}
	}},
	"h28b_topo_h100_nv18_no_nics.txt": {"topo", func(t *testing.T, v any) {
		if c, _ := v.(*Topo).Cell("GPU3", "GPU4"); c != "NV18" {
			t.Errorf("%s", c)
		}
	}},
	"h30a_lspci_vvv_pex890xx_switch_port_16gt_downgraded.txt": {"lspci", func(t *testing.T, v any) {
		d := v.([]PCIDevice)[0]
		if d.Address != "17:00.0" || !d.LinkSta.SpeedDowngraded || d.LinkSta.WidthDowngraded || d.LinkCap.GTps != 32 || len(d.Problems()) != 1 {
			t.Errorf("%+v %q", d, d.Problems())
		}
	}},
	"h30b_lspci_vvv_h100_gpu_gen5_x16_ok.txt": {"lspci", func(t *testing.T, v any) {
		d := v.([]PCIDevice)[0]
		if d.LinkSta.SpeedDowngraded || d.LinkSta.Width != 16 || len(d.AER.Correctable) != 3 || d.Driver != "nvidia" {
			t.Errorf("%+v", d)
		}
	}},
	"h30c_lspci_vvv_connectx7_gen5_x16_ok_vpd.txt": {"lspci", func(t *testing.T, v any) {
		d := v.([]PCIDevice)[0]
		if d.LinkSta.GTps != 32 || d.AER.Correctable[0] != "AdvNonFatalErr" || len(d.AER.Uncorrectable) != 0 {
			t.Errorf("%+v", d)
		}
	}},
	"h31_lspci_gpu_link_downgraded_speed_width_aer.txt": {"lspci", func(t *testing.T, v any) {
		d := v.([]PCIDevice)[0]
		if !d.Partial || !d.LinkSta.SpeedDowngraded || !d.LinkSta.WidthDowngraded || d.AER == nil {
			t.Errorf("%+v", d)
		}
	}},
	"h32_lspci_lnkcap_vs_lnksta_speed_downgraded_width_ok.txt": {"lspci", func(t *testing.T, v any) {
		d := v.([]PCIDevice)[0]
		if d.LinkCap.GTps != 16 || d.LinkSta.GTps != 2.5 || !d.LinkSta.SpeedDowngraded || d.LinkSta.WidthDowngraded {
			t.Errorf("%+v", d)
		}
	}},
	"h33_lspci_bridge_downgraded_bwmgmt.txt": {"lspci", func(t *testing.T, v any) {
		if d := v.([]PCIDevice)[0]; !d.LinkSta.SpeedDowngraded || d.LinkCap.Speed != "5GT/s" {
			t.Errorf("%+v", d)
		}
	}},
	"h34_lspci_a100_sxm_header_numa.txt": {"lspci", func(t *testing.T, v any) {
		if d := v.([]PCIDevice)[0]; d.Address != "da:00.0" || *d.NUMANode != 5 || d.LinkSta != nil {
			t.Errorf("%+v", d)
		}
	}},
	"h35a_nvlink_e_h100_zero_errors_elided.txt": {"nvlink", func(t *testing.T, v any) {
		nl := v.(*NVLink)
		if len(nl.GPUs) != 1 || !nl.Elided || len(nl.GPUs[0].Links) != 3 || nl.GPUs[0].Links[2].Link != 17 || nl.GPUs[0].Links[2].Errors["CRC Errors"] != 0 || len(nl.GPUs[0].Links[2].Errors) != 3 {
			t.Errorf("%+v", nl)
		}
	}},
	"h35b_nvlink_status_h100_elided.txt": {"nvlink", func(t *testing.T, v any) {
		if nl := v.(*NVLink); nl.GPUs[0].Links[1].Speed != "26.562 GB/s" || nl.GPUs[0].Name != "NVIDIA H100 80GB HBM3" {
			t.Errorf("%+v", nl)
		}
	}},
	"h36_nvlink_e_gb300_link0_hwinfo_snapshot.txt": {"nvlink", func(t *testing.T, v any) {
		if nl := v.(*NVLink); len(nl.GPUs) != 1 || nl.GPUs[0].Name != "NVIDIA GB300" || len(nl.GPUs[0].Links[0].Errors) != 3 {
			t.Errorf("%+v", nl)
		}
	}},
	"h37_nvlink_status_a100_12links_full.txt": {"nvlink", func(t *testing.T, v any) {
		if nl := v.(*NVLink); len(nl.GPUs) != 8 || len(nl.GPUs[7].Links) != 12 || nl.GPUs[7].Links[11].Speed != "25 GB/s" {
			t.Errorf("%+v", nl)
		}
	}},
	"h38_iblinkinfo_edr_hosts_hdr_switch.txt": {"iblinkinfo", func(t *testing.T, v any) {
		li := v.(*IBLinkInfo)
		if li.Nodes[0].Name != "gpu-v100-3 HCA-1" || li.Nodes[0].Links[0].LaneGbps != 25.78125 || li.Nodes[1].Links[0].LaneGbps != 53.125 || li.Nodes[4].Type != "Switch" {
			t.Errorf("%+v", li)
		}
	}},
}

func TestHostCorpus(t *testing.T) {
	seen := map[string]bool{}
	for _, f := range testutil.CorpusFiles(t, "validation/host", "*.txt") {
		seen[f.Name] = true
		want, ok := hostCorpus[f.Name]
		if !ok {
			t.Errorf("no expectation for corpus file %s: add one", f.Name)
			continue
		}
		if want.kind == "" {
			continue
		}
		t.Run(f.Name, func(t *testing.T) {
			v, err := parsers[want.kind](bytes.NewReader(f.Body))
			if err != nil {
				t.Fatalf("parsing as %s: %v", want.kind, err)
			}
			want.check(t, v)
		})
	}
	for name := range hostCorpus {
		if !seen[name] {
			t.Errorf("expectation for %s, which the corpus no longer has", name)
		}
	}
}
