package preflight

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/fabricctl/fabricctl/agent"
	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/hostcfg"
	"github.com/fabricctl/fabricctl/hostcfg/sysfs"
)

// Op is the agent op that gathers a host's Facts: Args → Facts.
const Op = "preflight"

// Args are the arguments of Op.
type Args struct {
	// Intent is the host's desired state (fabric Resolve); its interfaces
	// are the RoCE netdevs to check.
	Intent fabric.HostIntent `json:"intent"`
	// Peers are the other hosts, whose names and addresses must resolve here.
	Peers []Peer `json:"peers,omitempty"`
}

// Peer is another host of the fabric.
type Peer struct {
	Name    string `json:"name"`
	Address string `json:"address"`
}

// Facts is what a host's agent reports for preflight. It is plain data: the
// controller judges it (Evaluate, Fleet).
type Facts struct {
	Host     string `json:"host"`
	Hostname string `json:"hostname,omitempty"`
	// Observed is hostcfg's observation of the intent's netdevs (each with
	// its RDMA port, GIDs and RoCE v2 IPv4 GID index), and Plan the diff
	// against the intent: any change is a lossless setting that drifted.
	Observed *hostcfg.Observed `json:"observed,omitempty"`
	Plan     *hostcfg.Plan     `json:"plan,omitempty"`
	// ObserveError is set when the host backends could not be opened.
	ObserveError string `json:"observeError,omitempty"`
	// PCI lists the RoCE NICs and the GPUs with their link state.
	PCI []PCIDevice `json:"pci,omitempty"`
	// PeerMemory lists the GPUDirect modules loaded (/proc/modules):
	// nvidia_peermem or nv_peer_mem.
	PeerMemory []string `json:"peerMemory,omitempty"`
	// Perftest is what `ib_write_bw --version` printed; PerftestError why it could not run.
	Perftest      string `json:"perftest,omitempty"`
	PerftestError string `json:"perftestError,omitempty"`
	// NCCL is the version of the libnccl.so found, "" when none is installed.
	NCCL     string `json:"nccl,omitempty"`
	NCCLPath string `json:"ncclPath,omitempty"`
	// Resolved holds a lookup of every peer name and non-literal address.
	Resolved []Resolution `json:"resolved,omitempty"`
	// GPUHost holds the GPU server's facts (gpuhost.go): GPUs and driver,
	// every libnccl and the one PyTorch loads, GPUDirect RDMA, IOMMU, ACS,
	// MaxReadReq, NVLink errors.
	GPUHost *HostFacts `json:"gpuHost,omitempty"`
}

// Resolution is one name lookup on the host.
type Resolution struct {
	Name    string   `json:"name"`
	Address bool     `json:"address,omitempty"` // the peer's fabric address (not its name)
	Addrs   []string `json:"addrs,omitempty"`
	Error   string   `json:"error,omitempty"`
}

// PCIDevice is one PCIe function, /sys/bus/pci/devices/<bdf>.
type PCIDevice struct {
	BDF  string `json:"bdf"`
	Kind string `json:"kind"` // "nic" or "gpu"
	// Name is the netdev (nic) or "GPU<n>" in bus order (gpu).
	Name string `json:"name"`
	// RDMADevice is the RDMA device of a NIC (mlx5_0).
	RDMADevice string `json:"rdmaDevice,omitempty"`
	// Path is the resolved sysfs path below /sys (pcitopo.Device.SysfsPath).
	Path string `json:"path"`
	// NUMANode is numa_node (-1: not said).
	NUMANode int `json:"numaNode"`
	// current_link_speed, max_link_speed ("16.0 GT/s PCIe"), current_link_width, max_link_width.
	CurrentSpeed string `json:"currentSpeed,omitempty"`
	MaxSpeed     string `json:"maxSpeed,omitempty"`
	CurrentWidth string `json:"currentWidth,omitempty"`
	MaxWidth     string `json:"maxWidth,omitempty"`
	// AER holds the TOTAL_ERR_* lines of aer_dev_correctable, aer_dev_nonfatal
	// and aer_dev_fatal ("correctable", "nonfatal", "fatal"); nil without AER.
	AER map[string]uint64 `json:"aer,omitempty"`
}

// Gatherer collects Facts on the host it runs on. Roots and tools are
// injectable so fixture trees work. Safe for concurrent use.
type Gatherer struct {
	// Open opens the host backends for hostcfg's Observe (as the agent's
	// host ops open them: hostops.Ops.Open).
	Open func(ctx context.Context) (*hostcfg.Host, error)
	// Sys is /sys; the zero FS uses the opened host's.
	Sys sysfs.FS
	// ProcRoot is /proc (modules).
	ProcRoot string
	// LibDirs are searched for libnccl.so.* (DefaultLibDirs when nil).
	LibDirs []string
	// LookPath and Command run `ib_write_bw --version` (exec when nil).
	LookPath func(string) (string, error)
	// Resolve looks a name up (net.DefaultResolver.LookupHost when nil).
	Resolve func(ctx context.Context, name string) ([]string, error)
	// Run runs nvidia-smi, lspci and the DMA-BUF probe (exec when nil).
	Run Command
	// FileRoot prefixes the default paths searched for libraries and the
	// kernel configuration in /boot ("" is /): fixture trees set it.
	FileRoot string
	// PythonDirs and CondaDirs are the site-packages and conda library globs
	// searched for NCCL and PyTorch (DefaultPythonDirs, DefaultCondaDirs when nil).
	PythonDirs, CondaDirs []string
	// NoProbe skips asking the CUDA driver whether it supports DMA-BUF.
	NoProbe bool
}

// DefaultLibDirs are where distributions and NVIDIA's packages put libnccl.
var DefaultLibDirs = []string{"/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64", "/usr/lib",
	"/usr/local/lib", "/usr/local/cuda/lib64", "/usr/local/nccl/lib", "/opt/nccl/lib"}

// Register adds Op to h, observing through g.Open. Its args are decoded
// strictly (agent.DecodeArgs) and checked (Args.Check): a malformed request
// is answered with a bad-request reply.
func (g *Gatherer) Register(h *agent.Handler) {
	h.Register(Op, func(ctx context.Context, raw json.RawMessage) (any, error) {
		var a Args
		if err := agent.DecodeArgs(raw, &a); err != nil {
			return nil, err
		}
		if err := a.Check(); err != nil {
			return nil, err
		}
		return g.Gather(ctx, a), nil
	})
}

// Check refuses args whose names could leave their sysfs directory or
// whose numbers are out of range (agent.CheckIntent), and peers whose name
// or address is not one line of text. A well-formed netdev the host lacks
// is not refused: Gather reports it, and Evaluate makes it a finding.
func (a Args) Check() error {
	errs := []error{agent.CheckIntent("intent", &a.Intent)}
	for i, p := range a.Peers {
		errs = append(errs, agent.CheckText(fmt.Sprintf("peers[%d].name", i), p.Name, 255),
			agent.CheckText(fmt.Sprintf("peers[%d].address", i), p.Address, 255))
	}
	return agent.BadRequest(errors.Join(errs...))
}

// Gather collects the facts. What cannot be read is reported inside Facts.
func (g *Gatherer) Gather(ctx context.Context, a Args) Facts {
	f := Facts{Host: a.Intent.Host}
	f.Hostname, _ = os.Hostname()
	if g.Open == nil {
		f.ObserveError = "no host backends"
	} else if h, err := g.Open(ctx); err != nil {
		f.ObserveError = fmt.Sprintf("opening the host backends: %v", err)
	} else {
		defer h.Close()
		obs, _ := h.Observe(ctx, a.Intent) // located errors are inside obs
		p := hostcfg.Diff(a.Intent, obs)
		f.Observed, f.Plan = &obs, &p
		if g.Sys == (sysfs.FS{}) {
			cp := *g
			cp.Sys = h.Sys
			g = &cp
		}
	}
	if f.Observed == nil {
		// Without the netlink backends the live settings are unknown, but
		// sysfs still tells the RDMA tests which device, port and GID to use.
		sys := g.Sys
		if sys == (sysfs.FS{}) {
			sys = sysfs.NewFS(hostcfg.DefaultSysRoot)
		}
		obs := hostcfg.ObserveRDMA(ctx, sys, a.Intent)
		f.Observed = &obs
	}
	f.PCI = g.pci(ctx, f.Observed)
	f.PeerMemory = g.peerMemory()
	f.Perftest, f.PerftestError = g.perftestVersion(ctx)
	f.NCCL, f.NCCLPath = g.ncclVersion()
	f.Resolved = g.resolve(ctx, a.Peers)
	f.GPUHost = g.gatherHost(ctx, f.PCI)
	if lib := f.GPUHost.effectiveNCCL(); lib != nil && lib.Version != "" {
		f.NCCL, f.NCCLPath = lib.Version, lib.Path // what PyTorch loads, not the first system copy
	}
	return f
}

func (g *Gatherer) procRoot() string {
	if g.ProcRoot == "" {
		return "/proc"
	}
	return g.ProcRoot
}

// peerMemory reads /proc/modules for the GPUDirect RDMA modules.
func (g *Gatherer) peerMemory() []string {
	b, err := os.ReadFile(filepath.Join(g.procRoot(), "modules"))
	if err != nil {
		return nil
	}
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		name, _, _ := strings.Cut(sc.Text(), " ")
		if name == "nvidia_peermem" || name == "nv_peer_mem" {
			out = append(out, name)
		}
	}
	return out
}

var versionRe = regexp.MustCompile(`(?i)version:?\s*([0-9][0-9A-Za-z.+~_-]*)`)

// perftestVersion runs `ib_write_bw --version` with a short bound.
func (g *Gatherer) perftestVersion(ctx context.Context) (string, string) {
	look := g.LookPath
	if look == nil {
		look = exec.LookPath
	}
	path, err := look("ib_write_bw")
	if err != nil {
		return "", fmt.Sprintf("finding ib_write_bw: %v", err)
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, "--version")
	out, err := cmd.CombinedOutput()
	if m := versionRe.FindSubmatch(out); m != nil {
		return string(m[1]), ""
	}
	if err != nil {
		return "", fmt.Sprintf("running ib_write_bw --version: %v", err)
	}
	return "", fmt.Sprintf("ib_write_bw --version printed no version: %q", strings.TrimSpace(string(out)))
}

var ncclLibRe = regexp.MustCompile(`^libnccl\.so\.(\d+\.\d+\.\d+)$`)

// ncclVersion finds libnccl.so.X.Y.Z in the library directories.
func (g *Gatherer) ncclVersion() (string, string) {
	dirs := g.LibDirs
	if dirs == nil {
		dirs = DefaultLibDirs
	}
	for _, d := range dirs {
		entries, err := os.ReadDir(d)
		if err != nil {
			continue
		}
		for _, e := range entries {
			if m := ncclLibRe.FindStringSubmatch(e.Name()); m != nil {
				return m[1], filepath.Join(d, e.Name())
			}
		}
	}
	return "", ""
}

// resolve looks up every peer's name and its address when that is a name.
func (g *Gatherer) resolve(ctx context.Context, peers []Peer) []Resolution {
	look := g.Resolve
	if look == nil {
		look = net.DefaultResolver.LookupHost
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	var out []Resolution
	do := func(name string, isAddr bool) {
		r := Resolution{Name: name, Address: isAddr}
		addrs, err := look(ctx, name)
		if err != nil {
			r.Error = err.Error()
		}
		slices.Sort(addrs)
		r.Addrs = addrs
		out = append(out, r)
	}
	for _, p := range peers {
		if p.Name != "" {
			do(p.Name, false)
		}
		if _, err := netip.ParseAddr(p.Address); err != nil && p.Address != "" {
			do(p.Address, true)
		}
	}
	return out
}
