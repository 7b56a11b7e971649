package nccl

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/internal/testutil"
	"github.com/google/go-cmp/cmp"
)

// host finds a host of the analysis by name.
func host(t *testing.T, a *Analysis, name string) Host {
	t.Helper()
	for _, h := range a.Hosts {
		if h.Name == name {
			return h
		}
	}
	t.Fatalf("no host %q in %v", name, a.Hosts)
	return Host{}
}

// ncclCorpus says, for every NCCL log and nccl-tests capture in the corpus,
// which findings it must yield (as "host/kind", fleet-wide as "/kind") and
// what else must hold.
var ncclCorpus = map[string]struct {
	findings []string
	check    func(t *testing.T, a *Analysis)
}{
	"n01_ib_no_device_found_hpcx_plugin_bootstrap.txt": {nil, func(t *testing.T, a *Analysis) {
		h := host(t, a, "<cluster_name>")
		if h.Bootstrap[0].String() != "ibp12s0:10.149.0.32" || len(h.PIDs) != 8 || h.CUDADriver != "12010" {
			t.Errorf("%+v", h)
		}
	}},
	"n02_ib_no_device_found_socket_fallback_aws.txt": {[]string{
		"ip-172-31-1-23/no-ib-device", "ip-172-31-1-46/no-ib-device", "ip-172-31-1-93/no-ib-device", "ip-172-31-11-39/no-ib-device",
		"ip-172-31-12-21/no-ib-device", "ip-172-31-5-233/no-ib-device", "ip-172-31-7-53/no-ib-device", "ip-172-31-8-135/no-ib-device",
	}, func(t *testing.T, a *Analysis) {
		if h := host(t, a, "ip-172-31-0-110"); h.Sockets[0].String() != "ens3:172.31.0.110" {
			t.Errorf("%+v", h)
		}
	}},
	"n03_ib_disabled_socket_lo_using_network_socket_topo.txt": {[]string{"axa/nccl-error", "axa/socket-fallback", "axa/unexpected-interface"}, func(t *testing.T, a *Analysis) {
		if h := host(t, a, "axa"); h.Env["NCCL_IB_DISABLE"] != "1" || h.Env["NCCL_SOCKET_IFNAME"] != "lo" || h.Networks[0] != "Socket" {
			t.Errorf("%+v", h)
		}
	}},
	"n04_old_ring_p2p_ipc_and_net_socket.txt": {[]string{"ip-172-31-0-112/socket-fallback", "ip-172-31-13-129/socket-fallback"}, func(t *testing.T, a *Analysis) {
		if h := host(t, a, "ip-172-31-13-129"); h.Transports["P2P/IPC"] != 10 || h.Transports["NET/Socket"] != 1 || !slices.Contains(h.Ranks, 15) {
			t.Errorf("%+v", h)
		}
		// Old "Ring 00 : a[b] -> c[d]" lines: P2P/IPC stays in the node, NET/Socket leaves it.
		h := host(t, a, "ip-172-31-13-129")
		if intra, inter := h.IntraTransports(), h.InterTransports(); len(intra) != 1 || !strings.HasPrefix(intra[0], "P2P/IPC ×") || !slices.Equal(inter, []string{"NET/Socket ×1"}) {
			t.Errorf("intra %v inter %v", intra, inter)
		}
	}},
	"n05_version_banner_roce_using_network_ib_two_hosts.txt": {nil, func(t *testing.T, a *Analysis) {
		h := host(t, a, "dgxh100-4")
		if h.Versions[0] != "2.19.3+cuda12.3" || h.OOB[0].String() != "enp220s0np0:11.1.128.136" || len(h.IBDevices) != 2 || h.IBDevices[0].LinkLayer != "RoCE" || !h.RelaxedOrdering {
			t.Errorf("%+v", h)
		}
		if h := host(t, a, "dgxh100-3"); h.Networks[0] != "IB" || !slices.Contains(h.Ranks, 1) {
			t.Errorf("%+v", h)
		}
	}},
	"n06_version_2185_ib_hca_roce_using_network_ib.txt": {nil, func(t *testing.T, a *Analysis) {
		if h := host(t, a, "node4"); h.Env["NCCL_IB_HCA"] != "mlx5_4" || h.IBDevices[0].String() != "mlx5_4:1/RoCE" {
			t.Errorf("%+v", h)
		}
		if h := host(t, a, "node2"); h.Versions[0] != "2.18.5+cuda12.0" {
			t.Errorf("%+v", h)
		}
	}},
	"n07a_using_network_ibext_v8_8x_roce.txt": {nil, func(t *testing.T, a *Analysis) {
		if h := a.Hosts[0]; h.Networks[0] != "IBext_v8" || len(h.IBDevices) != 8 || h.OOB[0].Name != "eth0" {
			t.Errorf("%+v", h)
		}
	}},
	"n07b_channels_p2p_cumem.txt": {nil, func(t *testing.T, a *Analysis) {
		if h := a.Hosts[0]; h.Transports["P2P/CUMEM"] != 11 {
			t.Errorf("%+v", h)
		}
		if h := a.Hosts[0]; len(h.Links) == 0 || len(h.InterTransports()) != 0 || !strings.HasPrefix(h.IntraTransports()[0], "P2P/CUMEM ×11") {
			t.Errorf("%+v", h.Links)
		}
	}},
	"n08_trees_p2p_cumem_net_ibext_gdrdma_2nodes.txt": {nil, func(t *testing.T, a *Analysis) {
		if h := host(t, a, "kolyoz2"); h.GDRDMA != GDRYes || h.Transports["NET/IBext_v8"] != 1 || !slices.Contains(h.Ranks, 4) {
			t.Errorf("%+v", h)
		}
	}},
	"n09_net_ib_gdrdma_send_receive_h20.txt": {nil, func(t *testing.T, a *Analysis) {
		if h := host(t, a, "H20-GPU-06"); h.GDRDMA != GDRYes || h.Transports["NET/IB"] != 9 {
			t.Errorf("%+v", h)
		}
		// Per link: local ranks over P2P/CUMEM, the other node over NET/IB with GPUDirect RDMA.
		h := host(t, a, "H20-GPU-06")
		if intra, inter := h.IntraTransports(), h.InterTransports(); !slices.Equal(intra, []string{"P2P/CUMEM ×1"}) || !slices.Equal(inter, []string{"NET/IB/GDRDMA ×9"}) {
			t.Errorf("intra %v inter %v", intra, inter)
		}
		for _, l := range host(t, a, "H20-GPU-05").Links {
			if l.Transport != "P2P/CUMEM" || l.From != 1 || l.To != 0 || l.Scope != IntraNode || l.Channels != 4 {
				t.Errorf("%+v", l)
			}
		}
	}},
	"n10a_ib_sharp_using_network_ibext_plugin_load.txt": {nil, func(t *testing.T, a *Analysis) {
		if h := host(t, a, "qh100-gpu19"); !h.IBDevices[0].SHARP || h.Networks[0] != "IBext" || h.OOB[0].Name != "ibp25s0" {
			t.Errorf("%+v", h)
		}
	}},
	"n10b_channels_net_ibext_gdrdma_send_p2p_cumem.txt": {nil, func(t *testing.T, a *Analysis) {
		if h := host(t, a, "qh100-gpu19"); h.GDRDMA != GDRYes || h.Transports["NET/IBext"] != 5 {
			t.Errorf("%+v", h)
		}
	}},
	"n11_ring_channel_order_trees_comm_16ranks_2nodes.txt": {nil, func(t *testing.T, a *Analysis) {
		if h := a.Hosts[0]; !slices.Equal(h.Ranks, []int{3, 5, 6, 7}) || len(h.Transports) != 0 {
			t.Errorf("ring-order lines are not transports: %+v", h)
		}
	}},
	"n12_old_256rank_mixed_ib_roce_trees_ring_p2p_ipc.txt": {[]string{"crow-ib-new-nccl-256-info-19/mixed-link-layers"}, func(t *testing.T, a *Analysis) {
		if h := a.Hosts[0]; !slices.Equal(h.Ranks, []int{155}) || h.Transports["P2P/IPC"] != 3 || h.Bootstrap[0].String() != "eth0:10.100.62.64" {
			t.Errorf("%+v", h)
		}
	}},
	"n13_ib_completion_error12_vendor129_azure_unpaired.txt": {[]string{"node-2/ib-completion-error", "node-2/mixed-link-layers"}, func(t *testing.T, a *Analysis) {
		if f := a.Findings[0]; f.Message != "NET/IB completion error 12 (RETRY_EXC_ERR) from peer 10.2.0.5<33092>" {
			t.Errorf("%+v", f)
		}
	}},
	"n14_version_2193_ib_hca_using_network_ib_a100_pcie.txt": {nil, func(t *testing.T, a *Analysis) {
		for _, name := range []string{"testgpu1", "testgpu2"} {
			if h := host(t, a, name); !slices.Equal(h.Versions, []string{"2.19.3+cuda12.3"}) {
				t.Errorf("%s %+v", name, h)
			}
		}
	}},
	"n15_old_247_socket_on_ipoib_and_net_ib.txt": {nil, func(t *testing.T, a *Analysis) {
		if h := host(t, a, "master_node"); h.Versions[0] != "2.4.7+cuda10.0" || h.OOB[0].String() != "ib0:192.168.11.1" || h.IBDevices[0].LinkLayer != "IB" {
			t.Errorf("%+v", h)
		}
	}},
	"n16_old_242_34_roce_ports_socket_incl_flannel.txt": {[]string{"gpu6/unexpected-interface", "gpu7/unexpected-interface"}, func(t *testing.T, a *Analysis) {
		if h := host(t, a, "gpu6"); len(h.IBDevices) != 34 || h.Versions[0] != "2.4.2+cuda10.0" || len(h.Sockets) != 3 {
			t.Errorf("%d devices %+v", len(h.IBDevices), h)
		}
	}},
	"n17a_socket_single_interface_desktop.txt": {nil, func(t *testing.T, a *Analysis) {
		if h := host(t, a, "DeepWhite"); h.Sockets[0].String() != "enp67s0:192.168.50.21" {
			t.Errorf("%+v", h)
		}
	}},
	"n17b_net_line_variants_fastsocket_ib_bond_roce_socket.txt": {[]string{UnknownHost + "/mixed-link-layers"}, func(t *testing.T, a *Analysis) {
		if h := host(t, a, UnknownHost); len(h.IBDevices) != 9 || len(h.Sockets) != 9 {
			t.Errorf("%+v", h)
		}
	}},
	"n18a_bootstrap_socket_ifname_bond0.txt": {nil, func(t *testing.T, a *Analysis) {
		if h := a.Hosts[0]; h.Env["NCCL_SOCKET_IFNAME"] != "bond0" || h.Bootstrap[0].Name != "bond0" {
			t.Errorf("%+v", h)
		}
	}},
	"n18b_p2p_cumem_and_ib_gid_index_env.txt": {nil, func(t *testing.T, a *Analysis) {
		if h := a.Hosts[0]; h.Env["NCCL_IB_GID_INDEX"] != "3" || h.Transports["P2P/CUMEM"] != 14 {
			t.Errorf("%+v", h)
		}
	}},
	"n19_init_complete_32ranks_4nodes.txt": {nil, func(t *testing.T, a *Analysis) {
		if len(a.Hosts) != 4 || !slices.Equal(host(t, a, "server4").Ranks, []int{24, 25, 28, 29}) {
			t.Errorf("%+v", a.Hosts)
		}
	}},
	"n20_old_ib_nic_distance_pix.txt": {nil, func(t *testing.T, a *Analysis) {
		if h := a.Hosts[0]; h.NICDistance["CUDA Dev 1"] != "PIX" {
			t.Errorf("%+v", h)
		}
	}},
	"t01_all_reduce_perf_2x_p4de_efa_8B_to_2GB.txt": {nil, func(t *testing.T, a *Analysis) {
		if p := a.Tests[0]; len(p.Rows) != 29 || p.MaxBusBW() != 78.33 || p.Rows[28].Bytes != 2147483648 {
			t.Errorf("%d rows, max %v", len(p.Rows), p.MaxBusBW())
		}
	}},
	"t02_all_reduce_perf_2x_p5_efa_8B_to_16GB.txt": {nil, func(t *testing.T, a *Analysis) {
		if p := a.Tests[0]; len(p.Rows) != 32 || p.MaxBusBW() != 487.26 {
			t.Errorf("%d rows, max %v", len(p.Rows), p.MaxBusBW())
		}
	}},
	"t03_all_reduce_perf_2x_p5_eks_mpijob_excerpt_avg_busbw.txt": {nil, func(t *testing.T, a *Analysis) {
		if p := a.Tests[0]; len(p.Rows) != 7 || p.AvgBusBW != 52.9753 || p.OutOfBounds != 0 {
			t.Errorf("%+v", p)
		}
	}},
	"t04_all_reduce_perf_collapse_above_32MB_tagged_rows.txt": {[]string{"/busbw-collapse"}, func(t *testing.T, a *Analysis) {
		if p := a.Tests[0]; len(p.Rows) != 10 || p.Rows[0].Bytes != 1048576 || p.Rows[6].OutOfPlace.BusBW != 5.27 {
			t.Errorf("%+v", p.Rows)
		}
	}},
	"t05_all_reduce_perf_2hosts_non_mpi_build_duplicate_rank0.txt": {[]string{"/duplicate-rank"}, nil},
	"t06_all_reduce_perf_mpi_2node_h100_srun_banner.txt": {nil, func(t *testing.T, a *Analysis) {
		if !slices.Equal(host(t, a, "worker-1").Ranks, []int{0, 1, 2, 3, 4, 5, 6, 7}) {
			t.Errorf("%+v", a.Hosts)
		}
	}},
}

func TestNCCLCorpus(t *testing.T) {
	seen := map[string]bool{}
	var files []testutil.File
	files = append(files, testutil.CorpusFiles(t, "validation/nccl", "*.txt")...)
	files = append(files, testutil.CorpusFiles(t, "validation/nccl-tests", "*.txt")...)
	for _, f := range files {
		seen[f.Name] = true
		want, ok := ncclCorpus[f.Name]
		if !ok {
			t.Errorf("no expectation for corpus file %s: add one", f.Name)
			continue
		}
		t.Run(f.Name, func(t *testing.T) {
			a, err := Analyze(Options{}, Source{Name: f.Name, R: bytes.NewReader(f.Body)})
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(want.findings, kinds(a)); d != "" {
				t.Errorf("findings (-want +got):\n%s", d)
			}
			if want.check != nil {
				want.check(t, a)
			}
		})
	}
	for name := range ncclCorpus {
		if !seen[name] {
			t.Errorf("expectation for %s, which the corpus no longer has", name)
		}
	}
}
