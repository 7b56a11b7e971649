package collective

import (
	_ "embed"
	"errors"
	"time"
)

// Script is the PyTorch all-reduce test fabricctl runs with torchrun where
// nccl-tests is not installed (or cannot span the hosts).
//
//go:embed allreduce.py
var Script []byte

// Agent ops of the node side.
const (
	OpProbe = "nccl-probe" // ProbeArgs → Probe
	OpRun   = "nccl-run"   // Spec → NodeResult
)

// Tools that run the all-reduce.
const (
	ToolAuto      = "auto"       // all_reduce_perf on a single host when installed, PyTorch otherwise
	ToolNCCLTests = "nccl-tests" // all_reduce_perf (one process, -g GPUs)
	ToolTorch     = "torch"      // fabricctl's script under torchrun
)

// Defaults of spec.checks.nccl.
const (
	DefaultMinBytes   = 8
	DefaultMaxBytes   = 1 << 30
	DefaultIterations = 20
	DefaultWarmup     = 5
	DefaultTimeout    = 5 * time.Minute
	DefaultPort       = 29581
	DefaultPython     = "python3"
	DefaultMinPercent = 70
)

// RendezvousC10d is Spec.Rendezvous for torchrun's c10d rendezvous.
const RendezvousC10d = "c10d"

// DebugEnv is what the suite sets for NCCL unless the fabric's env says
// otherwise: INFO logs of initialisation, network, topology search and
// environment, the lines the analysis reads.
var DebugEnv = map[string]string{"NCCL_DEBUG": "INFO", "NCCL_DEBUG_SUBSYS": "INIT,NET,GRAPH,ENV"}

// ErrBadArgs: an op's arguments are malformed.
var ErrBadArgs = errors.New("invalid arguments")

// ProbeArgs say what the node should look for.
type ProbeArgs struct {
	// Python is the interpreter with PyTorch (DefaultPython when empty).
	Python string `json:"python,omitempty"`
}

// Probe is what a host can run: its GPUs, PyTorch with NCCL, nccl-tests.
type Probe struct {
	Hostname string   `json:"hostname,omitempty"`
	GPUs     []string `json:"gpus,omitempty"` // "0, NVIDIA H200, 00000000:1B:00.0" as nvidia-smi lists them
	// GPUError says why no GPU was found (nvidia-smi missing or failing).
	GPUError string `json:"gpuError,omitempty"`
	// Topo is `nvidia-smi topo -m` as printed ("" when it could not run).
	Topo string `json:"topo,omitempty"`
	// Python is the interpreter found, Torch its PyTorch version, TorchNCCL
	// the NCCL PyTorch loads, TorchGPUs the devices PyTorch sees; TorchError
	// why PyTorch cannot run the test.
	Python     string `json:"python,omitempty"`
	Torch      string `json:"torch,omitempty"`
	TorchNCCL  string `json:"torchNCCL,omitempty"`
	TorchGPUs  int    `json:"torchGPUs,omitempty"`
	TorchError string `json:"torchError,omitempty"`
	// AllReducePerf is the path of nccl-tests' all_reduce_perf, "" when not installed.
	AllReducePerf string `json:"allReducePerf,omitempty"`
}

// Skip says why the host cannot run tool (ToolAuto: either), "" when it can.
// A missing GPU, CUDA, PyTorch or nccl-tests is a skip, never a failure.
func (p Probe) Skip(tool string) string {
	if len(p.GPUs) == 0 {
		if p.GPUError != "" {
			return "no NVIDIA GPU: " + p.GPUError
		}
		return "no NVIDIA GPU"
	}
	switch tool {
	case ToolNCCLTests:
		if p.AllReducePerf == "" {
			return "nccl-tests is not installed (all_reduce_perf not in PATH)"
		}
	case ToolTorch:
		if p.TorchError != "" {
			return p.TorchError
		}
	default:
		if p.AllReducePerf == "" && p.TorchError != "" {
			return p.TorchError + "; nccl-tests is not installed either (all_reduce_perf not in PATH)"
		}
	}
	return ""
}

// Spec is one host's part of the all-reduce job.
type Spec struct {
	JobID string `json:"jobId"`
	Host  string `json:"host"` // the fabric's name for the host
	Tool  string `json:"tool"` // ToolNCCLTests or ToolTorch
	// NodeRank of NNodes; Ranks on this host, one per GPU 0..Ranks-1.
	NodeRank int `json:"nodeRank"`
	NNodes   int `json:"nnodes"`
	Ranks    int `json:"ranks"`
	// MasterAddr:MasterPort is the rendezvous on node 0 (torchrun); unused
	// with one node (torchrun --standalone picks a free port).
	MasterAddr string `json:"masterAddr,omitempty"`
	MasterPort int    `json:"masterPort,omitempty"`
	// Rendezvous is torchrun's rendezvous over several nodes: "" the static one
	// (--node-rank, --master-addr/--master-port: each host is told its rank, as
	// over SSH), RendezvousC10d the dynamic one of torchrun's multi-node recipe
	// under a workload manager (--rdzv-backend c10d --rdzv-endpoint
	// MasterAddr:MasterPort --rdzv-id JobID: the nodes take their ranks as they
	// join, so one argv serves every node).
	Rendezvous string        `json:"rendezvous,omitempty"`
	MinBytes   int64         `json:"minBytes"`
	MaxBytes   int64         `json:"maxBytes"`
	Iterations int           `json:"iterations"`
	Warmup     int           `json:"warmup"`
	Timeout    time.Duration `json:"timeout"`
	Python     string        `json:"python,omitempty"`
	// Env is set for the job on top of the host's environment: DebugEnv and
	// the fabric's NCCL variables.
	Env map[string]string `json:"env,omitempty"`
}

// Log is one log the job left: a rank's NCCL_DEBUG_FILE, or the launcher's
// combined output ("output").
type Log struct {
	Name string `json:"name"`
	Text string `json:"text"`
	// Cut is how many bytes were left out of the middle (logs are bounded).
	Cut int64 `json:"cut,omitempty"`
}

// NodeResult is what one host's part of the job did.
type NodeResult struct {
	Host     string        `json:"host"`
	Hostname string        `json:"hostname,omitempty"`
	Tool     string        `json:"tool"`
	Argv     []string      `json:"argv,omitempty"`
	ExitCode int           `json:"exitCode"`
	TimedOut bool          `json:"timedOut,omitempty"`
	Wall     time.Duration `json:"wall"`
	Logs     []Log         `json:"logs,omitempty"`
	// Error says why the job could not start (the launcher missing, a temp
	// directory that cannot be made).
	Error string `json:"error,omitempty"`
}
