package collective

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/fabricctl/fabricctl/checks"
	"github.com/fabricctl/fabricctl/checks/nccl"
	"github.com/fabricctl/fabricctl/checks/preflight"
	"github.com/fabricctl/fabricctl/fabric"
)

// Check IDs of the suite (report suite "nccl").
const (
	IDRun         = "nccl/run"         // per host: could the host run its part (skip: no GPU/CUDA/PyTorch)
	IDCorrectness = "nccl/correctness" // the job: every rank summed what it should, at every size
	IDTransport   = "nccl/transport"   // per host: transports within the node and across nodes
	IDBusBW       = "nccl/busbw"       // the job: bus bandwidth against the NICs' rate
	IDEnv         = "nccl/env"         // per host: NCCL's environment against the fabric's intent
	IDLog         = "nccl/log"         // per host: everything else the NCCL log analysis found
	IDRerun       = "nccl/perftest-rerun"
)

// Host is one host of the job.
type Host struct {
	Name    string // the fabric's name for it
	Address string // where the others reach it (the rendezvous on the first host)
	Intent  fabric.HostIntent
	// Facts are its preflight facts (RDMA devices, port rates, RoCE v2 GID
	// index); nil when they could not be gathered.
	Facts *preflight.Facts
}

// PerftestRun is one perftest result of the same check run, for the "NCCL is
// slow but perftest passed" verdict.
type PerftestRun struct {
	Target string // "a/mlx5_0->b/mlx5_0"
	Hosts  [2]string
	Gbps   float64
	Passed bool
}

// Rerun runs perftest between two hosts with NCCL's GID index and traffic
// class and returns its verdict. gid is nil for "perftest's choice".
type Rerun func(ctx context.Context, a, b Host, gid *int, tclass int) checks.Result

// Options say how to run the suite.
type Options struct {
	Config   fabric.NCCL
	Executor Executor
	// ExpectedRate is the port rate every NIC should have, Gb/s
	// (spec.checks.preflight.expectedRate); 0: each port's own rate.
	ExpectedRate float64
	Perftest     []PerftestRun
	Rerun        Rerun
	// LogDir, when set, receives every log as LogDir/<host>/<log>.
	LogDir   string
	Progress func(format string, args ...any)
	// Now stamps the job (time.Now when nil).
	Now func() time.Time
}

func (o Options) progress(format string, args ...any) {
	if o.Progress != nil {
		o.Progress(format, args...)
	}
}

// Outcome is everything the suite saw: what each host could run, each
// node's result, the script's lines, the NCCL log analysis and the verdicts.
type Outcome struct {
	Tool     string           `json:"tool,omitempty"`
	Probes   map[string]Probe `json:"probes,omitempty"`
	Nodes    []NodeResult     `json:"nodes,omitempty"`
	Script   ScriptRun        `json:"script"`
	Analysis *nccl.Analysis   `json:"analysis,omitempty"`
	Results  []checks.Result  `json:"results"`
	// Specs are the parts the hosts were given.
	Specs []Spec `json:"specs,omitempty"`
}

// config fills the defaults of spec.checks.nccl.
func config(c fabric.NCCL) fabric.NCCL {
	if c.Tool == "" {
		c.Tool = ToolAuto
	}
	if c.MinBytes == 0 {
		c.MinBytes = DefaultMinBytes
	}
	if c.MaxBytes == 0 {
		c.MaxBytes = max(DefaultMaxBytes, c.MinBytes)
	}
	if c.Iterations == 0 {
		c.Iterations = DefaultIterations
	}
	if c.Timeout == 0 {
		c.Timeout = fabric.Duration(DefaultTimeout)
	}
	if c.Port == 0 {
		c.Port = DefaultPort
	}
	if c.Python == "" {
		c.Python = DefaultPython
	}
	if c.MinPercentOfPortRate == 0 {
		c.MinPercentOfPortRate = DefaultMinPercent
	}
	return c
}

// ErrNoExecutor: Options.Executor is nil.
var ErrNoExecutor = errors.New("no executor for the NCCL check")

// Run probes every host, runs the all-reduce on those that can (a host
// without GPU, CUDA or PyTorch is a skip with the reason, never a failure),
// analyses every log and judges. It returns an error only when it could not
// start at all.
func Run(ctx context.Context, hosts []Host, o Options) (*Outcome, error) {
	if o.Executor == nil {
		return nil, ErrNoExecutor
	}
	if len(hosts) == 0 {
		return nil, errors.New("running the NCCL check: no hosts")
	}
	cfg := config(o.Config)
	out := &Outcome{Probes: map[string]Probe{}}
	names := make([]string, len(hosts))
	for i, h := range hosts {
		names[i] = h.Name
	}
	probes, perrs := o.Executor.Probe(ctx, names, ProbeArgs{Python: cfg.Python})
	tool := pickTool(cfg.Tool, probes, perrs)
	out.Tool = tool
	var job []Host
	var skipped []checks.Result
	for i, h := range hosts {
		switch {
		case i < len(perrs) && perrs[i] != nil:
			skipped = append(skipped, checks.ErrorResult(IDRun, h.Name, "", perrs[i]))
			o.progress("nccl %s: %v", h.Name, perrs[i])
			continue
		case i >= len(probes):
			skipped = append(skipped, checks.ErrorResult(IDRun, h.Name, "", errors.New("the executor returned no probe")))
			continue
		}
		out.Probes[h.Name] = probes[i]
		if why := probes[i].Skip(tool); why != "" {
			skipped = append(skipped, checks.Result{ID: IDRun, Target: h.Name, Status: checks.StatusSkip, Summary: why})
			o.progress("nccl %s: skip: %s", h.Name, why)
			continue
		}
		job = append(job, h)
	}
	out.Results = append(out.Results, skipped...)
	if len(job) == 0 {
		why := "no host can run the all-reduce"
		if reasons := distinctSummaries(skipped); len(reasons) == 1 {
			why += ": " + reasons[0]
		}
		for _, id := range []string{IDCorrectness, IDBusBW} {
			out.Results = append(out.Results, checks.Result{ID: id, Target: "job", Status: checks.StatusSkip, Summary: why})
		}
		checks.Sort(out.Results)
		return out, nil
	}

	specs, bad := buildSpecs(cfg, tool, job, out.Probes, o.now())
	out.Results = append(out.Results, bad...)
	out.Specs = specs
	if len(specs) == 0 {
		checks.Sort(out.Results)
		return out, nil
	}
	o.progress("nccl: %s on %d host(s), %d rank(s)", tool, len(specs), totalRanks(specs))
	results, rerrs := o.Executor.Run(ctx, specs)
	out.Nodes = results
	var sources []nccl.Source
	for i, s := range specs {
		if i < len(rerrs) && rerrs[i] != nil {
			out.Results = append(out.Results, checks.ErrorResult(IDRun, s.Host, "", rerrs[i]))
			continue
		}
		if i >= len(results) {
			continue
		}
		for _, l := range results[i].Logs {
			name := s.Host + "/" + l.Name
			sources = append(sources, nccl.Source{Name: name, R: strings.NewReader(l.Text)})
			ParseScript(name, l.Text, &out.Script)
		}
	}
	if o.LogDir != "" {
		if err := writeLogs(o.LogDir, specs, results); err != nil {
			o.progress("nccl: keeping the logs: %v", err)
		}
	}
	out.Analysis, _ = nccl.Analyze(nccl.Options{AllowSocket: cfg.AllowSocket}, sources...)
	j := judge{cfg: cfg, o: o, out: out, job: job, specs: specs, results: results, rerrs: rerrs}
	out.Results = append(out.Results, j.all(ctx)...)
	checks.Sort(out.Results)
	return out, nil
}

func distinctSummaries(rs []checks.Result) []string {
	var out []string
	for _, r := range rs {
		if !slices.Contains(out, r.Summary) {
			out = append(out, r.Summary)
		}
	}
	return out
}

func (o Options) now() time.Time {
	if o.Now != nil {
		return o.Now()
	}
	return time.Now()
}

// pickTool resolves auto: nccl-tests on a single host that has it, PyTorch
// otherwise (nccl-tests needs MPI to span hosts, which SSH does not give).
func pickTool(want string, probes []Probe, errs []error) string {
	if want != ToolAuto {
		return want
	}
	usable, tests := 0, 0
	for i, p := range probes {
		if (i < len(errs) && errs[i] != nil) || p.Skip(ToolAuto) != "" {
			continue
		}
		usable++
		if p.AllReducePerf != "" {
			tests++
		}
	}
	if usable == 1 && tests == 1 {
		return ToolNCCLTests
	}
	return ToolTorch
}

// buildSpecs gives every host of the job its part: ranks (one per GPU, or
// the fabric's ranksPerHost), node rank, rendezvous on the first host.
// nccl-tests cannot span hosts over SSH: each host then runs its own job.
func buildSpecs(cfg fabric.NCCL, tool string, job []Host, probes map[string]Probe, now time.Time) ([]Spec, []checks.Result) {
	var specs []Spec
	var bad []checks.Result
	id := fmt.Sprintf("fabricctl-nccl-%d", now.Unix())
	nodes := len(job)
	if tool == ToolNCCLTests {
		nodes = 1
	}
	for i, h := range job {
		p := probes[h.Name]
		gpus := len(p.GPUs)
		if tool == ToolTorch && p.TorchGPUs > 0 {
			gpus = min(gpus, p.TorchGPUs)
		}
		ranks := gpus
		if cfg.RanksPerHost > 0 {
			if cfg.RanksPerHost > gpus {
				bad = append(bad, checks.Result{ID: IDRun, Target: h.Name, Status: checks.StatusError,
					Summary: fmt.Sprintf("spec.checks.nccl.ranksPerHost is %d but the host has %d GPU(s): NCCL allows one rank per GPU", cfg.RanksPerHost, gpus)})
				continue
			}
			ranks = cfg.RanksPerHost
		}
		s := Spec{JobID: id, Host: h.Name, Tool: tool, NodeRank: i, NNodes: nodes, Ranks: ranks,
			MinBytes: int64(cfg.MinBytes), MaxBytes: int64(cfg.MaxBytes), Iterations: cfg.Iterations, Warmup: DefaultWarmup,
			Timeout: time.Duration(cfg.Timeout), Python: cfg.Python, Env: cfg.Env}
		if nodes > 1 {
			s.MasterAddr, s.MasterPort = job[0].Address, cfg.Port
		} else {
			s.NodeRank = 0
		}
		specs = append(specs, s)
	}
	if len(bad) > 0 && nodes > 1 {
		// A host short of GPUs would leave the others waiting at the rendezvous.
		for _, s := range specs {
			bad = append(bad, checks.Result{ID: IDRun, Target: s.Host, Status: checks.StatusSkip, Summary: "not run: another host of the job cannot take its part"})
		}
		return nil, bad
	}
	return specs, bad
}

func totalRanks(specs []Spec) int {
	n := 0
	for _, s := range specs {
		n += s.Ranks
	}
	return n
}

// writeLogs keeps every log as dir/<host>/<name>.
func writeLogs(dir string, specs []Spec, results []NodeResult) error {
	var errs []error
	for i, s := range specs {
		if i >= len(results) {
			break
		}
		d := filepath.Join(dir, safeName(s.Host))
		if err := os.MkdirAll(d, 0o755); err != nil {
			errs = append(errs, err)
			continue
		}
		for _, l := range results[i].Logs {
			if err := os.WriteFile(filepath.Join(d, safeName(l.Name)), []byte(l.Text), 0o644); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}

// safeName keeps a host or log name one path element.
func safeName(s string) string {
	s = strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == 0 {
			return '_'
		}
		return r
	}, s)
	if s == "" || s == "." || s == ".." {
		return "_"
	}
	return s
}

// logTail returns the last lines of a node's output, for evidence.
func logTail(r NodeResult, n int) []string {
	for _, l := range r.Logs {
		if l.Name != "output" {
			continue
		}
		lines := strings.Split(strings.TrimRight(l.Text, "\n"), "\n")
		var keep []string
		for _, s := range lines {
			if !strings.HasPrefix(s, ScriptPrefix) && strings.TrimSpace(s) != "" {
				keep = append(keep, s)
			}
		}
		if len(keep) > n {
			keep = keep[len(keep)-n:]
		}
		return keep
	}
	return nil
}
