package analyze

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/checks"
)

// findingWant is one finding a verdict test expects: its ID, subject, status and
// words its summary holds.
type findingWant struct {
	id, subject string
	status      checks.Status
	words       []string
}

// gpuStateCases are the GPU tools' states issue 27 found misread, one
// fixture per class (checks/hostparse/testdata), with the kind Detect must
// find, the file's worst status and the findings behind it.
var gpuStateCases = []struct {
	path  string
	kind  Kind
	worst checks.Status
	finds []findingWant
}{
	// nvidia-smi's own failure messages: NVML cannot reach the driver or a GPU.
	{"nvsmi-table/failure_device_handle_gpu_lost.txt", KindSMI, checks.StatusFail, []findingWant{{"nvidia-smi/failure", "0000:41:00.0", checks.StatusFail, []string{"GPU is lost"}}}},
	{"nvsmi-table/failure_driver_quoted.txt", KindSMI, checks.StatusFail, []findingWant{{"nvidia-smi/failure", "", checks.StatusFail, []string{"NVIDIA driver"}}}},
	{"nvsmi-table/failure_nvml_version_mismatch.txt", KindSMI, checks.StatusFail, []findingWant{{"nvidia-smi/failure", "", checks.StatusFail, []string{"version mismatch", "reload the driver"}}}},
	{"nvsmi-table/failure_no_devices.txt", KindSMI, checks.StatusFail, []findingWant{{"nvidia-smi/failure", "", checks.StatusFail, []string{"no GPU"}}}},
	{"nvsmi-table/failure_library.txt", KindSMI, checks.StatusFail, []findingWant{{"nvidia-smi/failure", "", checks.StatusFail, []string{"libnvidia-ml.so"}}}},
	// The command echoed above the message says which mode printed it.
	{"nvsmi-table/failure_q_device_handle.txt", KindSMIQuery, checks.StatusFail, []findingWant{{"nvidia-smi-q/failure", "0000:1B:00.0", checks.StatusFail, []string{"Unknown Error"}}}},
	// The table of every era; ERR! cells and uncorrectable ECC errors.
	{"nvsmi-table/r375_no_cuda_header.txt", KindSMI, checks.StatusPass, []findingWant{{"nvidia-smi/gpus", "", checks.StatusPass, []string{"2× Tesla P100-PCIE...", "driver 375.26", "CUDA unknown"}}}},
	{"nvsmi-table/r295_numbered_rows_sb_db.txt", KindSMI, checks.StatusWarn, []findingWant{{"nvidia-smi/ecc", "GPU0", checks.StatusWarn, []string{"3 volatile single-bit"}}}},
	{"nvsmi-table/err_fields_no_header.txt", KindSMI, checks.StatusFail, []findingWant{
		{"nvidia-smi/gpu-state", "GPU2", checks.StatusFail, []string{"ERR! for Pwr:Usage", "00000000:3B:00.0"}},
		{"nvidia-smi/gpu-state", "GPU3", checks.StatusFail, []string{"ERR!"}},
	}},
	{"nvsmi-table/ecc_uncorrectable_550.txt", KindSMI, checks.StatusFail, []findingWant{{"nvidia-smi/ecc", "GPU0", checks.StatusFail, []string{"2 volatile uncorrectable"}}}},
	// nvidia-smi -q's memory-error state and PCIe link.
	{"nvsmi/remap_uncorrectable_pending_a30.txt", KindSMIQuery, checks.StatusFail, []findingWant{
		{"nvidia-smi-q/memory-errors", "00000000:65:00.0", checks.StatusFail, []string{"2 rows remapped after uncorrectable errors", "row remap is pending"}},
		{"nvidia-smi-q/pcie-link", "00000000:65:00.0", checks.StatusFail, []string{"x8 is below the x16"}},
		{"nvidia-smi-q/gpu", "00000000:65:00.0", checks.StatusPass, []string{"could not read", "Addressing Mode"}},
	}},
	{"nvsmi/remap_correctable_pending_elided.txt", KindSMIQuery, checks.StatusWarn, []findingWant{{"nvidia-smi-q/memory-errors", "00000000:B7:00.0", checks.StatusWarn, []string{"3 volatile correctable", "1 rows remapped after correctable", "pending"}}}},
	{"nvsmi/hopper_sram_parity_remap_failure.txt", KindSMIQuery, checks.StatusFail, []findingWant{{"nvidia-smi-q/memory-errors", "00000000:9A:00.0", checks.StatusFail, []string{"1 aggregate uncorrectable", "row remapping failed"}}}},
	{"nvsmi/retired_pages_volta_single_double_bit.txt", KindSMIQuery, checks.StatusWarn, []findingWant{
		{"nvidia-smi-q/memory-errors", "00000000:18:00.0", checks.StatusWarn, []string{"1 pages retired after single-bit", "retirement is pending"}},
		{"nvidia-smi-q/memory-errors", "00000000:3B:00.0", checks.StatusPass, nil},
		{"nvidia-smi-q/pcie-link", "00000000:3B:00.0", checks.StatusWarn, []string{"generation 1 is below the maximum 3"}},
	}},
	// nvidia-smi nvlink -e lines grep kept without their "GPU N:" headers:
	// a block per run of link numbers, counters judged.
	{"nvlink/errors_grep_no_gpu_header.txt", KindNVLink, checks.StatusWarn, []findingWant{
		{"nvlink/errors", "links without a GPU header, block 1", checks.StatusWarn, []string{"link 1 Replay Errors 3"}},
		{"nvlink/errors", "links without a GPU header, block 2", checks.StatusPass, []string{"2 links, no NVLink errors"}},
	}},
	// nvidia-smi nvlink -s: inactive links beside active ones, all links inactive by GPU class.
	{"nvlink/sxm_two_links_inactive.txt", KindNVLink, checks.StatusFail, []findingWant{
		{"nvlink/links", "GPU1", checks.StatusFail, []string{"NVLink 1, 4 inactive", "GPU 1 (Tesla V100-SXM2-16GB)"}},
		{"nvlink/links", "GPU2", checks.StatusSkip, []string{"no NVLink active"}},
	}},
	{"nvlink/all_inactive_message_per_gpu.txt", KindNVLink, checks.StatusFail, []findingWant{
		{"nvlink/links", "GPU0", checks.StatusFail, []string{"GPU 0 (NVIDIA GB200)", "NVLink-class"}},
		{"nvlink/links", "GPU1", checks.StatusSkip, []string{"GPU 1 (NVIDIA L40S)"}},
	}},
	// One H200 alone (a one-GPU VM, as the H200 capture is): no peer to
	// train a link with, so unknown rather than broken.
	{"nvlink/status_inactive.txt", KindNVLink, checks.StatusSkip, []findingWant{{"nvlink/links", "GPU0", checks.StatusSkip, []string{"NVIDIA H200", "only GPU"}}}},
	// nvidia-smi topo -m with cells a paste ran together.
	{"topo/merged_cells.txt", KindTopo, checks.StatusPass, []findingWant{
		{"topo/gpu-nic-affinity", "GPU0", checks.StatusPass, []string{"mlx5_0 via PXB"}},
		{"topo/gpu-nic-affinity", "GPU1", checks.StatusPass, []string{"mlx5_2 via PIX"}},
	}},
	// p2pBandwidthLatencyTest: an enabled matrix alone has no yardstick.
	{"p2pbw/enabled_matrix_only.txt", KindP2P, checks.StatusSkip, []findingWant{{"p2p/bandwidth", "unidirectional", checks.StatusSkip, []string{"181.88 to 182.66 GB/s", "no yardstick"}}}},
}

// TestGPUStates: each class of GPU-tool state is detected, and judged as
// the tool's own documentation reads it.
func TestGPUStates(t *testing.T) {
	for _, c := range gpuStateCases {
		t.Run(c.path, func(t *testing.T) {
			checkFindings(t, filepath.Join("..", "hostparse", "testdata", c.path), c.kind, c.worst, c.finds)
		})
	}
}

// TestNVLinkClass: NVLink-class GPUs by name, PCIe cards (also the bridged
// NVL variants) not.
func TestNVLinkClass(t *testing.T) {
	for name, want := range map[string]bool{
		"NVIDIA H100 80GB HBM3": true, "NVIDIA H200": true, "NVIDIA B200": true, "NVIDIA GB200": true, "NVIDIA GH200 480GB": true,
		"NVIDIA B300 SXM6 AC": true, "NVIDIA A100-SXM4-80GB": true, "Tesla V100-SXM2-32GB": true, "NVIDIA H800": true, "NVIDIA H20": true,
		"NVIDIA H100 PCIe": false, "NVIDIA H100 NVL": false, "NVIDIA A100 80GB PCIe": false, "NVIDIA A100-PCIE-40GB": false,
		"NVIDIA L40S": false, "NVIDIA GeForce RTX 4090": false, "Tesla V100-PCIE-16GB": false, "": false,
	} {
		if got := nvlinkClass(name); got != want {
			t.Errorf("nvlinkClass(%q) = %v, want %v", name, got, want)
		}
	}
}

// checkFindings analyses one file and compares kind, worst status and the
// findings wanted.
func checkFindings(t *testing.T, path string, kind Kind, worst checks.Status, finds []findingWant) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f := Analyze(filepath.Base(path), b)
	if f.Kind != kind || f.Worst() != worst {
		t.Errorf("kind %s worst %s, want %s %s: %+v", f.Kind, f.Worst(), kind, worst, f.Findings)
	}
	for _, w := range finds {
		found := false
		for _, x := range f.Findings {
			if x.ID != w.id || x.Subject != w.subject || x.Status != w.status {
				continue
			}
			found = true
			for _, word := range w.words {
				if !strings.Contains(x.Summary, word) {
					t.Errorf("%s %s: %q lacks %q", w.id, w.subject, x.Summary, word)
				}
			}
		}
		if !found {
			t.Errorf("no %s finding %s for %q: %+v", w.status, w.id, w.subject, f.Findings)
		}
	}
}
