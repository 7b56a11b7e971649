package preflight

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/fabricctl/fabricctl/checks/hostparse"
	"github.com/fabricctl/fabricctl/hostcfg"
	"github.com/fabricctl/fabricctl/hostcfg/sysfs"
)

// effectiveNCCL is the libnccl a job would load: the one a PyTorch
// installation loads (the first), else the system's newest; nil for none.
func (h *HostFacts) effectiveNCCL() *NCCLLib {
	if h == nil {
		return nil
	}
	for _, t := range h.Torch {
		if t.NCCL != nil {
			return t.NCCL
		}
	}
	return nil
}

// HostFacts are the facts of a GPU server beyond its RDMA ports: the GPUs
// and their driver, every NCCL library a process could load, the ways
// GPUDirect RDMA can work, the IOMMU, and what lspci and nvidia-smi say
// about PCIe and NVLink. Gathered by Gatherer.gatherHost; plain data.
type HostFacts struct {
	// GPUs, Driver and CUDA are what nvidia-smi -q says; SMIError why it could not run.
	GPUs     []hostparse.SMIGPU `json:"gpus,omitempty"`
	Driver   string             `json:"driver,omitempty"`
	CUDA     string             `json:"cuda,omitempty"`
	SMIError string             `json:"smiError,omitempty"`
	// DriverModule is /proc/driver/nvidia/version's first line: the open
	// kernel module says "Open Kernel Module".
	DriverModule string `json:"driverModule,omitempty"`
	// NCCL lists every libnccl found: system library directories, pip's
	// nvidia/nccl/lib, conda environments.
	NCCL []NCCLLib `json:"nccl,omitempty"`
	// Torch lists each PyTorch installation and the libnccl it loads.
	Torch []TorchInstall `json:"torch,omitempty"`
	// Loaded lists the libnccl running processes have mapped (/proc/PID/maps).
	Loaded []LoadedLib `json:"loaded,omitempty"`
	// GPUDirect holds the evidence for GPUDirect RDMA: the peer-memory
	// module, or DMA-BUF (the open kernel module, the kernel's
	// CONFIG_DMA_SHARED_BUFFER, the driver's CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED).
	GPUDirect GPUDirect `json:"gpuDirect"`
	// IOMMU is the IOMMU's mode.
	IOMMU IOMMU `json:"iommu"`
	// PCI holds lspci -vvv's view of the GPUs, the RDMA NICs and the
	// bridges above them (ACS, MaxReadReq, bus ranges); PCIError why lspci
	// could not run.
	PCI      []hostparse.PCIDevice `json:"lspci,omitempty"`
	PCIError string                `json:"lspciError,omitempty"`
	// NVLink is nvidia-smi nvlink -e; NVLinkError why it could not run.
	NVLink      *hostparse.NVLink `json:"nvlink,omitempty"`
	NVLinkError string            `json:"nvlinkError,omitempty"`
}

// NCCLLib is one libnccl on disk.
type NCCLLib struct {
	Path    string `json:"path"`
	Version string `json:"version,omitempty"` // "2.28.9"; empty when neither the name nor a package says
	Source  string `json:"source"`            // system, pip, conda, torch
}

// TorchInstall is one PyTorch installation and the NCCL it loads.
type TorchInstall struct {
	Dir     string   `json:"dir"` // …/site-packages/torch
	Version string   `json:"version,omitempty"`
	NCCL    *NCCLLib `json:"nccl,omitempty"` // nil: the system's (by the loader's search path)
}

// LoadedLib is a libnccl a running process has mapped.
type LoadedLib struct {
	PID  int    `json:"pid"`
	Comm string `json:"comm,omitempty"`
	Path string `json:"path"`
}

// GPUDirect is the evidence for GPUDirect RDMA.
type GPUDirect struct {
	PeerMem      []string `json:"peerMem,omitempty"` // nvidia_peermem, nv_peer_mem loaded (/proc/modules)
	OpenModule   bool     `json:"openModule,omitempty"`
	Kernel       string   `json:"kernel,omitempty"`       // /proc/sys/kernel/osrelease
	DMABufConfig string   `json:"dmabufConfig,omitempty"` // CONFIG_DMA_SHARED_BUFFER: y, m, n; "" when the config is not readable
	// DMABufAttr is CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED of GPU 0 as the
	// driver reports it; nil when it could not be asked.
	DMABufAttr  *bool  `json:"dmabufAttr,omitempty"`
	ProbeError  string `json:"probeError,omitempty"`
	ProbeSource string `json:"probeSource,omitempty"`
}

// IOMMU is the IOMMU's state.
type IOMMU struct {
	// Units are /sys/class/iommu entries (dmar0, ivhd0 …); none: no IOMMU in use.
	Units int `json:"units"`
	// GroupTypes counts /sys/kernel/iommu_groups/*/type: DMA, DMA-FQ,
	// identity (passthrough), blocked.
	GroupTypes map[string]int `json:"groupTypes,omitempty"`
	Cmdline    string         `json:"cmdline,omitempty"` // iommu / intel_iommu / amd_iommu options of /proc/cmdline
}

// Command runs a tool on the host and returns its stdout.
type Command func(ctx context.Context, name string, args ...string) ([]byte, error)

func execCommand(ctx context.Context, name string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		if s := strings.TrimSpace(stderr.String()); s != "" {
			return out, fmt.Errorf("running %s: %w: %s", name, err, firstLine(s))
		}
		return out, fmt.Errorf("running %s: %w", name, err)
	}
	return out, nil
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// DefaultPythonDirs are the site-packages globs searched for pip's NCCL and
// PyTorch.
var DefaultPythonDirs = []string{
	"/usr/lib/python3*/site-packages", "/usr/lib/python3*/dist-packages",
	"/usr/local/lib/python3*/site-packages", "/usr/local/lib/python3*/dist-packages",
	"/opt/conda/lib/python3*/site-packages", "/opt/conda/envs/*/lib/python3*/site-packages",
	"/opt/*/.venv/lib/python3*/site-packages", "/opt/*/lib/python3*/site-packages",
	"/root/.local/lib/python3*/site-packages", "/home/*/.local/lib/python3*/site-packages",
	"/home/*/miniconda3/envs/*/lib/python3*/site-packages", "/home/*/.venv/lib/python3*/site-packages",
}

// DefaultCondaDirs are the conda library directories searched for libnccl.
var DefaultCondaDirs = []string{"/opt/conda/lib", "/opt/conda/envs/*/lib", "/home/*/miniconda3/envs/*/lib", "/home/*/anaconda3/envs/*/lib"}

// gatherHost collects HostFacts. Nothing here fails the gathering: what
// cannot be read is left empty or says why.
func (g *Gatherer) gatherHost(ctx context.Context, pci []PCIDevice) *HostFacts {
	run := g.Run
	if run == nil {
		run = execCommand
	}
	h := &HostFacts{}
	if out, err := run(ctx, "nvidia-smi", "-q"); err != nil {
		h.SMIError = err.Error()
	} else if q, err := hostparse.ParseNvidiaSMIQ(bytes.NewReader(out)); err != nil {
		h.SMIError = err.Error()
	} else {
		h.GPUs, h.Driver, h.CUDA = q.GPUs, q.Driver, q.CUDA
	}
	if b, err := os.ReadFile(filepath.Join(g.procRoot(), "driver", "nvidia", "version")); err == nil {
		h.DriverModule = firstLine(strings.TrimSpace(string(b)))
	}
	h.NCCL, h.Torch = g.ncclLibraries()
	h.Loaded = g.loadedNCCL()
	h.GPUDirect = g.gpuDirect(ctx, h)
	h.IOMMU = g.iommu()
	if len(h.GPUs) > 0 || slices.ContainsFunc(pci, func(d PCIDevice) bool { return d.Kind == "gpu" }) {
		if out, err := run(ctx, "nvidia-smi", "nvlink", "-e"); err != nil {
			h.NVLinkError = err.Error()
		} else if nl, err := hostparse.ParseNVLink(bytes.NewReader(out)); err == nil {
			h.NVLink = nl
		} else if len(bytes.TrimSpace(out)) == 0 {
			h.NVLink = &hostparse.NVLink{Inactive: true}
		} else {
			h.NVLinkError = err.Error()
		}
	}
	if out, err := run(ctx, "lspci", "-vvv"); err != nil {
		h.PCIError = err.Error()
	} else if devs, err := hostparse.ParsePCI(bytes.NewReader(out)); err != nil {
		h.PCIError = err.Error()
	} else {
		h.PCI = relevantPCI(devs)
	}
	return h
}

// relevantPCI keeps the GPUs, the Mellanox NICs and every bridge (the paths
// between them), dropping the rest of a server's PCIe tree.
func relevantPCI(devs []hostparse.PCIDevice) []hostparse.PCIDevice {
	var out []hostparse.PCIDevice
	for _, d := range devs {
		if d.Address == "" {
			continue
		}
		if d.Bus != nil || strings.Contains(d.Description, "NVIDIA") || strings.Contains(d.Description, "Mellanox") {
			out = append(out, d)
		}
	}
	return out
}

var (
	systemNCCLRe = regexp.MustCompile(`^libnccl\.so\.(\d+\.\d+\.\d+)$`)
	pipNCCLRe    = regexp.MustCompile(`^nvidia_nccl_cu\d+-([\d.]+)\.dist-info$`)
	torchDistRe  = regexp.MustCompile(`^torch-([^-]+)\.dist-info$`)
	condaNCCLRe  = regexp.MustCompile(`^nccl-([\d.]+)-[^-]+\.json$`)
)

func (g *Gatherer) rooted(p string) string {
	if g.FileRoot == "" {
		return p
	}
	return filepath.Join(g.FileRoot, p)
}

func (g *Gatherer) unrooted(p string) string {
	if g.FileRoot == "" {
		return p
	}
	if rel, err := filepath.Rel(g.FileRoot, p); err == nil && !strings.HasPrefix(rel, "..") {
		return "/" + rel
	}
	return p
}

// glob expands patterns; the defaults (given is nil) are looked up below
// FileRoot, patterns the caller set as they are.
func (g *Gatherer) glob(given, defaults []string) []string {
	patterns, root := given, false
	if given == nil {
		patterns, root = defaults, true
	}
	var out []string
	for _, p := range patterns {
		if root {
			p = g.rooted(p)
		}
		m, _ := filepath.Glob(p)
		out = append(out, m...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// ncclLibraries finds every libnccl: the system's (versioned file names in
// the library directories), pip's (site-packages/nvidia/nccl/lib, versioned
// by its dist-info), conda's, and the libnccl each PyTorch loads: its own
// copy in torch/lib, else pip's beside it (its RPATH points there), else the
// system's.
func (g *Gatherer) ncclLibraries() ([]NCCLLib, []TorchInstall) {
	var libs []NCCLLib
	for _, d := range g.glob(g.LibDirs, DefaultLibDirs) {
		entries, _ := os.ReadDir(d)
		for _, e := range entries {
			if m := systemNCCLRe.FindStringSubmatch(e.Name()); m != nil {
				libs = append(libs, NCCLLib{Path: g.unrooted(filepath.Join(d, e.Name())), Version: m[1], Source: "system"})
			}
		}
	}
	for _, d := range g.glob(g.CondaDirs, DefaultCondaDirs) {
		version := ""
		if metas, _ := filepath.Glob(filepath.Join(filepath.Dir(d), "conda-meta", "nccl-*.json")); len(metas) > 0 {
			if m := condaNCCLRe.FindStringSubmatch(filepath.Base(metas[0])); m != nil {
				version = m[1]
			}
		}
		entries, _ := os.ReadDir(d)
		for _, e := range entries {
			if m := systemNCCLRe.FindStringSubmatch(e.Name()); m != nil {
				libs = append(libs, NCCLLib{Path: g.unrooted(filepath.Join(d, e.Name())), Version: m[1], Source: "conda"})
			} else if e.Name() == "libnccl.so.2" && version != "" {
				libs = append(libs, NCCLLib{Path: g.unrooted(filepath.Join(d, e.Name())), Version: version, Source: "conda"})
			}
		}
	}
	var torch []TorchInstall
	for _, sp := range g.glob(g.PythonDirs, DefaultPythonDirs) {
		entries, _ := os.ReadDir(sp)
		pipVersion, torchVersion := "", ""
		for _, e := range entries {
			if m := pipNCCLRe.FindStringSubmatch(e.Name()); m != nil {
				pipVersion = m[1]
			}
			if m := torchDistRe.FindStringSubmatch(e.Name()); m != nil {
				torchVersion = m[1]
			}
		}
		var pip *NCCLLib
		if _, err := os.Stat(filepath.Join(sp, "nvidia", "nccl", "lib", "libnccl.so.2")); err == nil {
			pip = &NCCLLib{Path: g.unrooted(filepath.Join(sp, "nvidia", "nccl", "lib", "libnccl.so.2")), Version: pipVersion, Source: "pip"}
			libs = append(libs, *pip)
		}
		torchDir := filepath.Join(sp, "torch")
		if _, err := os.Stat(filepath.Join(torchDir, "lib")); err != nil {
			continue
		}
		t := TorchInstall{Dir: g.unrooted(torchDir), Version: torchVersion}
		own, _ := filepath.Glob(filepath.Join(torchDir, "lib", "libnccl.so*"))
		switch {
		case len(own) > 0:
			l := NCCLLib{Path: g.unrooted(own[0]), Source: "torch"}
			if m := systemNCCLRe.FindStringSubmatch(filepath.Base(own[0])); m != nil {
				l.Version = m[1]
			}
			libs = append(libs, l)
			t.NCCL = &l
		case pip != nil:
			t.NCCL = pip
		}
		torch = append(torch, t)
	}
	return libs, torch
}

// loadedNCCL reads /proc/*/maps for libnccl mappings of running processes.
func (g *Gatherer) loadedNCCL() []LoadedLib {
	var out []LoadedLib
	pids, _ := filepath.Glob(filepath.Join(g.procRoot(), "[0-9]*"))
	for _, p := range pids {
		pid, err := strconv.Atoi(filepath.Base(p))
		if err != nil || len(out) >= 64 {
			continue
		}
		f, err := os.Open(filepath.Join(p, "maps"))
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			line := sc.Text()
			if i := strings.Index(line, "/"); i >= 0 && strings.Contains(line[i:], "libnccl") {
				comm, _ := os.ReadFile(filepath.Join(p, "comm"))
				out = append(out, LoadedLib{PID: pid, Comm: strings.TrimSpace(string(comm)), Path: line[i:]})
				break
			}
		}
		f.Close()
	}
	return out
}

// dmabufProbe asks the CUDA driver for CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED
// (124) of device 0 through libcuda, with python3's ctypes (fabricctl is
// built without cgo). It prints "dmabuf N".
const dmabufProbe = `import ctypes
c = ctypes.CDLL("libcuda.so.1")
v = ctypes.c_int(0)
r = c.cuInit(0)
if r == 0:
    r = c.cuDeviceGetAttribute(ctypes.byref(v), 124, 0)
print("dmabuf", v.value if r == 0 else "error %d" % r)
`

var dmabufOutRe = regexp.MustCompile(`(?m)^dmabuf (\d+|error \d+)$`)

// gpuDirect gathers the evidence for GPUDirect RDMA.
func (g *Gatherer) gpuDirect(ctx context.Context, h *HostFacts) GPUDirect {
	gd := GPUDirect{PeerMem: g.peerMemory(), OpenModule: strings.Contains(h.DriverModule, "Open Kernel Module")}
	if b, err := os.ReadFile(filepath.Join(g.procRoot(), "sys", "kernel", "osrelease")); err == nil {
		gd.Kernel = strings.TrimSpace(string(b))
	}
	gd.DMABufConfig = g.kernelConfig(gd.Kernel, "CONFIG_DMA_SHARED_BUFFER")
	if len(h.GPUs) == 0 || g.NoProbe {
		return gd
	}
	run := g.Run
	if run == nil {
		run = execCommand
	}
	gd.ProbeSource = "libcuda cuDeviceGetAttribute(CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED) via python3 ctypes"
	out, err := run(ctx, "python3", "-c", dmabufProbe)
	m := dmabufOutRe.FindSubmatch(out)
	switch {
	case m != nil && !bytes.HasPrefix(m[1], []byte("error")):
		v := string(m[1]) == "1"
		gd.DMABufAttr = &v
	case m != nil:
		gd.ProbeError = "libcuda: " + string(m[1])
	case err != nil:
		gd.ProbeError = err.Error()
	default:
		gd.ProbeError = fmt.Sprintf("unexpected output %q", firstLine(string(out)))
	}
	return gd
}

// kernelConfig reads one option of the running kernel's configuration from
// /proc/config.gz or /boot/config-RELEASE: "y", "m", "n" (not set), or ""
// when neither file is readable.
func (g *Gatherer) kernelConfig(release, option string) string {
	var r io.Reader
	if f, err := os.Open(filepath.Join(g.procRoot(), "config.gz")); err == nil {
		defer f.Close()
		if z, err := gzip.NewReader(f); err == nil {
			r = z
		}
	}
	if r == nil && release != "" {
		f, err := os.Open(g.rooted(filepath.Join("/boot", "config-"+release)))
		if err != nil {
			return ""
		}
		defer f.Close()
		r = f
	}
	if r == nil {
		return ""
	}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		if v, ok := strings.CutPrefix(line, option+"="); ok {
			return v
		}
		if line == "# "+option+" is not set" {
			return "n"
		}
	}
	return "n"
}

// iommu reads the IOMMU's state from sysfs and the kernel command line.
func (g *Gatherer) iommu() IOMMU {
	var io IOMMU
	sys := g.Sys
	if sys == (sysfs.FS{}) {
		sys = sysfs.NewFS(hostcfg.DefaultSysRoot)
	}
	units, _ := os.ReadDir(sys.Path("class", "iommu"))
	io.Units = len(units)
	types, _ := filepath.Glob(sys.Path("kernel", "iommu_groups", "*", "type"))
	for _, t := range types {
		b, err := os.ReadFile(t)
		if err != nil {
			continue
		}
		if io.GroupTypes == nil {
			io.GroupTypes = map[string]int{}
		}
		io.GroupTypes[strings.TrimSpace(string(b))]++
	}
	if b, err := os.ReadFile(filepath.Join(g.procRoot(), "cmdline")); err == nil {
		var opts []string
		for _, f := range strings.Fields(string(b)) {
			if strings.HasPrefix(f, "iommu") || strings.HasPrefix(f, "intel_iommu") || strings.HasPrefix(f, "amd_iommu") {
				opts = append(opts, f)
			}
		}
		io.Cmdline = strings.Join(opts, " ")
	}
	return io
}
