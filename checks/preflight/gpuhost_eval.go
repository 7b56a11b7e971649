package preflight

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/fabricctl/fabricctl/checks"
	"github.com/fabricctl/fabricctl/checks/analyze"
	"github.com/fabricctl/fabricctl/checks/hostparse"
)

// Check IDs of the GPU server facts.
const (
	IDGPU        = "preflight/gpu"            // model, driver, CUDA, VBIOS
	IDNCCLLibs   = "preflight/nccl-libraries" // every libnccl and the one PyTorch loads
	IDReplays    = "preflight/pcie-replays"   // nvidia-smi's PCIe replay counter
	IDIOMMU      = "preflight/iommu"
	IDACS        = "preflight/acs"              // no ACS redirect between a GPU and an RDMA NIC
	IDMaxReadReq = "preflight/max-read-request" // ConnectX MaxReadReq
	IDNVLink     = "preflight/nvlink"           // nvidia-smi nvlink -e counters
)

func hasGPU(f Facts) bool {
	if f.GPUHost != nil && len(f.GPUHost.GPUs) > 0 {
		return true
	}
	return slices.ContainsFunc(f.PCI, func(d PCIDevice) bool { return d.Kind == "gpu" })
}

// evalGPUHost judges the GPU server facts.
func evalGPUHost(host string, f Facts) []checks.Result {
	h := f.GPUHost
	if h == nil {
		return nil
	}
	var out []checks.Result
	gpus := hasGPU(f)
	switch {
	case len(h.GPUs) > 0:
		for _, g := range h.GPUs {
			out = append(out, pass(IDGPU, host+"/"+g.BusID, fmt.Sprintf("%s, driver %s, CUDA %s, VBIOS %s", orDash(g.Product), orDash(h.Driver), orDash(h.CUDA), orDash(g.VBIOS))))
			r := analyze.ReplayFinding(IDReplays, g.BusID, g.Replays, g.ReplayRollovers)
			out = append(out, checks.Result{ID: IDReplays, Target: host + "/" + g.BusID, Status: r.Status, Class: r.Class, Summary: r.Summary})
		}
	case gpus:
		out = append(out, bad(IDGPU, host, checks.StatusError, checks.MissingTool, "GPUs on PCIe but nvidia-smi gave nothing: "+orDash(h.SMIError)))
	default:
		out = append(out, bad(IDGPU, host, checks.StatusSkip, "", "no GPU"))
	}
	out = append(out, evalNCCLLibs(host, h))
	if gpus {
		out = append(out, evalIOMMU(host, h.IOMMU), evalNVLinkCounters(host, h))
		out = append(out, evalPCIePath(host, f)...)
	}
	return out
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func (l NCCLLib) String() string {
	v := l.Version
	if v == "" {
		v = "version unknown"
	}
	return fmt.Sprintf("%s %s (%s)", l.Source, v, l.Path)
}

// evalNCCLLibs reports every libnccl and which one PyTorch loads; several
// versions on one host are fine as long as one knows which one runs.
func evalNCCLLibs(host string, h *HostFacts) checks.Result {
	if len(h.NCCL) == 0 {
		return bad(IDNCCLLibs, host, checks.StatusSkip, "", "no libnccl on this host")
	}
	var ev []string
	for _, l := range h.NCCL {
		ev = append(ev, l.String())
	}
	for _, l := range h.Loaded {
		ev = append(ev, fmt.Sprintf("loaded by pid %d (%s): %s", l.PID, l.Comm, l.Path))
	}
	summary := fmt.Sprintf("%d libnccl on the host", len(h.NCCL))
	for _, t := range h.Torch {
		switch {
		case t.NCCL != nil:
			summary += fmt.Sprintf("; PyTorch %s (%s) loads %s", orDash(t.Version), t.Dir, t.NCCL)
		default:
			summary += fmt.Sprintf("; PyTorch %s (%s) loads the system's libnccl.so.2", orDash(t.Version), t.Dir)
		}
	}
	r := pass(IDNCCLLibs, host, summary)
	r.Evidence = ev
	return r
}

// evalGPUDirect judges GPUDirect RDMA: the peer-memory module, or DMA-BUF.
// The open kernel module reports DMA-BUF support (and deprecates
// nvidia_peermem); the kernel needs CONFIG_DMA_SHARED_BUFFER and 5.12 or later.
func evalGPUDirect(host string, f Facts) checks.Result {
	if !hasGPU(f) {
		return bad(IDPeerMem, host, checks.StatusSkip, "", "no GPU")
	}
	peer := f.PeerMemory
	var gd GPUDirect
	if f.GPUHost != nil {
		gd = f.GPUHost.GPUDirect
		peer = append(peer, gd.PeerMem...)
		slices.Sort(peer)
		peer = slices.Compact(peer)
	}
	ev := gpuDirectEvidence(gd)
	switch {
	case len(peer) > 0:
		r := pass(IDPeerMem, host, strings.Join(peer, ", ")+" loaded: GPUDirect RDMA through peer memory")
		r.Evidence = ev
		return r
	case gd.DMABufAttr != nil && *gd.DMABufAttr:
		r := pass(IDPeerMem, host, "GPUDirect RDMA through DMA-BUF: the driver reports DMA-BUF support (nvidia_peermem is not needed)")
		r.Evidence = ev
		return r
	case gd.DMABufAttr == nil && gd.OpenModule && (gd.DMABufConfig == "y" || gd.DMABufConfig == "m") && kernelAtLeast(gd.Kernel, 5, 12):
		r := pass(IDPeerMem, host, "GPUDirect RDMA through DMA-BUF: open kernel module, CONFIG_DMA_SHARED_BUFFER="+gd.DMABufConfig+", kernel "+gd.Kernel)
		r.Evidence = ev
		return r
	}
	why := "neither nvidia_peermem nor nv_peer_mem is loaded"
	switch {
	case gd.DMABufAttr != nil:
		why += ", and the driver reports no DMA-BUF support"
	case !gd.OpenModule:
		why += ", and DMA-BUF needs the open kernel module (this driver is the proprietary one)"
	case gd.DMABufConfig == "n":
		why += ", and the kernel lacks CONFIG_DMA_SHARED_BUFFER"
	case !kernelAtLeast(gd.Kernel, 5, 12):
		why += ", and DMA-BUF needs kernel 5.12 or later"
	}
	return bad(IDPeerMem, host, checks.StatusFail, "", "GPUs present but no GPUDirect RDMA: "+why, ev...)
}

func gpuDirectEvidence(gd GPUDirect) []string {
	var ev []string
	if gd.Kernel != "" {
		ev = append(ev, "kernel "+gd.Kernel)
	}
	ev = append(ev, fmt.Sprintf("open kernel module: %v", gd.OpenModule))
	if gd.DMABufConfig != "" {
		ev = append(ev, "CONFIG_DMA_SHARED_BUFFER="+gd.DMABufConfig)
	} else {
		ev = append(ev, "kernel config not readable")
	}
	switch {
	case gd.DMABufAttr != nil:
		ev = append(ev, fmt.Sprintf("CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED=%v (%s)", *gd.DMABufAttr, gd.ProbeSource))
	case gd.ProbeError != "":
		ev = append(ev, "DMA-BUF attribute unknown: "+gd.ProbeError)
	}
	return ev
}

// kernelAtLeast compares "6.18.44-fc-v236-gpu" with major.minor.
func kernelAtLeast(release string, major, minor int) bool {
	parts := strings.SplitN(release, ".", 3)
	if len(parts) < 2 {
		return false
	}
	ma, err1 := strconv.Atoi(parts[0])
	mi, err2 := strconv.Atoi(strings.TrimRightFunc(parts[1], func(r rune) bool { return r < '0' || r > '9' }))
	if err1 != nil || err2 != nil {
		return false
	}
	return ma > major || (ma == major && mi >= minor)
}

// evalIOMMU: GPUDirect RDMA needs the IOMMU off or in passthrough
// (identity) for the GPU and the NIC; DMA translation breaks or slows
// peer-to-peer transfers.
func evalIOMMU(host string, io IOMMU) checks.Result {
	translated := io.GroupTypes["DMA"] + io.GroupTypes["DMA-FQ"]
	switch {
	case io.Units == 0 && len(io.GroupTypes) == 0:
		return pass(IDIOMMU, host, "no IOMMU in use")
	case translated == 0:
		return pass(IDIOMMU, host, fmt.Sprintf("IOMMU in passthrough (%s)", orDash(io.Cmdline)))
	}
	return bad(IDIOMMU, host, checks.StatusWarn, "", fmt.Sprintf("the IOMMU translates DMA for %d groups (%s): GPUDirect RDMA peer-to-peer needs iommu=pt (or ATS)", translated, orDash(io.Cmdline)))
}

// evalNVLinkCounters judges nvidia-smi nvlink -e: any non-zero counter warns.
func evalNVLinkCounters(host string, h *HostFacts) checks.Result {
	switch {
	case h.NVLink == nil && h.NVLinkError != "":
		return bad(IDNVLink, host, checks.StatusSkip, "", "nvidia-smi nvlink -e: "+h.NVLinkError)
	case h.NVLink == nil || h.NVLink.Inactive || len(h.NVLink.GPUs) == 0:
		return bad(IDNVLink, host, checks.StatusSkip, "", "no active NVLink")
	}
	var errs []string
	links := 0
	for _, g := range h.NVLink.GPUs {
		for _, l := range g.Links {
			links++
			for k, v := range l.Errors {
				if v > 0 {
					errs = append(errs, fmt.Sprintf("GPU%d link %d %s %d", g.Index, l.Link, k, v))
				}
			}
		}
	}
	slices.Sort(errs)
	if len(errs) > 0 {
		return bad(IDNVLink, host, checks.StatusWarn, "", fmt.Sprintf("%d NVLink error counters are not zero", len(errs)), errs...)
	}
	if links == 0 {
		return bad(IDNVLink, host, checks.StatusSkip, "", "no NVLink counters reported")
	}
	return pass(IDNVLink, host, fmt.Sprintf("no NVLink errors on %d links", links))
}

// evalPCIePath judges, from lspci -vvv, ACS on every GPU↔RDMA-NIC path and
// the NICs' MaxReadReq.
func evalPCIePath(host string, f Facts) []checks.Result {
	h := f.GPUHost
	var nics []string
	for _, d := range f.PCI {
		if d.Kind == "nic" {
			nics = append(nics, d.BDF)
		}
	}
	if len(nics) == 0 {
		return []checks.Result{bad(IDACS, host, checks.StatusSkip, "", "no RDMA NIC on PCIe: no GPU↔NIC path to check")}
	}
	if h.PCIError != "" || len(h.PCI) == 0 {
		return []checks.Result{bad(IDACS, host, checks.StatusSkip, "", "lspci -vvv is not available: "+orDash(h.PCIError))}
	}
	find := func(bdf string) (hostparse.PCIDevice, bool) {
		for _, d := range h.PCI {
			if strings.HasSuffix(bdf, d.Address) || strings.HasSuffix(d.Address, strings.TrimPrefix(bdf, "0000:")) {
				return d, true
			}
		}
		return hostparse.PCIDevice{}, false
	}
	var out []checks.Result
	for _, n := range nics {
		nd, ok := find(n)
		if !ok {
			continue
		}
		if nd.MaxReadReq > 0 {
			if nd.MaxReadReq < analyze.RecommendedMaxReadReq {
				out = append(out, bad(IDMaxReadReq, host+"/"+n, checks.StatusWarn, "", fmt.Sprintf("MaxReadReq %d bytes; %d is recommended for ConnectX", nd.MaxReadReq, analyze.RecommendedMaxReadReq)))
			} else {
				out = append(out, pass(IDMaxReadReq, host+"/"+n, fmt.Sprintf("MaxReadReq %d bytes", nd.MaxReadReq)))
			}
		}
		for _, g := range f.PCI {
			if g.Kind != "gpu" {
				continue
			}
			gd, ok := find(g.BDF)
			if !ok {
				continue
			}
			bridges, _ := hostparse.PathBridges(h.PCI, gd.Address, nd.Address)
			var redirect []string
			for _, b := range bridges {
				if b.ACSRedirects() {
					redirect = append(redirect, b.Address)
				}
			}
			target := fmt.Sprintf("%s/%s↔%s", host, g.Name, n)
			if len(redirect) > 0 {
				out = append(out, bad(IDACS, target, checks.StatusFail, "", "ACS redirects peer-to-peer traffic on "+strings.Join(redirect, ", ")+": GPUDirect RDMA detours through the root complex"))
			} else {
				out = append(out, pass(IDACS, target, fmt.Sprintf("no ACS redirect on the %d bridges between them", len(bridges))))
			}
		}
	}
	return out
}
