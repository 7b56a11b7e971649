package collective

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fabricctl/fabricctl/agent"
	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/internal/testutil"
)

// fakeBin writes an executable shell script name into dir.
func fakeBin(t *testing.T, dir, name, body string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
}

// pathNode is a Node whose programs come from dir only.
func pathNode(dir string) *Node {
	return &Node{
		LookPath: func(name string) (string, error) {
			p := filepath.Join(dir, name)
			if _, err := os.Stat(p); err != nil {
				return "", &exec.Error{Name: name, Err: exec.ErrNotFound}
			}
			return p, nil
		},
		Environ: func() []string { return []string{"PATH=" + dir + ":/usr/bin:/bin", "NCCL_NVLS_ENABLE=0"} },
	}
}

// TestProbeNoGPU: a host without the NVIDIA driver (the soft-RoCE lab's
// VMs) is a skip that says why, whatever the tool.
func TestProbeNoGPU(t *testing.T) {
	p := pathNode(t.TempDir()).Probe(t.Context(), ProbeArgs{})
	for _, tool := range []string{ToolAuto, ToolTorch, ToolNCCLTests} {
		if got := p.Skip(tool); got != "no NVIDIA GPU: nvidia-smi not found (no NVIDIA driver installed)" {
			t.Errorf("%s: %q", tool, got)
		}
	}
}

// TestProbeDriverFailsAndNoTorch: nvidia-smi that cannot talk to the driver,
// and a python without PyTorch, are skips with the tools' own words.
func TestProbeDriverFailsAndNoTorch(t *testing.T) {
	dir := t.TempDir()
	fakeBin(t, dir, "nvidia-smi", "echo \"NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\"; exit 9\n")
	p := pathNode(dir).Probe(t.Context(), ProbeArgs{})
	if !strings.Contains(p.Skip(ToolAuto), "couldn't communicate with the NVIDIA driver") {
		t.Errorf("%q", p.Skip(ToolAuto))
	}

	dir = t.TempDir()
	fakeBin(t, dir, "nvidia-smi", `case "$1" in --query-gpu*) echo "0, NVIDIA H200, 00000000:1B:00.0";; topo) echo "        GPU0";; esac`+"\n")
	fakeBin(t, dir, "python3", `echo '{"error": "ModuleNotFoundError: No module named '"'"'torch'"'"'"}'`+"\n")
	p = pathNode(dir).Probe(t.Context(), ProbeArgs{})
	want := "PyTorch is not usable with " + filepath.Join(dir, "python3") + " (ModuleNotFoundError: No module named 'torch')"
	if p.Skip(ToolTorch) != want || !strings.HasPrefix(p.Skip(ToolAuto), want+"; nccl-tests is not installed") || len(p.GPUs) != 1 {
		t.Errorf("%+v: %q", p, p.Skip(ToolAuto))
	}
	fakeBin(t, dir, "python3", `echo '{"torch": "2.11.0+cpu", "cuda": "", "gpus": 0, "nccl": "", "ncclAvailable": false}'`+"\n")
	if got := pathNode(dir).Probe(t.Context(), ProbeArgs{}).Skip(ToolTorch); got != "PyTorch 2.11.0+cpu sees no CUDA device (a CPU-only build, or CUDA none does not match the driver)" {
		t.Errorf("%q", got)
	}
}

// TestRunCollectsLogsAndEnv: the node starts the launcher with NCCL's debug
// environment, every process' NCCL_DEBUG_FILE comes back as a log, and the
// script's lines come back in the output.
func TestRunCollectsLogsAndEnv(t *testing.T) {
	dir := t.TempDir()
	// A stand-in for python3 -m torch.distributed.run: one "rank" that writes
	// its NCCL log where NCCL_DEBUG_FILE says and prints the script's lines.
	fakeBin(t, dir, "python3", `f=$(echo "$NCCL_DEBUG_FILE" | sed "s/%h/$(hostname)/; s/%p/$$/")
echo "vm:$$:$$ [0] NCCL INFO NCCL version 2.28.9+cuda13.0" > "$f"
echo "vm:$$:$$ [0] NCCL INFO NCCL_DEBUG_SUBSYS set by environment to $NCCL_DEBUG_SUBSYS." >> "$f"
echo "args: $*"
echo "env: NCCL_DEBUG=$NCCL_DEBUG NCCL_IB_TC=$NCCL_IB_TC NCCL_NVLS_ENABLE=$NCCL_NVLS_ENABLE"
echo 'FABRICCTL-NCCL {"event": "done", "rank": 0}'
`)
	s := Spec{JobID: "j", Host: "h1", Tool: ToolTorch, NNodes: 1, Ranks: 1, MinBytes: 8, MaxBytes: 1024, Iterations: 2, Warmup: 1,
		Timeout: time.Minute, Env: map[string]string{"NCCL_IB_TC": "106"}}
	r := pathNode(dir).Run(t.Context(), s)
	if r.ExitCode != 0 || r.Error != "" || len(r.Logs) != 2 {
		t.Fatalf("%+v", r)
	}
	out := r.Logs[0].Text
	for _, want := range []string{"-m torch.distributed.run --nproc-per-node 1 --standalone --nnodes 1 ", "fabricctl_allreduce.py --min-bytes 8 --max-bytes 1024 --iters 2 --warmup 1",
		"env: NCCL_DEBUG=INFO NCCL_IB_TC=106 NCCL_NVLS_ENABLE=0"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if l := r.Logs[1]; !strings.HasPrefix(l.Name, "nccl-") || !strings.Contains(l.Text, "NCCL_DEBUG_SUBSYS set by environment to INIT,NET,GRAPH,ENV.") {
		t.Errorf("%+v", l)
	}
	var sc ScriptRun
	ParseScript("h1/output", out, &sc)
	if !slices.Equal(sc.Done, []int{0}) {
		t.Errorf("%+v", sc)
	}
	// The scratch directory is gone.
	if m, _ := filepath.Glob(filepath.Join(os.TempDir(), "fabricctl-nccl-*", "fabricctl_allreduce.py")); slices.ContainsFunc(m, func(p string) bool { return strings.Contains(out, p) }) {
		t.Errorf("scratch directory left: %v", m)
	}
}

// TestRunTimeoutKillsTheGroup: a job that hangs is killed with everything it
// started when its timeout passes, and says so.
func TestRunTimeoutKillsTheGroup(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(t.TempDir(), "child")
	fakeBin(t, dir, "all_reduce_perf", "sleep 300 & echo $! > "+pidFile+"\necho started\nwait\n")
	s := Spec{Host: "h1", Tool: ToolNCCLTests, NNodes: 1, Ranks: 1, MinBytes: 8, MaxBytes: 8, Iterations: 1, Timeout: 500 * time.Millisecond}
	r := pathNode(dir).Run(t.Context(), s)
	if !r.TimedOut || r.ExitCode == 0 || !slices.Contains(r.Argv, "-g") {
		t.Fatalf("%+v", r)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Skipf("the job was killed before it forked (a loaded machine): %v", err)
	}
	if _, err := os.Stat("/proc/" + strings.TrimSpace(string(b))); err == nil {
		// The child may still be a zombie of init for a moment: wait for it to go.
		deadline := time.Now().Add(10 * time.Second)
		for time.Now().Before(deadline) {
			if st, err := os.ReadFile("/proc/" + strings.TrimSpace(string(b)) + "/stat"); err != nil || strings.Contains(string(st), ") Z ") {
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
		t.Errorf("the job's child %s survived the kill", strings.TrimSpace(string(b)))
	}
}

// TestSpecRefused: a spec the node cannot run safely is refused with every
// reason, and nothing starts.
func TestSpecRefused(t *testing.T) {
	r := (&Node{}).Run(context.Background(), Spec{Tool: "mpirun", Ranks: 0, NNodes: 2, MinBytes: 8, MaxBytes: 4, Env: map[string]string{"LD_PRELOAD": "x"}})
	for _, want := range []string{`tool "mpirun"`, "ranks 0", "needs a master address", "are not a test", "no timeout", `environment "LD_PRELOAD"`} {
		if !strings.Contains(r.Error, want) {
			t.Errorf("%q lacks %q", r.Error, want)
		}
	}
	r = (&Node{}).Run(context.Background(), Spec{Tool: ToolNCCLTests, Ranks: 1, NNodes: 2, MasterAddr: "10.0.0.1", MasterPort: 1, MinBytes: 8, MaxBytes: 8,
		Iterations: 1, Timeout: time.Minute, Rendezvous: "etcd"})
	if !strings.Contains(r.Error, `rendezvous "etcd" is not torchrun's c10d`) {
		t.Errorf("%q lacks the rendezvous", r.Error)
	}
	if err := (Spec{Tool: ToolTorch, Rendezvous: RendezvousC10d}).validate(); err == nil || !strings.Contains(err.Error(), "a c10d rendezvous needs a job id") {
		t.Errorf("%v", err)
	}
	if err := (Spec{Tool: ToolTorch}).validate(); !errors.Is(err, ErrBadArgs) {
		t.Errorf("%v is not ErrBadArgs", err)
	}
}

// TestArgvGolden: the command lines of every way a host's part runs —
// nccl-tests on one host, torchrun on one node, torchrun's static rendezvous
// over SSH (each host told its node rank) and torchrun's c10d rendezvous
// under Slurm (one argv for every node of the srun step, the first node's
// name as endpoint; an IPv6 address is bracketed).
func TestArgvGolden(t *testing.T) {
	base := Spec{JobID: "fabricctl-nccl-1796300000", Host: "gpu001", MinBytes: 8, MaxBytes: 1 << 30, Iterations: 20, Warmup: 5, Timeout: time.Minute}
	cases := []struct {
		name string
		mod  func(*Spec)
	}{
		{"nccl-tests, one host, 8 GPUs", func(s *Spec) { s.Tool, s.NNodes, s.Ranks = ToolNCCLTests, 1, 8 }},
		{"torchrun, one node", func(s *Spec) { s.Tool, s.NNodes, s.Ranks = ToolTorch, 1, 8 }},
		{"torchrun over SSH, node 1 of 2", func(s *Spec) {
			s.Tool, s.NNodes, s.NodeRank, s.Ranks, s.MasterAddr, s.MasterPort = ToolTorch, 2, 1, 8, "10.0.0.1", DefaultPort
		}},
		{"torchrun under Slurm, c10d, 4 nodes", func(s *Spec) {
			s.Tool, s.NNodes, s.NodeRank, s.Ranks, s.MasterAddr, s.MasterPort, s.Rendezvous = ToolTorch, 4, 2, 8, "gpu001", DefaultPort, RendezvousC10d
		}},
		{"torchrun under Slurm, c10d, IPv6 endpoint", func(s *Spec) {
			s.Tool, s.NNodes, s.Ranks, s.MasterAddr, s.MasterPort, s.Rendezvous = ToolTorch, 2, 1, "fd00::1", DefaultPort, RendezvousC10d
		}},
	}
	var b strings.Builder
	for _, c := range cases {
		s := base
		c.mod(&s)
		if err := s.validate(); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		prog := "/usr/bin/python3"
		if s.Tool == ToolNCCLTests {
			prog = "/usr/local/bin/all_reduce_perf"
		}
		fmt.Fprintf(&b, "# %s\n%s\n", c.name, strings.Join(s.Argv(prog, "/tmp/fabricctl-nccl-X/fabricctl_allreduce.py"), " "))
	}
	testutil.Golden(t, "argv.golden", []byte(b.String()))
}

// TestOpsRefuseHostileArgs: both ops decode their args strictly, and a
// negative count, a port out of range or a control character in what
// becomes a command line is a bad request naming the field; nothing runs.
func TestOpsRefuseHostileArgs(t *testing.T) {
	h := &agent.Handler{}
	(&Node{LookPath: func(name string) (string, error) {
		t.Errorf("%s was looked up for a refused request", name)
		return "", exec.ErrNotFound
	}}).Register(h)
	const run = `{"jobId":"j","host":"h","tool":"torch","ranks":1,"minBytes":8,"maxBytes":8,"iterations":1,"timeout":60000000000`
	for _, c := range []struct{ op, args, want string }{
		{OpProbe, `{"python":"python3","pyhton":"x"}`, `unknown field "pyhton"`},
		{OpProbe, `{"python":"-c"}`, `python "-c" is not a program`},
		{OpProbe, `{"python":"py\u001b]0;x\u0007"}`, "python"},
		{OpRun, run + `,"bogus":1}`, `unknown field "bogus"`},
		{OpRun, run + `,"nnodes":-2}`, "nnodes -2 is negative"},
		{OpRun, run + `,"masterPort":70000}`, "masterPort 70000 is outside 0..65535"},
		{OpRun, run + `,"warmup":-1}`, "warmup -1 is negative"},
		{OpRun, run + `,"timeout":-1}`, "timeout -1ns is negative"},
		{OpRun, run + `,"maxBytes":1e30}`, "maxBytes"},
		{OpRun, run + `,"jobId":"j\nx"}`, "jobId"},
		{OpRun, ``, "none given"},
	} {
		r := h.Handle(t.Context(), agent.Request{APIVersion: fabric.APIVersion, Protocol: agent.Protocol, Op: c.op, Args: json.RawMessage(c.args)})
		if r.OK || r.Error.Kind != agent.ErrorBadRequest || !strings.Contains(r.Error.Message, c.want) {
			t.Errorf("%s %.80s: reply %+v, want a bad request saying %q", c.op, c.args, r.Error, c.want)
		}
	}
}
