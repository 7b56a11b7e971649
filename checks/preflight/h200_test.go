package preflight

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/checks"
	"github.com/fabricctl/fabricctl/hostcfg"
	"github.com/fabricctl/fabricctl/hostcfg/sysfs"
)

const h200Dir = "../testdata/h200"

func h200File(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(h200Dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// h200Gatherer gathers on the real H200 server as its captures show it
// (../testdata/h200/README.md): its sysfs PCI tree, its nvidia-smi output,
// its /proc/driver/nvidia/version, kernel configuration and modules, the
// libnccl files `find` listed and the packages pip showed, and the driver's
// DMA-BUF attribute that cuDeviceGetAttribute returned.
func h200Gatherer(t *testing.T) *Gatherer {
	t.Helper()
	proc, root := t.TempDir(), t.TempDir()
	drv := h200File(t, "proc-driver-nvidia.txt")
	_, version, _ := strings.Cut(drv, "==> /proc/driver/nvidia/version <==\n")
	version, _, _ = strings.Cut(version, "==>")
	release := strings.Fields(h200File(t, "uname.txt"))[2]
	var cfg bytes.Buffer
	z := gzip.NewWriter(&cfg)
	z.Write([]byte(h200File(t, "kernel-config.txt")))
	z.Close()
	touch(t, proc, map[string]string{"driver/nvidia/version": version, "sys/kernel/osrelease": release + "\n",
		"modules": h200File(t, "proc-modules.txt"), "config.gz": cfg.String(), "cmdline": h200File(t, "proc-cmdline.txt")})
	files := map[string]string{}
	for _, p := range strings.Fields(h200File(t, "find-libnccl.txt")) {
		if strings.Contains(p, ".so") {
			files[strings.TrimPrefix(p, "/")] = ""
		}
	}
	pip := h200File(t, "pip-nccl.txt")
	sp := "opt/torch/.venv/lib/python3.12/site-packages/"
	for name, dist := range map[string]string{"nvidia-nccl-cu13": "nvidia_nccl_cu13", "torch": "torch"} {
		m := regexp.MustCompile(`Name: ` + name + `\nVersion: (\S+)`).FindStringSubmatch(pip)
		if m == nil {
			t.Fatalf("pip-nccl.txt shows no %s", name)
		}
		files[sp+dist+"-"+m[1]+".dist-info/METADATA"] = ""
	}
	files[sp+"torch/lib/libtorch_cuda.so"] = ""
	touch(t, root, files)
	attr := regexp.MustCompile(`(?m)^DMA_BUF_SUPPORTED 124 0 (\d)$`).FindStringSubmatch(h200File(t, "cuda-attrs.txt"))
	if attr == nil {
		t.Fatal("cuda-attrs.txt has no DMA_BUF_SUPPORTED")
	}
	return &Gatherer{
		Open: func(context.Context) (*hostcfg.Host, error) {
			return nil, errors.New("no RDMA netlink backend on this host")
		},
		Sys:      sysfs.NewFS(filepath.Join(h200Dir, "sysfs")),
		ProcRoot: proc, FileRoot: root,
		LookPath: func(string) (string, error) {
			return "", errors.New(`exec: "ib_write_bw": executable file not found in $PATH`)
		},
		Resolve: func(context.Context, string) ([]string, error) { return nil, errors.New("no such host") },
		Run: func(_ context.Context, name string, args ...string) ([]byte, error) {
			switch {
			case name == "nvidia-smi" && strings.Join(args, " ") == "-q":
				return []byte(h200File(t, "nvidia-smi-q.txt")), nil
			case name == "nvidia-smi" && strings.Join(args, " ") == "nvlink -e":
				return []byte(h200File(t, "nvlink-e.txt")), nil
			case name == "python3":
				return []byte("dmabuf " + attr[1] + "\n"), nil
			}
			return nil, fmt.Errorf("running %s: exec: %q: executable file not found in $PATH", name, name)
		},
	}
}

// TestH200Host judges the real H200 server: PyTorch loads its pip NCCL 2.28.9
// (the system has 2.28.3), GPUDirect RDMA works through DMA-BUF with the open
// kernel module and no nvidia_peermem, AER is unavailable in the guest
// kernel (a skip with the reason), and the missing RDMA device is a clear
// failure.
func TestH200Host(t *testing.T) {
	f := h200Gatherer(t).Gather(t.Context(), Args{Intent: desired(t, "rxe")})
	if f.NCCL != "2.28.9" {
		t.Errorf("NCCL %q, want what PyTorch loads", f.NCCL)
	}
	want := map[string]checks.Status{
		IDPeerMem: checks.StatusPass, IDNCCLLibs: checks.StatusPass, IDGPU: checks.StatusPass, IDReplays: checks.StatusPass,
		IDAER: checks.StatusSkip, IDIOMMU: checks.StatusPass, IDNVLink: checks.StatusSkip, IDPCIe: checks.StatusPass, IDAffinity: checks.StatusSkip,
	}
	rs := Evaluate(f, Options{})
	for id, st := range want {
		if r := resultOf(t, rs, id); r.Status != st {
			t.Errorf("%s: %s %q, want %s", id, r.Status, r.Summary, st)
		}
	}
	if r := resultOf(t, rs, IDPeerMem); !strings.Contains(r.Summary, "DMA-BUF") {
		t.Errorf("%+v", r)
	}
	if r := resultOf(t, rs, IDNCCLLibs); !strings.Contains(r.Summary, "PyTorch 2.11.0") || !strings.Contains(r.Summary, "pip 2.28.9") || !strings.Contains(strings.Join(r.Evidence, " "), "system 2.28.3") {
		t.Errorf("%+v", r)
	}
	if r := resultOf(t, rs, IDGPU); r.Summary != "NVIDIA H200, driver 580.159.04, CUDA 13.0, VBIOS 96.00.A5.00.1A" {
		t.Errorf("%+v", r)
	}
	if r := resultOf(t, rs, IDAER); !strings.Contains(r.Summary, "kernel does not own PCIe") {
		t.Errorf("%+v", r)
	}
	if r := resultOf(t, rs, IDRDMADevice); r.Status != checks.StatusFail || r.Class != checks.NoDevice {
		t.Errorf("%+v", r)
	}
}
