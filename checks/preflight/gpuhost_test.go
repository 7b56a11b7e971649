package preflight

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/checks"
	"github.com/fabricctl/fabricctl/checks/hostparse"
)

// touch creates the files (and their directories) under root.
func touch(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for p, body := range files {
		full := filepath.Join(root, p)
		if strings.HasSuffix(p, "/") {
			if err := os.MkdirAll(full, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// smiQ is nvidia-smi -q of one H200, in the driver's layout (values ours).
const smiQ = `
==============NVSMI LOG==============

Driver Version                            : 580.159.04
CUDA Version                              : 13.0

Attached GPUs                             : 1
GPU 00000000:18:00.0
    Product Name                          : NVIDIA H200
    GPU UUID                              : GPU-00000000-1111-2222-3333-444444444444
    VBIOS Version                         : 96.00.AF.00.01
    PCI
        Bus Id                            : 00000000:18:00.0
        GPU Link Info
            PCIe Generation
                Max                       : 5
                Current                   : 1
            Link Width
                Max                       : 16x
                Current                   : 16x
        Replays Since Reset               : 0
        Replay Number Rollovers           : 0
`

// gpuHost is a Gatherer over a fixture GPU server: nvidia-smi answers with
// smiQ, the DMA-BUF probe with dmabuf, the rest from files under roots.
func gpuHost(t *testing.T, dmabuf string, files map[string]string) *Gatherer {
	t.Helper()
	g, _ := rxeGatherer(t)
	g.ProcRoot = t.TempDir()
	touch(t, g.ProcRoot, map[string]string{"modules": "nvidia 5000 0 - Live 0x0\n"})
	touch(t, g.FileRoot, files)
	g.LibDirs, g.PythonDirs, g.CondaDirs = nil, nil, nil // the defaults, below FileRoot
	g.Run = func(_ context.Context, name string, args ...string) ([]byte, error) {
		switch {
		case name == "nvidia-smi" && len(args) == 1 && args[0] == "-q":
			return []byte(smiQ), nil
		case name == "python3" && dmabuf != "":
			return []byte(dmabuf + "\n"), nil
		}
		return nil, fmt.Errorf("running %s: exec: %q: executable file not found in $PATH", name, name)
	}
	return g
}

func resultOf(t *testing.T, rs []checks.Result, id string) checks.Result {
	t.Helper()
	for _, r := range rs {
		if r.ID == id {
			return r
		}
	}
	t.Fatalf("no %s in %+v", id, rs)
	return checks.Result{}
}

// TestPyTorchLoadsItsPipNCCL: on a real H200 host the system libnccl was
// 2.28.3 while PyTorch loads the pip nvidia-nccl 2.28.9 beside it; the host's
// NCCL version is what PyTorch loads, and every copy is listed.
func TestPyTorchLoadsItsPipNCCL(t *testing.T) {
	sp := "opt/torch/.venv/lib/python3.12/site-packages/"
	g := gpuHost(t, "", map[string]string{
		"usr/lib/x86_64-linux-gnu/libnccl.so.2.28.3":       "",
		sp + "nvidia/nccl/lib/libnccl.so.2":                "",
		sp + "nvidia_nccl_cu13-2.28.9.dist-info/METADATA":  "",
		sp + "torch/lib/libtorch_cuda.so":                  "",
		sp + "torch-2.11.0.dist-info/METADATA":             "",
		"opt/conda/lib/libnccl.so.2.21.5":                  "",
		"opt/conda/conda-meta/nccl-2.21.5-h6103f9b_0.json": "{}",
	})
	f := g.Gather(t.Context(), Args{Intent: desired(t, "rxe")})
	if f.NCCL != "2.28.9" || !strings.HasSuffix(f.NCCLPath, "nvidia/nccl/lib/libnccl.so.2") {
		t.Errorf("nccl %q %q", f.NCCL, f.NCCLPath)
	}
	r := resultOf(t, Evaluate(f, Options{}), IDNCCLLibs)
	if r.Status != checks.StatusPass || !strings.Contains(r.Summary, "PyTorch 2.11.0") || !strings.Contains(r.Summary, "loads pip 2.28.9") || len(r.Evidence) != 3 {
		t.Errorf("%+v", r)
	}
}

// TestGPUDirectThroughDMABuf: the open kernel module reports DMA-BUF support
// and deprecates nvidia_peermem; such a host passes without the module. The
// proprietary module without peer memory fails, saying why.
func TestGPUDirectThroughDMABuf(t *testing.T) {
	open := map[string]string{"boot/config-6.18.44-fc-v236-gpu": "CONFIG_DMA_SHARED_BUFFER=y\n"}
	proc := map[string]string{
		"driver/nvidia/version": "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build  (dvs-builder@U22-I3-AF03-09-1)\nGCC version:  gcc version 13.3.0\n",
		"sys/kernel/osrelease":  "6.18.44-fc-v236-gpu\n",
	}
	for name, c := range map[string]struct {
		module, dmabuf string
		want           checks.Status
		why            string
	}{
		"attribute":              {"Open Kernel Module", "dmabuf 1", checks.StatusPass, "driver reports DMA-BUF"},
		"open module and config": {"Open Kernel Module", "", checks.StatusPass, "CONFIG_DMA_SHARED_BUFFER=y"},
		"proprietary":            {"Kernel Module", "", checks.StatusFail, "open kernel module"},
		"attribute says no":      {"Open Kernel Module", "dmabuf 0", checks.StatusFail, "reports no DMA-BUF"},
	} {
		t.Run(name, func(t *testing.T) {
			g := gpuHost(t, c.dmabuf, open)
			p := map[string]string{}
			for k, v := range proc {
				p[k] = strings.Replace(v, "Open Kernel Module", c.module, 1)
			}
			touch(t, g.ProcRoot, p)
			g.NoProbe = c.dmabuf == ""
			r := resultOf(t, Evaluate(g.Gather(t.Context(), Args{Intent: desired(t, "rxe")}), Options{}), IDPeerMem)
			if r.Status != c.want || !strings.Contains(r.Summary, c.why) {
				t.Errorf("%+v", r)
			}
		})
	}
}

// TestGPUFactsAndReplays: model, driver, CUDA and VBIOS from nvidia-smi -q;
// the replay counter judged.
func TestGPUFactsAndReplays(t *testing.T) {
	g := gpuHost(t, "", nil)
	g.NoProbe = true
	rs := Evaluate(g.Gather(t.Context(), Args{Intent: desired(t, "rxe")}), Options{})
	if r := resultOf(t, rs, IDGPU); r.Status != checks.StatusPass || r.Summary != "NVIDIA H200, driver 580.159.04, CUDA 13.0, VBIOS 96.00.AF.00.01" {
		t.Errorf("%+v", r)
	}
	if r := resultOf(t, rs, IDReplays); r.Status != checks.StatusPass {
		t.Errorf("%+v", r)
	}
	seven := int64(7)
	if r := resultOf(t, evalGPUHost("h", Facts{GPUHost: &HostFacts{GPUs: []hostparse.SMIGPU{{BusID: "00000000:18:00.0", Replays: &seven}}}}), IDReplays); r.Status != checks.StatusWarn {
		t.Errorf("7 replays: %+v", r)
	}
}

// TestAERUnavailableIsASkip: a PCIe device without aer_dev_* files in sysfs
// (the kernel does not own AER: firmware-first, or a VM) is a skip with the
// reason, never silence.
func TestAERUnavailableIsASkip(t *testing.T) {
	rs := evalPCI("h", []PCIDevice{{BDF: "0000:18:00.0", Kind: "gpu", Name: "GPU0", CurrentSpeed: "32.0 GT/s PCIe", MaxSpeed: "32.0 GT/s PCIe", CurrentWidth: "16", MaxWidth: "16"}})
	r := resultOf(t, rs, IDAER)
	if r.Status != checks.StatusSkip || !strings.Contains(r.Summary, "kernel does not own PCIe") {
		t.Errorf("%+v", r)
	}
}

func TestIOMMUModes(t *testing.T) {
	for _, c := range []struct {
		io   IOMMU
		want checks.Status
	}{
		{IOMMU{}, checks.StatusPass},
		{IOMMU{Units: 2, GroupTypes: map[string]int{"identity": 40}, Cmdline: "iommu=pt"}, checks.StatusPass},
		{IOMMU{Units: 2, GroupTypes: map[string]int{"DMA-FQ": 40}, Cmdline: "intel_iommu=on"}, checks.StatusWarn},
	} {
		if r := evalIOMMU("h", c.io); r.Status != c.want {
			t.Errorf("%+v: %+v", c.io, r)
		}
	}
}

// TestACSAndMaxReadReqFromLspci reads the real lspci -vvv extract of an H100
// server: no ACS redirect between GPU 19:00.0 and ConnectX-7 1a:00.0,
// MaxReadReq 4096.
func TestACSAndMaxReadReqFromLspci(t *testing.T) {
	b, err := os.ReadFile("../hostparse/testdata/real/lspci_vvv_h100_hgx_gpud_extract.txt")
	if err != nil {
		t.Fatal(err)
	}
	g := gpuHost(t, "", nil)
	g.NoProbe = true
	run := g.Run
	g.Run = func(ctx context.Context, name string, args ...string) ([]byte, error) {
		if name == "lspci" {
			return b, nil
		}
		return run(ctx, name, args...)
	}
	f := g.Gather(t.Context(), Args{Intent: desired(t, "rxe")})
	f.PCI = append(f.PCI, PCIDevice{BDF: "0000:19:00.0", Kind: "gpu", Name: "GPU0"}, PCIDevice{BDF: "0000:1a:00.0", Kind: "nic", Name: "ens1f0np0", RDMADevice: "mlx5_0"})
	rs := Evaluate(f, Options{})
	if r := resultOf(t, rs, IDACS); r.Status != checks.StatusPass || r.Target != "lab-01/GPU0↔0000:1a:00.0" {
		t.Errorf("%+v", r)
	}
	if r := resultOf(t, rs, IDMaxReadReq); r.Status != checks.StatusPass {
		t.Errorf("%+v", r)
	}
}

// TestNoToolsNoCrash: without nvidia-smi, lspci or python3 the facts say why
// and nothing fails for it.
func TestNoToolsNoCrash(t *testing.T) {
	g, _ := rxeGatherer(t)
	f := g.Gather(t.Context(), Args{Intent: desired(t, "rxe")})
	if f.GPUHost == nil || !strings.Contains(f.GPUHost.SMIError, "executable file not found") || f.GPUHost.PCIError == "" {
		t.Fatalf("%+v", f.GPUHost)
	}
	for _, r := range Evaluate(f, Options{}) {
		switch r.ID {
		case IDGPU, IDNCCLLibs, IDReplays, IDIOMMU, IDACS, IDMaxReadReq, IDNVLink, IDPeerMem:
			if r.Status == checks.StatusFail || r.Status == checks.StatusError {
				t.Errorf("%+v", r)
			}
		}
	}
}
