package nccl

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/checks"
	"github.com/fabricctl/fabricctl/internal/testutil"
	"github.com/google/go-cmp/cmp"
)

// shaped says, for every log of testdata/shaped (our own logs, line for line
// in the formats of the public logs named in testdata/shaped/README.md), the
// findings it must yield and what else must hold. Each entry is a bug the
// analysis had: the test was written against the old analysis first.
var shaped = map[string]struct {
	findings []string
	check    func(t *testing.T, a *Analysis)
}{
	// pdsh (DeepSpeed's multi-node runner) prefixes every line with the host's
	// address: it hid a two-host socket fallback ("no NCCL output found").
	"pdsh_two_hosts_socket_fallback.log": {[]string{"gpu-a/no-ib-device", "gpu-a/socket-fallback", "gpu-b/no-ib-device", "gpu-b/socket-fallback"},
		func(t *testing.T, a *Analysis) {
			if h := host(t, a, "gpu-a"); !slices.Equal(h.Versions, []string{"2.18.1+cuda12.1"}) || h.GDRDMA != GDRNo || h.Transports["NET/Socket"] != 2 {
				t.Errorf("%+v", h)
			}
		}},
	// Ray's "(RayWorkerWrapper pid=…, ip=…)" prefixes, nested under vLLM's engine.
	"ray_vllm_nested_prefixes.log": {[]string{"head-0/no-gdrdma", "worker-1/no-gdrdma"}, func(t *testing.T, a *Analysis) {
		if len(a.Hosts) != 2 {
			t.Errorf("hosts %+v", a.Hosts)
		}
		if h := host(t, a, "worker-1"); !slices.Equal(h.Versions, []string{"2.20.5+cuda12.4"}) || !slices.Equal(h.Ranks, []int{1}) || h.OOB[0].String() != "ens121f1:192.168.10.14" {
			t.Errorf("%+v", h)
		}
	}},
	// NCCL 2.3: "NET/IB: [0] mlx5_0:1/IB", "Using internal Network IB", sideband interface, untagged receive rings.
	"old_2_3_net_ib_format.log": {nil, func(t *testing.T, a *Analysis) {
		h := host(t, a, "dgx1-a")
		if len(h.IBDevices) != 2 || h.IBDevices[1].String() != "mlx5_1:1/IB" || !slices.Equal(h.Networks, []string{"IB"}) ||
			h.OOB[0].Name != "ib0" || h.Bootstrap[0].String() != "ib0:10.4.0.21" || h.GDRDMA != GDRYes || h.Transports["SHM"] != 1 ||
			!slices.Equal(h.Ranks, []int{0}) || h.NICDistance["CUDA Dev 0"] != "PIX" {
			t.Errorf("%+v", h)
		}
	}},
	// Completion errors of every era are failures with the status decoded; the
	// pre-2.12 form without a peer was a mere warning.
	"completion_errors_every_era.log": {[]string{"/ib-completion-error", "node-214b/ib-completion-error", "node-218c/ib-completion-error",
		"node-226d/ib-completion-error", "node-229e/ib-completion-error", "node-28a/ib-completion-error", "node-plugin/ib-completion-error"},
		func(t *testing.T, a *Analysis) {
			msgs := map[string]Finding{}
			for _, f := range a.Findings {
				msgs[f.Host] = f
				if f.Status != checks.StatusFail || f.Class != checks.CompletionError {
					t.Errorf("%+v", f)
				}
			}
			for host, want := range map[string]string{
				"node-28a":  "NET/IB completion error 12 (RETRY_EXC_ERR), vendor err 129",
				"node-218c": "NET/IB completion error 4 (LOC_PROT_ERR) from peer fe80::966d:ae03:8b:df78%ib0<53249>, vendor err 81 (Send)",
				"node-226d": "NET/IB completion error 12 (RETRY_EXC_ERR) from peer 192.168.3.5<53908>, vendor err 129 (Recv) on mlx5_10",
				"node-229e": "NET/IB completion error 12 (RETRY_EXC_ERR) from peer 10.30.4.2<40112>, vendor err 129 on mlx5_3",
			} {
				if msgs[host].Message != want {
					t.Errorf("%s: %q, want %q", host, msgs[host].Message, want)
				}
			}
		}},
	// PyTorch's watchdog: one failure per timed-out collective, naming it.
	"pytorch_watchdog_timeouts.log": {[]string{"/collective-timeout", "/collective-timeout", "/collective-timeout", "/nccl-error", "/watchdog-hang"}, func(t *testing.T, a *Analysis) {
		if f := a.Findings[0]; !strings.HasPrefix(f.Message, "collective ALLREDUCE (SeqNum 469508) timed out after 1800000 ms on rank 1,3") || f.Class != checks.Timeout {
			t.Errorf("%+v", f)
		}
	}},
	// NCCL RAS: a communicator whose ranks launched different numbers of a
	// collective; RAS lists it under Warnings (a snapshot may catch ranks
	// lagging), so it warns.
	"ras_report_mismatch.txt": {[]string{"/ras-mismatch"}, func(t *testing.T, a *Analysis) {
		if f := a.Findings[0]; !strings.Contains(f.Message, "AllGather") || f.Status != checks.StatusWarn {
			t.Errorf("%+v", f)
		}
	}},
	"ras_report_healthy.txt": {nil, nil},
	// NVLS and CollNet are reported; GPUDirect RDMA is yes/no/unknown.
	// Ranks 0 and 3 of h800-a share channel 2 in host memory (SHM): no-p2p.
	"nvls_collnet_transports.log": {[]string{"h800-a/no-p2p", "h800-b/no-gdrdma"}, func(t *testing.T, a *Analysis) {
		if h := host(t, a, "h800-a"); h.NVLS != "used" || h.NVLSChannels != 16 || !h.CollNet || h.CollNetChannels != 8 || h.GDRDMA != GDRYes || h.Transports["P2P/CUMEM"] != 2 {
			t.Errorf("%+v", h)
		}
		if h := host(t, a, "h800-b"); h.NVLS != "unavailable" || h.CollNet || h.GDRDMA != GDRNo {
			t.Errorf("%+v", h)
		}
	}},
	// Two pods with one hostname are two hosts (their bootstrap addresses
	// differ): merged, their version skew went unseen.
	"same_hostname_two_machines.log": {[]string{"/version-skew", "trainer [10.244.2.9]/no-gdrdma"}, func(t *testing.T, a *Analysis) {
		if len(a.Hosts) != 2 || a.Hosts[0].Name != "trainer [10.244.1.17]" || !slices.Equal(a.Hosts[1].Ranks, []int{1}) {
			t.Errorf("%+v", a.Hosts)
		}
	}},
	// kubectl logs --prefix --timestamps; the IB host has no NET channel yet: GPUDirect RDMA unknown, not "no".
	"k8s_prefix_timestamps.log": {[]string{"llm-train-worker-0/no-ib-device", "llm-train-worker-0/socket-fallback"}, func(t *testing.T, a *Analysis) {
		if h := host(t, a, "llm-train-worker-1"); h.GDRDMA != GDRUnknown || !slices.Equal(h.Versions, []string{"2.18.6+cuda12.1"}) {
			t.Errorf("%+v", h)
		}
	}},
	// Two local ranks on NVLinked GPUs (the shape of issue 19's 2-GPU run):
	// P2P/CUMEM per link within the node, NCCL's topology search over NVL.
	"graph_two_local_ranks_nvlink.log": {[]string{"h200x2/no-ib-device", "h200x2/socket-fallback"}, func(t *testing.T, a *Analysis) {
		h := host(t, a, "h200x2")
		if nvl, known := h.NVLinkPaths(); !nvl || !known || !h.NVLink {
			t.Errorf("NVLink not seen: %+v", h.Paths)
		}
		if intra, inter := h.IntraTransports(), h.InterTransports(); !slices.Equal(intra, []string{"P2P/CUMEM ×6"}) || len(inter) != 0 {
			t.Errorf("intra %v inter %v", intra, inter)
		}
		want := []Link{{From: 0, To: 1, Transport: "P2P/CUMEM", Channels: 3, Peer: "h200x2", Scope: IntraNode, Where: "graph_two_local_ranks_nvlink.log:22"},
			{From: 1, To: 0, Transport: "P2P/CUMEM", Channels: 3, Peer: "h200x2", Scope: IntraNode, Where: "graph_two_local_ranks_nvlink.log:23"}}
		if d := cmp.Diff(want, h.Links); d != "" {
			t.Errorf("links (-want +got):\n%s", d)
		}
		if len(h.Paths) != 2 || h.Paths[0] != (Path{Pattern: 3, Channels: 24, BW: 185.4, Intra: "NVL", Inter: "PIX"}) {
			t.Errorf("%+v", h.Paths)
		}
	}},
	// NCCL_P2P_DISABLE: the local ranks meet in host memory, over PCIe across sockets.
	"graph_pcie_shm_fallback.log": {[]string{"gpu24/no-p2p"}, func(t *testing.T, a *Analysis) {
		h := host(t, a, "gpu24")
		if nvl, known := h.NVLinkPaths(); nvl || !known || h.NVLink {
			t.Errorf("%+v", h.Paths)
		}
		if intra := h.IntraTransports(); !slices.Equal(intra, []string{"SHM ×4"}) {
			t.Errorf("%v", intra)
		}
	}},
	// Python logging, syslog and bracketed timestamps.
	"python_logging_timestamps.log": {[]string{"node0/no-ib-device", "node0/socket-fallback", "node2/nccl-error", "node2/no-gdrdma"}, nil},
}

func TestShapedLogs(t *testing.T) {
	paths, _ := filepath.Glob("testdata/shaped/*")
	seen := map[string]bool{}
	for _, p := range paths {
		name := filepath.Base(p)
		if name == "README.md" || strings.HasSuffix(name, ".golden") {
			continue
		}
		seen[name] = true
		want, ok := shaped[name]
		if !ok {
			t.Errorf("no expectation for %s", name)
			continue
		}
		t.Run(name, func(t *testing.T) {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			a, err := Analyze(Options{}, Source{Name: name, R: bytes.NewReader(b)})
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(want.findings, kinds(a)); d != "" {
				t.Errorf("findings (-want +got):\n%s", d)
			}
			if want.check != nil {
				want.check(t, a)
			}
			testutil.Golden(t, "shaped/"+strings.TrimSuffix(name, filepath.Ext(name))+".golden", testutil.JSON(t, a))
		})
	}
	for name := range shaped {
		if !seen[name] {
			t.Errorf("expectation for %s, which testdata/shaped no longer has", name)
		}
	}
}

// TestBadFileNeverAbortsTheOthers: a file without NCCL output among real logs
// is listed in Errors; the logs beside it are analysed.
func TestBadFileNeverAbortsTheOthers(t *testing.T) {
	b, _ := os.ReadFile("testdata/shaped/pdsh_two_hosts_socket_fallback.log")
	a, err := Analyze(Options{}, Source{Name: "nccl_lib_locations.txt", R: strings.NewReader("/usr/lib/x86_64-linux-gnu/libnccl.so.2.28.3\n")},
		Source{Name: "pdsh.log", R: bytes.NewReader(b)})
	if err != nil || len(a.Hosts) != 2 || len(a.Errors) != 1 || a.Errors[0].Source != "nccl_lib_locations.txt" {
		t.Errorf("%v %+v", err, a)
	}
}
