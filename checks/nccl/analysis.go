package nccl

import (
	"fmt"
	"strings"

	"github.com/fabricctl/fabricctl/checks"
)

// Analysis is what a set of NCCL_DEBUG=INFO logs says, host by host, and
// what is wrong with it. Every list is sorted. Hosts that print the same
// versions, devices, settings and transports share those lists and maps
// (a fleet stores them once): treat an Analysis as read-only.
type Analysis struct {
	Hosts    []Host    `json:"hosts"`
	Tests    []Perf    `json:"tests,omitempty"`
	Findings []Finding `json:"findings"`
	// RASReports counts the NCCL RAS reports read (a report's findings are
	// among Findings; one without any is a healthy job).
	RASReports int `json:"rasReports,omitempty"`
	// Errors lists the logs that could not be analysed (unreadable, or with
	// no NCCL output); the others were analysed all the same.
	Errors []SourceError `json:"errors,omitempty"`
}

// UnknownHost names the host of lines printed without the "host:pid:tid
// [dev]" prefix (trimmed excerpts, banners no line can be tied to).
const UnknownHost = "(unknown)"

// Host gathers what the processes of one host printed. Processes are told
// apart by hostname, pid and rank; two machines that share a hostname (pods,
// containers) are told apart by the machine a launcher prefix names or by
// their bootstrap addresses, and are then named "host [machine]".
type Host struct {
	Name       string   `json:"name"`
	Versions   []string `json:"versions,omitempty"`   // "NCCL version 2.19.3+cuda12.3"
	CUDADriver string   `json:"cudaDriver,omitempty"` // "cudaDriverVersion 12030"
	PIDs       []int    `json:"pids,omitempty"`
	Ranks      []int    `json:"ranks,omitempty"`    // global ranks that printed here
	Networks   []string `json:"networks,omitempty"` // "Using network IB|Socket|IBext_v8|…"
	// IBDevices are the NET/IB ports NCCL chose ("[0]mlx5_0:1/RoCE").
	IBDevices       []IBDevice `json:"ibDevices,omitempty"`
	RelaxedOrdering bool       `json:"relaxedOrdering,omitempty"` // "[RO]"
	NoIBDevice      bool       `json:"noIBDevice,omitempty"`      // "NET/IB : No device found."
	// OOB is the interface NET/IB exchanges connection data over; Bootstrap
	// the one NCCL bootstraps over; Sockets those of the socket transport.
	OOB       []Iface `json:"oob,omitempty"`
	Bootstrap []Iface `json:"bootstrap,omitempty"`
	Sockets   []Iface `json:"sockets,omitempty"`
	// Env holds NCCL_* settings NCCL reported ("NCCL_IB_HCA set to mlx5_4").
	Env map[string]string `json:"env,omitempty"`
	// Transports counts channel connections by transport: P2P/CUMEM, P2P/IPC,
	// SHM, NET/IB, NET/IBext_v8, NET/Socket, …
	Transports map[string]int `json:"transports,omitempty"`
	// GDRDMA says whether NET channels run GPUDirect RDMA (".../GDRDMA"):
	// GDRYes, GDRNo, or GDRUnknown when no NET channel was seen.
	GDRDMA string `json:"gdrdma"`
	// NVLS is NVLink SHARP: "used" (NVLS channels or an NVLS connection),
	// "available", "unavailable" (as NCCL said), "" when the log does not say.
	NVLS         string `json:"nvls,omitempty"`
	NVLSChannels int    `json:"nvlsChannels,omitempty"` // "… K nvls channels, …"
	// CollNet is set when NCCL connected CollNet (in-network reduction, SHARP).
	CollNet         bool `json:"collnet,omitempty"`
	CollNetChannels int  `json:"collnetChannels,omitempty"`
	// NICDistance holds older NCCL's "CUDA Dev N[M], IB NIC distance : PIX".
	NICDistance map[string]string `json:"nicDistance,omitempty"`
	// Links are the rank-to-rank connections this host's ranks printed
	// (Transports counted by pair), Paths NCCL's topology search results
	// (NCCL_DEBUG_SUBSYS=GRAPH), NVLink whether its topology dump shows an
	// NVLink from a GPU.
	Links  []Link `json:"links,omitempty"`
	Paths  []Path `json:"paths,omitempty"`
	NVLink bool   `json:"nvlink,omitempty"`
	// InitComplete: a communicator finished its set-up ("Init COMPLETE",
	// "Connected all rings").
	InitComplete bool `json:"initComplete,omitempty"`
}

// IBDevice is one port of a NET/IB "Using" list.
type IBDevice struct {
	Name      string `json:"name"`
	Port      int    `json:"port"`
	LinkLayer string `json:"linkLayer"` // IB or RoCE
	SHARP     bool   `json:"sharp,omitempty"`
}

func (d IBDevice) String() string { return fmt.Sprintf("%s:%d/%s", d.Name, d.Port, d.LinkLayer) }

// Iface is a network interface and the address NCCL used on it.
type Iface struct {
	Name string `json:"name"`
	Addr string `json:"addr,omitempty"`
}

func (i Iface) String() string {
	if i.Addr == "" {
		return i.Name
	}
	return i.Name + ":" + i.Addr
}

// GPUDirect RDMA states of Host.GDRDMA.
const (
	GDRYes     = "yes"
	GDRNo      = "no"
	GDRUnknown = "unknown"
)

// Kind names a finding.
type Kind string

// The findings.
const (
	SocketFallback      Kind = "socket-fallback"      // NCCL runs over TCP sockets, not RDMA
	NoIBDevice          Kind = "no-ib-device"         // "NET/IB : No device found"
	VersionSkew         Kind = "version-skew"         // hosts run different NCCL versions
	UnexpectedInterface Kind = "unexpected-interface" // loopback, container overlays, or not the expected ones
	UnexpectedHCA       Kind = "unexpected-hca"       // an IB device outside the expected list
	MixedLinkLayers     Kind = "mixed-link-layers"    // NET/IB mixes InfiniBand and RoCE ports
	IBCompletionError   Kind = "ib-completion-error"  // "NET/IB : Got completion … with error N" in every NCCL era
	QPError             Kind = "qp-error"             // ibv_modify_qp failed (GID, MTU, routing)
	ConnectError        Kind = "connect-error"        // the out-of-band socket connection failed
	NCCLError           Kind = "nccl-error"           // an NCCL call failed (ncclSystemError, ncclRemoteError, …)
	CollectiveTimeout   Kind = "collective-timeout"   // PyTorch's watchdog timed a collective out
	WatchdogHang        Kind = "watchdog-hang"        // PyTorch's watchdog itself got stuck
	RASMismatch         Kind = "ras-mismatch"         // NCCL RAS: ranks disagree on operation counts (a hang)
	RASError            Kind = "ras-error"            // NCCL RAS: missing, dead or failed ranks
	IBAsyncEvent        Kind = "ib-async-event"       // an IB async event: fatal (catastrophic error, QP/CQ error, port error) or a flap
	UnclassifiedWarning Kind = "unclassified-warning" // a WARN line no class of the taxonomy fits, quoted
	NICDistance         Kind = "nic-distance"         // old NCCL: a GPU's NIC is across the CPU (PHB, NODE, SYS)
	NoGDRDMA            Kind = "no-gdrdma"            // NET/IB channels without GPUDirect RDMA
	DuplicateRank       Kind = "duplicate-rank"       // nccl-tests printed one rank on several hosts
	WrongResults        Kind = "wrong-results"        // nccl-tests counted wrong results
	BusBWCollapse       Kind = "busbw-collapse"       // bus bandwidth falls by half at larger sizes
	NetWithinHost       Kind = "net-within-host"      // ranks of one host connected through the network transport
	NoP2P               Kind = "no-p2p"               // local ranks connected through host memory (SHM), not GPU peer-to-peer
	BadNumber           Kind = "bad-number"           // a figure no number its field holds (a rank of 1e23, a NaN bandwidth): an error, the line not read
)

// Finding is one thing wrong in the logs, with where it was first seen.
type Finding struct {
	Kind    Kind                `json:"kind"`
	Status  checks.Status       `json:"status"` // fail or warn; error for a bad number
	Class   checks.FailureClass `json:"class,omitempty"`
	Host    string              `json:"host,omitempty"` // empty for fleet-wide findings
	Message string              `json:"message"`
	Where   string              `json:"where"`           // "file:line" of the first evidence
	Count   int                 `json:"count,omitempty"` // how many lines showed it, when more than one
	// Line quotes the log line the finding was read from (launcher and NCCL
	// prefixes off), for findings read from one line.
	Line string `json:"line,omitempty"`
}

// Clean reports whether the analysis has no findings.
func (a *Analysis) Clean() bool { return len(a.Findings) == 0 }

// Results turns the analysis into check results: one per host (ID "nccl"),
// with the host's findings as evidence, plus one for fleet-wide findings.
func (a *Analysis) Results() []checks.Result {
	byHost := map[string][]Finding{}
	for _, f := range a.Findings {
		byHost[f.Host] = append(byHost[f.Host], f)
	}
	var out []checks.Result
	add := func(target string, fs []Finding) {
		r := checks.Result{ID: "nccl", Target: target, Status: checks.StatusPass, Summary: "no findings"}
		var kinds []string
		for _, f := range fs {
			if f.Status.Worse(r.Status) {
				r.Status, r.Class = f.Status, f.Class
			}
			kinds = append(kinds, string(f.Kind))
			r.Evidence = append(r.Evidence, f.Message+" ("+f.Where+")")
		}
		if len(fs) > 0 {
			r.Summary = strings.Join(kinds, ", ")
		}
		out = append(out, r)
	}
	for _, h := range a.Hosts {
		add(h.Name, byHost[h.Name])
	}
	if fs, ok := byHost[""]; ok {
		add("fleet", fs)
	}
	checks.Sort(out)
	return out
}
