package task

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/fabricctl/fabricctl/checks/collective"
	"github.com/fabricctl/fabricctl/checks/perftest"
	"github.com/fabricctl/fabricctl/checks/preflight"
	"github.com/fabricctl/fabricctl/checks/rdma"
	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/internal/testutil"
)

func roundSpec(n int) Spec {
	gid := 3
	s := Spec{Kind: KindRound, Test: rdma.Test{Test: perftest.WriteBW, Size: 65536, Duration: 5 * time.Second}}
	for i := 0; i < n; i += 2 {
		s.Jobs = append(s.Jobs, Job{
			Server:  Side{Node: fmt.Sprintf("gpu%05d", i), Host: fmt.Sprintf("gpu%05d", i), Address: fmt.Sprintf("10.%d.%d.%d", i>>16, i>>8&255, i&255), Device: "mlx5_0", Port: 1, GIDIndex: &gid},
			Client:  Side{Node: fmt.Sprintf("gpu%05d", i+1), Host: fmt.Sprintf("gpu%05d", i+1), Address: "x", Device: "mlx5_0", Port: 1, GIDIndex: &gid},
			TCPPort: 18600 + i/2,
		})
	}
	return s
}

func TestSpecRoundTrip(t *testing.T) {
	for _, n := range []int{2, 2000, 20000} {
		s := roundSpec(n)
		args, err := EncodeArgs(s)
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range args {
			if len(a) > ArgChunk {
				t.Fatalf("argument of %d bytes, over %d", len(a), ArgChunk)
			}
		}
		got, err := DecodeArgs(args)
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Jobs) != n/2 || got.Jobs[n/2-1].Client.Node != s.Jobs[n/2-1].Client.Node || *got.Jobs[0].Server.GIDIndex != 3 || got.Test != s.Test {
			t.Errorf("%d nodes: round trip lost data", n)
		}
		if n == 20000 && len(args) < 2 {
			t.Errorf("a spec of 10,000 pairs fits one argument: %d bytes", len(args[0]))
		}
	}
	ab := []fabric.HostIntent{{Host: "a", Address: "10.0.0.1"}, {Host: "b", Address: "10.0.0.2"}}
	p := PreflightSpec(ab, ab, strings.ToUpper)
	if len(p.Peers) != 2 || p.Hosts[1].Node != "B" || !equal(p.Nodes(), []string{"A", "B"}) {
		t.Errorf("preflight spec: %+v", p)
	}
}

func equal(a, b []string) bool { return strings.Join(a, ",") == strings.Join(b, ",") }

func TestDecodeArgsRefuses(t *testing.T) {
	good, _ := EncodeArgs(roundSpec(2))
	unknown, _ := pack(map[string]any{"v": Version, "kind": "round", "jobs": []any{map[string]any{}}, "surprise": 1})
	old, _ := pack(map[string]any{"v": 99, "kind": "round"})
	noJobs, _ := pack(map[string]any{"v": Version, "kind": "round"})
	weird, _ := pack(map[string]any{"v": Version, "kind": "reboot"})
	ncclNoNodes, _ := pack(map[string]any{"v": Version, "kind": "nccl-probe", "nccl": map[string]any{"nodes": []any{}}})
	ncclNoPart, _ := pack(map[string]any{"v": Version, "kind": "nccl-run", "nccl": map[string]any{"nodes": []any{map[string]any{"node": "n1", "host": "h1"}}}})
	for name, args := range map[string][]string{
		"nccl probe without nodes": {ncclNoNodes},
		"nccl run without a part":  {ncclNoPart},
		"none":                     nil,
		"not base64":               {"!!!"},
		"truncated":                {good[0][:len(good[0])/2]},
		"unknown key":              {unknown},
		"old version":              {old},
		"no jobs":                  {noJobs},
		"unknown kind":             {weird},
	} {
		if _, err := DecodeArgs(args); !errors.Is(err, ErrSpec) {
			t.Errorf("%s: %v, want ErrSpec", name, err)
		}
	}
}

// TestFramesSurviveInterleaving: results of many nodes, their lines shuffled into each other
// and among srun's own lines, prefixed like srun --label, come back whole.
func TestFramesSurviveInterleaving(t *testing.T) {
	var lines []string
	want := map[string]Result{}
	big := strings.Repeat("perftest output line with some bytes\n", 800)
	for i := range 20 {
		node := fmt.Sprintf("n%02d", i)
		r := Result{Node: node, Kind: KindRound, Sides: []SideResult{{Job: i, Role: rdma.Client, Outcome: rdma.Outcome{ID: "c", Stdout: big[:i*1000]}}}}
		want[node] = r
		var b bytes.Buffer
		if err := WriteResult(&b, r); err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.SplitAfter(b.String(), "\n") {
			if l == "" {
				continue
			}
			if len(l) > 512 {
				t.Fatalf("frame line of %d bytes", len(l))
			}
			lines = append(lines, fmt.Sprintf("%d: %s", i, l))
		}
	}
	lines = append(lines, "srun: error: lab-h9: task 3: Exited with exit code 1\n")
	rng := rand.New(rand.NewPCG(1, 2))
	rng.Shuffle(len(lines), func(i, j int) { lines[i], lines[j] = lines[j], lines[i] })
	var other []string
	c := Collect(strings.NewReader(strings.Join(lines, "")), func(l string) { other = append(other, l) })
	if len(c.Errors) > 0 {
		t.Fatal(c.Errors)
	}
	if len(c.Results) != 20 {
		t.Fatalf("%d results, want 20", len(c.Results))
	}
	for n, r := range want {
		if got := c.Results[n]; got.Sides[0].Outcome.Stdout != r.Sides[0].Outcome.Stdout {
			t.Errorf("%s: payload differs", n)
		}
	}
	if len(other) != 1 || !strings.Contains(other[0], "Exited with exit code 1") {
		t.Errorf("other lines: %q", other)
	}
}

func TestCollectErrorsNameTheNode(t *testing.T) {
	var b bytes.Buffer
	rng := rand.New(rand.NewPCG(3, 4))
	noise := make([]byte, 3000)
	for i := range noise {
		noise[i] = byte('a' + rng.IntN(26))
	}
	if err := WriteResult(&b, Result{Node: "gpu07", Kind: KindPreflight, Error: string(noise)}); err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(b.String(), "\n")
	missing := strings.Join(lines[1:], "")
	c := Collect(strings.NewReader(missing), nil)
	if len(c.Results) != 0 || len(c.Errors) != 1 || !strings.Contains(c.Errors[0].Error(), "gpu07") {
		t.Errorf("a missing frame: %v", c.Errors)
	}
	liar := strings.ReplaceAll(b.String(), " gpu07 ", " gpu08 ")
	c = Collect(strings.NewReader(liar), nil)
	if len(c.Results) != 0 || len(c.Errors) != 1 || !strings.Contains(c.Errors[0].Error(), `names node "gpu07"`) {
		t.Errorf("a result under another node's name: %v", c.Errors)
	}
	c = Collect(strings.NewReader("FABRICCTL-TASK v1 gpu01 1/x AAAA\nFABRICCTL-TASK v9 gpu01 1/1 AAAA\n"), nil)
	if len(c.Errors) != 2 {
		t.Errorf("bad frames: %v", c.Errors)
	}
	if err := WriteResult(&b, Result{Node: "two words"}); err == nil {
		t.Error("a node name with a space was framed")
	}
}

// TestFrameGolden fixes the wire format of a small result.
func TestFrameGolden(t *testing.T) {
	var b bytes.Buffer
	facts := preflight.Facts{Host: "lab-h1", Hostname: "lab-h1", Perftest: "4.5"}
	if err := WriteResult(&b, Result{Node: "lab-h1", Kind: KindPreflight, Facts: &facts}); err != nil {
		t.Fatal(err)
	}
	c := Collect(bytes.NewReader(b.Bytes()), nil)
	got, _ := pack(c.Results["lab-h1"])
	if c.Results["lab-h1"].Facts.Perftest != "4.5" {
		t.Fatal("round trip")
	}
	testutil.Golden(t, "frame.golden", []byte(fmt.Sprintf("%s\npacked again: %d bytes\n", strings.TrimSpace(b.String()), len(got))))
}

func FuzzCollect(f *testing.F) {
	var b bytes.Buffer
	_ = WriteResult(&b, Result{Node: "n1", Kind: KindPreflight, Error: "x"})
	f.Add(b.String())
	f.Add("FABRICCTL-TASK v1 n 2/2 AA\nFABRICCTL-TASK v1 n 1/2 BB\n")
	f.Fuzz(func(t *testing.T, s string) {
		c := Collect(strings.NewReader(s), nil)
		for n, r := range c.Results {
			if r.Node != n {
				t.Fatalf("result of %q filed under %q", r.Node, n)
			}
		}
	})
}

func FuzzDecodeArgs(f *testing.F) {
	good, _ := EncodeArgs(roundSpec(4))
	f.Add(good[0])
	f.Add("H4sIAAAAAAAA")
	nccl, _ := EncodeArgs(NCCLRunSpec([]collective.Spec{{Host: "h1", Tool: collective.ToolTorch, Ranks: 1}}, func(h string) string { return h }))
	f.Add(nccl[0])
	f.Fuzz(func(t *testing.T, s string) {
		spec, err := DecodeArgs([]string{s})
		if err == nil && spec.Version != Version {
			t.Fatalf("accepted version %d", spec.Version)
		}
		if err == nil && spec.Kind == KindNCCLRun {
			for _, n := range spec.NCCL.Nodes {
				if n.Spec == nil {
					t.Fatalf("accepted an NCCL run step whose node %q has no part", n.Node)
				}
			}
		}
	})
}

// TestNCCLStepRoundTrip: an NCCL run step carries every node's part through srun's argv, and a
// task runs only its own node's (the others are not run here: a task without an NCCL node side
// says so).
func TestNCCLStepRoundTrip(t *testing.T) {
	specs := []collective.Spec{{JobID: "j", Host: "h1", Tool: collective.ToolTorch, NNodes: 2, Ranks: 8, Rendezvous: collective.RendezvousC10d,
		MasterAddr: "10.0.0.1", MasterPort: 29581, Env: map[string]string{"NCCL_IB_TC": "106"}}, {JobID: "j", Host: "h2", Tool: collective.ToolTorch, NodeRank: 1, NNodes: 2, Ranks: 8}}
	node := func(h string) string { return "node-" + h }
	args, err := EncodeArgs(NCCLRunSpec(specs, node))
	if err != nil {
		t.Fatal(err)
	}
	s, err := DecodeArgs(args)
	if err != nil {
		t.Fatal(err)
	}
	if !equal(s.Nodes(), []string{"node-h1", "node-h2"}) || s.NCCL.Nodes[0].Spec.Env["NCCL_IB_TC"] != "106" || s.NCCL.Nodes[1].Spec.NodeRank != 1 ||
		s.NCCL.Nodes[0].Spec.Rendezvous != collective.RendezvousC10d {
		t.Errorf("%+v", s.NCCL)
	}
	if r := Run(t.Context(), s, Env{Node: "node-h1"}); r.Error != "no NCCL node side" || r.NCCLRun != nil {
		t.Errorf("%+v", r)
	}
	// a node outside the step is told so
	p := NCCLProbeSpec([]string{"h1"}, node, collective.ProbeArgs{})
	if r := Run(t.Context(), p, Env{Node: "elsewhere", NCCL: &collective.Node{}}); !strings.Contains(r.Error, "node elsewhere is not in this nccl-probe step") {
		t.Errorf("%+v", r)
	}
	// a result without a probe is an error naming the host and the node
	_, errs := NCCLProbes([]string{"h1"}, node, Collected{Results: map[string]Result{"node-h1": {Node: "node-h1"}}}, nil)
	if errs[0] == nil || !strings.Contains(errs[0].Error(), "probing h1 for the NCCL check: node node-h1:") {
		t.Errorf("%v", errs[0])
	}
}

// TestNCCLRunSpecAt10000Nodes: the all-reduce step of a 10,000-node job (every node's part, with
// the fabric's NCCL env) fits srun's command line with room to spare: ARG_MAX is 2 MiB.
func TestNCCLRunSpecAt10000Nodes(t *testing.T) {
	specs := make([]collective.Spec, 10000)
	for i := range specs {
		specs[i] = collective.Spec{JobID: "fabricctl-nccl-1796300000", Host: fmt.Sprintf("gpu%05d", i+1), Tool: collective.ToolTorch, NodeRank: i, NNodes: len(specs),
			Ranks: 8, MasterAddr: "10.0.0.1", MasterPort: collective.DefaultPort, MinBytes: 8, MaxBytes: 1 << 30, Iterations: 20, Warmup: 5,
			Timeout: 5 * time.Minute, Python: "python3", Env: map[string]string{"NCCL_IB_GID_INDEX": "3", "NCCL_IB_TC": "106", "NCCL_IB_HCA": "=mlx5_0,mlx5_1"}}
	}
	args, err := EncodeArgs(NCCLRunSpec(specs, func(h string) string { return h }))
	if err != nil {
		t.Fatal(err)
	}
	size := 0
	for _, a := range args {
		size += len(a)
	}
	t.Logf("10,000-node NCCL run step: %d bytes in %d argument(s)", size, len(args))
	if size > 1<<20 {
		t.Errorf("the spec takes %d bytes of srun's argv, want under 1 MiB", size)
	}
}
