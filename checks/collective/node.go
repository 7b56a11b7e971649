package collective

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/fabricctl/fabricctl/agent"
)

// Node is the host side of the suite: it probes what the host can run and
// runs its part of the job. The zero value works on the real host; tests set
// the fields. A Node is safe for concurrent use.
type Node struct {
	// LookPath finds a program (exec.LookPath when nil).
	LookPath func(string) (string, error)
	// Environ is the environment jobs start from (os.Environ when nil).
	Environ func() []string
	// TempDir holds each job's scratch directory (os.TempDir when empty).
	TempDir string
	// ProbeTimeout bounds each probing command (30 s when zero).
	ProbeTimeout time.Duration
}

// maxLog bounds what a log keeps: its first maxLogHead bytes (NCCL's
// initialisation) and its last maxLog-maxLogHead (errors, the end).
const (
	maxLog     = 4 << 20
	maxLogHead = 3 << 20
)

// probeTorch asks PyTorch what it sees, as one JSON line.
const probeTorch = `import json
try:
    import torch, torch.distributed as d
    n = torch.cuda.device_count() if torch.cuda.is_available() else 0
    v = torch.cuda.nccl.version() if n and d.is_nccl_available() else ""
    v = ".".join(str(x) for x in v) if isinstance(v, tuple) else str(v)
    print(json.dumps({"torch": torch.__version__, "cuda": torch.version.cuda or "", "gpus": n, "nccl": v, "ncclAvailable": d.is_nccl_available()}))
except Exception as e:
    print(json.dumps({"error": "%s: %s" % (type(e).__name__, e)}))
`

// Register adds OpProbe and OpRun to h.
func (n *Node) Register(h *agent.Handler) {
	h.Register(OpProbe, func(ctx context.Context, raw json.RawMessage) (any, error) {
		var a ProbeArgs
		if err := decodeArgs(raw, &a); err != nil {
			return nil, err
		}
		return n.Probe(ctx, a), nil
	})
	h.Register(OpRun, func(ctx context.Context, raw json.RawMessage) (any, error) {
		var s Spec
		if err := decodeArgs(raw, &s); err != nil {
			return nil, err
		}
		return n.Run(ctx, s), nil
	})
}

// decodeArgs decodes an op's args strictly (agent.DecodeArgs: a bad
// request) and refuses what the node must not pass on to a command line or
// a path: control characters in names, negative counts, ports out of range
// (Spec.validate judges the rest when the job runs).
func decodeArgs(raw json.RawMessage, v any) error {
	if err := agent.DecodeArgs(raw, v); err != nil {
		return fmt.Errorf("%w: %w", ErrBadArgs, err)
	}
	var errs []error
	switch a := v.(type) {
	case *ProbeArgs:
		errs = append(errs, checkProgram("python", a.Python))
	case *Spec:
		errs = append(errs, checkProgram("python", a.Python),
			agent.CheckText("jobId", a.JobID, agent.MaxNameBytes),
			agent.CheckText("host", a.Host, 255),
			agent.CheckText("masterAddr", a.MasterAddr, 255),
			agent.CheckRange("nnodes", int64(a.NNodes), 0, 1<<20),
			agent.CheckRange("nodeRank", int64(a.NodeRank), 0, 1<<20),
			agent.CheckRange("ranks", int64(a.Ranks), 0, 1<<20),
			agent.CheckRange("masterPort", int64(a.MasterPort), 0, 65535),
			agent.CheckRange("minBytes", a.MinBytes, 0, math.MaxInt64),
			agent.CheckRange("maxBytes", a.MaxBytes, 0, math.MaxInt64),
			agent.CheckRange("iterations", int64(a.Iterations), 0, math.MaxInt32),
			agent.CheckRange("warmup", int64(a.Warmup), 0, math.MaxInt32))
		if a.Timeout < 0 {
			errs = append(errs, agent.BadRequest(fmt.Errorf("timeout %s is negative", a.Timeout)))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("%w: %w", ErrBadArgs, err)
	}
	return nil
}

// checkProgram refuses a program name that is not one line of text or
// that the command line would take for an option.
func checkProgram(field, prog string) error {
	if err := agent.CheckText(field, prog, 4096); err != nil {
		return err
	}
	if strings.HasPrefix(prog, "-") {
		return agent.BadRequest(fmt.Errorf("%s %s is not a program", field, agent.Clip(prog)))
	}
	return nil
}

func (n *Node) lookPath(name string) (string, error) {
	if n.LookPath != nil {
		return n.LookPath(name)
	}
	return exec.LookPath(name)
}

func (n *Node) environ() []string {
	if n.Environ != nil {
		return n.Environ()
	}
	return os.Environ()
}

// output runs a probing command with the node's environment and a bound.
func (n *Node) output(ctx context.Context, path string, args ...string) ([]byte, error) {
	to := n.ProbeTimeout
	if to <= 0 {
		to = 30 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, to)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Env = append(n.environ(), "LC_ALL=C")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		msg := strings.TrimSpace(firstLine(stderr.String()))
		if msg == "" {
			msg = strings.TrimSpace(firstLine(string(out)))
		}
		if msg != "" {
			return out, fmt.Errorf("%w: %s", err, msg)
		}
	}
	return out, err
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// Probe reports what this host can run. It never fails: what is missing is
// said in the Probe.
func (n *Node) Probe(ctx context.Context, a ProbeArgs) Probe {
	var p Probe
	p.Hostname, _ = os.Hostname()
	if smi, err := n.lookPath("nvidia-smi"); err != nil {
		p.GPUError = "nvidia-smi not found (no NVIDIA driver installed)"
	} else if out, err := n.output(ctx, smi, "--query-gpu=index,name,pci.bus_id", "--format=csv,noheader"); err != nil {
		p.GPUError = "nvidia-smi failed: " + err.Error()
	} else {
		for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			if l = strings.TrimSpace(l); l != "" {
				p.GPUs = append(p.GPUs, l)
			}
		}
		if len(p.GPUs) == 0 {
			p.GPUError = "nvidia-smi lists no GPU"
		} else if topo, err := n.output(ctx, smi, "topo", "-m"); err == nil {
			p.Topo = string(topo)
		}
	}
	if path, err := n.lookPath("all_reduce_perf"); err == nil {
		p.AllReducePerf = path
	}
	py := a.Python
	if py == "" {
		py = DefaultPython
	}
	path, err := n.lookPath(py)
	if err != nil {
		p.TorchError = fmt.Sprintf("%s not found: PyTorch cannot run", py)
		return p
	}
	p.Python = path
	if len(p.GPUs) == 0 {
		return p // no GPU: nothing more to learn from PyTorch
	}
	out, err := n.output(ctx, path, "-c", probeTorch)
	var t struct {
		Torch, CUDA, NCCL, Error string
		GPUs                     int
		NCCLAvailable            bool
	}
	switch {
	case err != nil:
		p.TorchError = fmt.Sprintf("%s could not run: %v", path, err)
	case json.Unmarshal(bytes.TrimSpace(lastNonEmpty(out)), &t) != nil:
		p.TorchError = fmt.Sprintf("%s printed no answer: %q", path, firstLine(string(out)))
	case t.Error != "":
		p.TorchError = fmt.Sprintf("PyTorch is not usable with %s (%s)", path, t.Error)
	default:
		p.Torch, p.TorchNCCL, p.TorchGPUs = t.Torch, t.NCCL, t.GPUs
		switch {
		case t.GPUs == 0:
			p.TorchError = fmt.Sprintf("PyTorch %s sees no CUDA device (a CPU-only build, or CUDA %s does not match the driver)", t.Torch, orNone(t.CUDA))
		case !t.NCCLAvailable:
			p.TorchError = fmt.Sprintf("PyTorch %s was built without NCCL", t.Torch)
		}
	}
	return p
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

func lastNonEmpty(b []byte) []byte {
	lines := bytes.Split(bytes.TrimSpace(b), []byte("\n"))
	return lines[len(lines)-1]
}

// Run runs this host's part of the job and returns its logs. It never fails:
// what went wrong is in the NodeResult.
func (n *Node) Run(ctx context.Context, s Spec) NodeResult {
	res := NodeResult{Host: s.Host, Tool: s.Tool, ExitCode: -1}
	res.Hostname, _ = os.Hostname()
	if err := s.validate(); err != nil {
		res.Error = err.Error()
		return res
	}
	dir, err := os.MkdirTemp(n.TempDir, "fabricctl-nccl-")
	if err != nil {
		res.Error = fmt.Sprintf("making a scratch directory: %v", err)
		return res
	}
	defer os.RemoveAll(dir)
	env := map[string]string{}
	maps.Copy(env, DebugEnv)
	maps.Copy(env, s.Env)
	// Every process writes NCCL's log to its own file: %h host, %p pid.
	env["NCCL_DEBUG_FILE"] = filepath.Join(dir, "nccl-%h-%p.log")
	// CUDA numbers GPUs as nvidia-smi does, so rank i's GPU i is topo -m's GPUi.
	env["CUDA_DEVICE_ORDER"] = "PCI_BUS_ID"

	var argv []string
	switch s.Tool {
	case ToolNCCLTests:
		path, err := n.lookPath("all_reduce_perf")
		if err != nil {
			res.Error = fmt.Sprintf("finding all_reduce_perf: %v", err)
			return res
		}
		argv = s.Argv(path, "")
	case ToolTorch:
		py := s.Python
		if py == "" {
			py = DefaultPython
		}
		path, err := n.lookPath(py)
		if err != nil {
			res.Error = fmt.Sprintf("finding %s: %v", py, err)
			return res
		}
		script := filepath.Join(dir, "fabricctl_allreduce.py")
		if err := os.WriteFile(script, Script, 0o600); err != nil {
			res.Error = fmt.Sprintf("writing the test script: %v", err)
			return res
		}
		argv = s.Argv(path, script)
	}
	res.Argv = argv
	out := &boundedBuffer{}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = mergeEnv(n.environ(), env)
	cmd.Stdout, cmd.Stderr = out, out
	// Its own process group, killed as a whole at the deadline, and with the
	// agent should the agent die.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		res.Error = fmt.Sprintf("starting %s: %v", filepath.Base(argv[0]), err)
		return res
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	timer := time.NewTimer(s.Timeout)
	defer timer.Stop()
	select {
	case err = <-done:
	case <-timer.C:
		res.TimedOut = true
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		err = <-done
	case <-ctx.Done():
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		err = <-done
		res.Error = "cancelled: " + ctx.Err().Error()
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // stragglers of the group
	res.Wall = time.Since(start).Round(time.Millisecond)
	var ee *exec.ExitError
	switch {
	case err == nil:
		res.ExitCode = 0
	case errors.As(err, &ee) && ee.Exited():
		res.ExitCode = ee.ExitCode()
	}
	res.Logs = append(res.Logs, out.log("output"))
	res.Logs = append(res.Logs, readLogs(dir)...)
	return res
}

// Argv is the command line of the spec's part: prog is all_reduce_perf
// (ToolNCCLTests) or the Python interpreter, script the path of Script
// (ToolTorch). Run runs it with DebugEnv, the spec's Env and a
// NCCL_DEBUG_FILE per process.
func (s Spec) Argv(prog, script string) []string {
	if s.Tool == ToolNCCLTests {
		return []string{prog, "-b", strconv.FormatInt(s.MinBytes, 10), "-e", strconv.FormatInt(s.MaxBytes, 10), "-f", "2",
			"-g", strconv.Itoa(s.Ranks), "-n", strconv.Itoa(s.Iterations), "-w", strconv.Itoa(s.Warmup), "-c", "1"}
	}
	argv := []string{prog, "-m", "torch.distributed.run", "--nproc-per-node", strconv.Itoa(s.Ranks)}
	switch {
	case s.NNodes <= 1:
		argv = append(argv, "--standalone", "--nnodes", "1")
	case s.Rendezvous == RendezvousC10d:
		argv = append(argv, "--nnodes", strconv.Itoa(s.NNodes), "--rdzv-backend", RendezvousC10d,
			"--rdzv-endpoint", net.JoinHostPort(s.MasterAddr, strconv.Itoa(s.MasterPort)), "--rdzv-id", s.JobID)
	default:
		argv = append(argv, "--nnodes", strconv.Itoa(s.NNodes), "--node-rank", strconv.Itoa(s.NodeRank),
			"--master-addr", s.MasterAddr, "--master-port", strconv.Itoa(s.MasterPort))
	}
	return append(argv, script, "--min-bytes", strconv.FormatInt(s.MinBytes, 10), "--max-bytes", strconv.FormatInt(s.MaxBytes, 10),
		"--iters", strconv.Itoa(s.Iterations), "--warmup", strconv.Itoa(s.Warmup))
}

// validate refuses specs the node cannot run safely.
func (s Spec) validate() error {
	var probs []string
	bad := func(format string, a ...any) { probs = append(probs, fmt.Sprintf(format, a...)) }
	if s.Tool != ToolNCCLTests && s.Tool != ToolTorch {
		bad("tool %q is not %s or %s", s.Tool, ToolNCCLTests, ToolTorch)
	}
	if s.Ranks < 1 || s.Ranks > 64 {
		bad("ranks %d is outside 1..64", s.Ranks)
	}
	if s.NNodes > 1 && (s.MasterAddr == "" || strings.HasPrefix(s.MasterAddr, "-") || s.MasterPort < 1 || s.MasterPort > 65535) {
		bad("a job over %d nodes needs a master address and port", s.NNodes)
	}
	if s.NodeRank < 0 || (s.NNodes > 0 && s.NodeRank >= s.NNodes) {
		bad("node rank %d is outside 0..%d", s.NodeRank, s.NNodes-1)
	}
	if s.MinBytes < 1 || s.MaxBytes < s.MinBytes || s.Iterations < 1 || s.Warmup < 0 {
		bad("sizes %d..%d, %d iterations and %d warm-up are not a test", s.MinBytes, s.MaxBytes, s.Iterations, s.Warmup)
	}
	if s.Timeout <= 0 {
		bad("no timeout")
	}
	if s.Rendezvous != "" && (s.Rendezvous != RendezvousC10d || s.Tool != ToolTorch) {
		bad("rendezvous %q is not torchrun's %s", s.Rendezvous, RendezvousC10d)
	}
	if s.Rendezvous == RendezvousC10d && (s.JobID == "" || strings.HasPrefix(s.JobID, "-")) {
		bad("a c10d rendezvous needs a job id")
	}
	if strings.HasPrefix(s.Python, "-") {
		bad("python %q is not a program", s.Python)
	}
	for k, v := range s.Env {
		if !strings.HasPrefix(k, "NCCL_") || strings.ContainsAny(k, "=\x00") || strings.ContainsRune(v, '\x00') {
			bad("environment %q is not an NCCL variable", k)
		}
	}
	if len(probs) > 0 {
		slices.Sort(probs)
		return fmt.Errorf("running the all-reduce: %w: %s", ErrBadArgs, strings.Join(probs, "; "))
	}
	return nil
}

// mergeEnv returns base with the variables of set replacing or added, sorted
// for a stable argv.
func mergeEnv(base []string, set map[string]string) []string {
	out := make([]string, 0, len(base)+len(set))
	for _, kv := range base {
		k, _, _ := strings.Cut(kv, "=")
		if _, ok := set[k]; !ok {
			out = append(out, kv)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(set)) {
		out = append(out, k+"="+set[k])
	}
	return out
}

// readLogs returns the NCCL_DEBUG_FILE logs the job left in dir, by name.
func readLogs(dir string) []Log {
	paths, _ := filepath.Glob(filepath.Join(dir, "nccl-*.log"))
	slices.Sort(paths)
	var out []Log
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			continue
		}
		b := &boundedBuffer{}
		_, _ = b.ReadFrom(f)
		f.Close()
		out = append(out, b.log(filepath.Base(p)))
	}
	return out
}

// boundedBuffer keeps the first maxLogHead bytes written and the last
// maxLog-maxLogHead, counting what it drops in between. Safe for one writer
// at a time (exec serialises a shared Stdout/Stderr writer).
type boundedBuffer struct {
	head, tail []byte
	cut        int64
}

func (b *boundedBuffer) Write(p []byte) (int, error) {
	n := len(p)
	if room := maxLogHead - len(b.head); room > 0 {
		k := min(room, len(p))
		b.head = append(b.head, p[:k]...)
		p = p[k:]
	}
	if len(p) == 0 {
		return n, nil
	}
	b.tail = append(b.tail, p...)
	if len(b.tail) > 2*maxLogTail {
		b.trim() // amortised: at most one copy per maxLogTail bytes written
	}
	return n, nil
}

const maxLogTail = maxLog - maxLogHead

func (b *boundedBuffer) trim() {
	if over := len(b.tail) - maxLogTail; over > 0 {
		b.cut += int64(over)
		b.tail = append(b.tail[:0], b.tail[over:]...)
	}
}

func (b *boundedBuffer) ReadFrom(r io.Reader) (int64, error) {
	buf := make([]byte, 64<<10)
	var total int64
	for {
		k, err := r.Read(buf)
		if k > 0 {
			total += int64(k)
			_, _ = b.Write(buf[:k])
		}
		if err != nil {
			return total, nil
		}
	}
}

func (b *boundedBuffer) log(name string) Log {
	b.trim()
	text := string(b.head)
	if b.cut > 0 {
		text += fmt.Sprintf("\n[fabricctl: %d bytes cut]\n", b.cut)
	}
	return Log{Name: name, Text: strings.ToValidUTF8(text+string(b.tail), "\uFFFD"), Cut: b.cut}
}
