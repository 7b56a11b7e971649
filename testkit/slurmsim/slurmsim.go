package slurmsim

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/fabricctl/fabricctl/action/launch/slurm"
	"github.com/fabricctl/fabricctl/action/launch/task"
)

// Node is one simulated node.
type Node struct {
	State  string // IDLE, DOWN, …
	Flags  []string
	Reason string
	By     string
}

// Step is one srun the cluster ran.
type Step struct {
	Args     []string
	Nodes    []string
	Spec     task.Spec
	ArgBytes int
}

// Cluster is the simulated Slurm.
type Cluster struct {
	// Task answers for one node of a step (nil: a result saying there is no task function).
	Task func(node string, s task.Spec) task.Result
	// Jobs are allocations by id: their nodes.
	Jobs map[string][]string
	// Silent nodes run no task (srun reports them like a node whose task died).
	Silent map[string]bool
	// Dies, when set, says whether a node's task dies in a step: as a Silent node, for that
	// step only (a rank killed mid-run).
	Dies func(node string, s task.Spec) bool
	// Hangs, when set, says whether a node's task never ends in a step: srun then waits until
	// its context ends, and the step stays in squeue until scancel ends it (tasks that outlive
	// their srun). It is called with the cluster locked.
	Hangs func(node string, s task.Spec) bool

	mu         sync.Mutex
	nodeTime   time.Duration
	nodes      map[string]*Node
	order      []string
	steps      []Step
	transcript []string
	running    map[string]string // step or job id → its name, while it runs
	lastJob    int
}

var _ slurm.Runner = (*Cluster)(nil)

// New makes a cluster of the nodes of hostlist, all IDLE.
func New(hostlist string) *Cluster {
	names, err := slurm.ExpandHostlist(hostlist)
	if err != nil {
		panic(err)
	}
	c := &Cluster{nodes: map[string]*Node{}, Jobs: map[string][]string{}, Silent: map[string]bool{},
		running: map[string]string{}, lastJob: 1000}
	for _, n := range names {
		c.nodes[n] = &Node{State: "IDLE"}
		c.order = append(c.order, n)
	}
	return c
}

// Set changes a node's state.
func (c *Cluster) Set(name string, n Node) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.nodes[name]; !ok {
		c.order = append(c.order, name)
	}
	c.nodes[name] = &n
}

// Get returns a node's state.
func (c *Cluster) Get(name string) (Node, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n, ok := c.nodes[name]
	if !ok {
		return Node{}, false
	}
	return *n, true
}

// Steps returns the sruns so far.
func (c *Cluster) Steps() []Step {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.steps)
}

// NodeTime is how long the simulated nodes' tasks took (Task and writing their results): a
// benchmark subtracts it to get the controller's own time.
func (c *Cluster) NodeTime() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.nodeTime
}

// Running returns the ids of the steps (JOB.STEP in an allocation) and jobs still running.
func (c *Cluster) Running() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Sorted(maps.Keys(c.running))
}

// Transcript returns every scontrol update and scancel, as its argv.
func (c *Cluster) Transcript() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.transcript)
}

// Run implements slurm.Runner.
func (c *Cluster) Run(ctx context.Context, name string, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if stdout == nil {
		stdout = io.Discard
	}
	switch name {
	case "scontrol":
		return c.scontrol(args, stdout)
	case "squeue":
		return c.squeue(args, stdout)
	case "srun":
		return c.srun(ctx, args, stdout, stderr)
	case "scancel":
		return c.scancel(args)
	}
	return fmt.Errorf("slurmsim: no command %s", name)
}

func (c *Cluster) scontrol(args []string, out io.Writer) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(args) >= 2 && args[0] == "show" && args[1] == "node" {
		names := c.order
		if len(args) > 2 {
			var err error
			if names, err = slurm.ExpandHostlist(args[2]); err != nil {
				return err
			}
		}
		var b bytes.Buffer
		for _, n := range names {
			nd, ok := c.nodes[n]
			if !ok {
				return fmt.Errorf("scontrol: Node %s not found", n)
			}
			fmt.Fprintf(&b, "NodeName=%s Arch=x86_64 CoresPerSocket=1 \n   CPUAlloc=0 CPUEfctv=1 CPUTot=1 CPULoad=0.00\n", n)
			fmt.Fprintf(&b, "   NodeAddr=%s NodeHostName=%s Version=22.05.8\n", n, n)
			fmt.Fprintf(&b, "   State=%s ThreadsPerCore=1 TmpDisk=0 Weight=1 Owner=N/A MCS_label=N/A\n   Partitions=all \n",
				strings.Join(append([]string{nd.State}, nd.Flags...), "+"))
			if nd.Reason != "" {
				fmt.Fprintf(&b, "   Reason=%s [%s@2026-12-03T08:00:00]\n", nd.Reason, nd.By)
			}
			b.WriteString("\n")
		}
		_, err := out.Write(b.Bytes())
		return err
	}
	if len(args) >= 1 && args[0] == "update" {
		c.transcript = append(c.transcript, strings.Join(args, " "))
		kv := map[string]string{}
		for _, a := range args[1:] {
			k, v, _ := strings.Cut(a, "=")
			kv[strings.ToLower(k)] = v
		}
		nd, ok := c.nodes[kv["nodename"]]
		if !ok {
			return fmt.Errorf("scontrol: Invalid node name specified")
		}
		switch strings.ToLower(kv["state"]) {
		case "drain":
			if kv["reason"] == "" {
				return fmt.Errorf("scontrol: You must specify a reason when DRAINING a node")
			}
			if !slices.Contains(nd.Flags, "DRAIN") {
				nd.Flags = append(nd.Flags, "DRAIN")
			}
			nd.Reason, nd.By = kv["reason"], "root"
		case "resume":
			nd.Flags = slices.DeleteFunc(nd.Flags, func(f string) bool { return f == "DRAIN" })
			nd.Reason, nd.By = "", ""
		default:
			return fmt.Errorf("scontrol: state %q not simulated", kv["state"])
		}
		return nil
	}
	return fmt.Errorf("slurmsim: scontrol %q not simulated", args)
}

// scancel ends the running steps and jobs named by id.
func (c *Cluster) scancel(ids []string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.transcript = append(c.transcript, "scancel "+strings.Join(ids, " "))
	for _, id := range ids {
		if _, ok := c.running[id]; !ok {
			return fmt.Errorf("scancel: error: Kill job error on job id %s: Invalid job id specified", id)
		}
		delete(c.running, id)
	}
	return nil
}

func (c *Cluster) squeue(args []string, out io.Writer) error {
	if slices.Contains(args, "--steps") || slices.Contains(args, "--me") {
		return c.squeueRunning(args, out)
	}
	for _, a := range args {
		if id, ok := strings.CutPrefix(a, "--jobs="); ok {
			c.mu.Lock()
			nodes := c.Jobs[id]
			c.mu.Unlock()
			_, err := fmt.Fprintln(out, slurm.CompressHostlist(nodes))
			return err
		}
	}
	return fmt.Errorf("slurmsim: squeue without --jobs")
}

// squeueRunning lists running steps (--steps --jobs=ALLOC) or jobs (--me) as "%i %j", filtered
// by --name.
func (c *Cluster) squeueRunning(args []string, out io.Writer) error {
	var job, name string
	for _, a := range args {
		if v, ok := strings.CutPrefix(a, "--jobs="); ok {
			job = v
		}
		if v, ok := strings.CutPrefix(a, "--name="); ok {
			name = v
		}
		if strings.HasPrefix(a, "--format=") && a != "--format=%i %j" {
			return fmt.Errorf("slurmsim: squeue format %q not simulated", a)
		}
	}
	steps := slices.Contains(args, "--steps")
	if steps && job == "" {
		return fmt.Errorf("slurmsim: squeue --steps without --jobs")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, id := range slices.Sorted(maps.Keys(c.running)) {
		jobOf, _, isStep := strings.Cut(id, ".")
		if isStep != steps || (steps && jobOf != job) || (name != "" && c.running[id] != name) {
			continue
		}
		if _, err := fmt.Fprintf(out, "%s %s\n", id, c.running[id]); err != nil {
			return err
		}
	}
	return nil
}

// srun runs a step: one task per node of --nodelist, the spec after "task".
func (c *Cluster) srun(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var nodelist, name, alloc string
	taskAt := -1
	for i, a := range args {
		if v, ok := strings.CutPrefix(a, "--nodelist="); ok {
			nodelist = v
		}
		if v, ok := strings.CutPrefix(a, "--job-name="); ok {
			name = v
		}
		if v, ok := strings.CutPrefix(a, "--jobid="); ok {
			alloc = v
		}
		if a == "task" {
			taskAt = i
			break
		}
	}
	if taskAt < 0 {
		return fmt.Errorf("slurmsim: srun without a fabricctl task")
	}
	nodes, err := slurm.ExpandHostlist(nodelist)
	if err != nil {
		return err
	}
	size := 0
	for _, a := range args[taskAt+1:] {
		size += len(a)
	}
	spec, err := task.DecodeArgs(args[taskAt+1:])
	if err != nil {
		return err
	}
	c.mu.Lock()
	c.steps = append(c.steps, Step{Args: args[:taskAt], Nodes: nodes, Spec: spec, ArgBytes: size})
	for _, n := range nodes {
		if nd, ok := c.nodes[n]; !ok || nd.State == "DOWN" {
			c.mu.Unlock()
			return fmt.Errorf("srun: error: Unable to allocate resources: Requested node configuration is not available")
		}
	}
	c.lastJob++
	id := strconv.Itoa(c.lastJob)
	if alloc != "" {
		id = alloc + "." + strconv.Itoa(len(c.steps)-1) // step ids count from 0
	}
	c.running[id] = name
	hung := c.Hangs != nil && slices.ContainsFunc(nodes, func(n string) bool { return c.Hangs(n, spec) })
	c.mu.Unlock()
	if hung {
		<-ctx.Done() // the step stays in running until scancel
		return fmt.Errorf("srun: forcing job termination: %w", ctx.Err())
	}
	defer func() {
		c.mu.Lock()
		delete(c.running, id)
		c.mu.Unlock()
	}()
	// every task's framed lines, then interleaved one line at a time
	outs := make([][]string, 0, len(nodes))
	var failed []string
	t0 := time.Now()
	for _, n := range nodes {
		if err := ctx.Err(); err != nil {
			return err
		}
		if c.Silent[n] || (c.Dies != nil && c.Dies(n, spec)) {
			failed = append(failed, n)
			continue
		}
		r := task.Result{Node: n, Error: "slurmsim: no task function"}
		if c.Task != nil {
			r = c.Task(n, spec)
		}
		var b bytes.Buffer
		if err := task.WriteResult(&b, r); err != nil {
			return err
		}
		var lines []string
		sc := bufio.NewScanner(&b)
		for sc.Scan() {
			lines = append(lines, sc.Text()+"\n")
		}
		outs = append(outs, lines)
	}
	c.mu.Lock()
	c.nodeTime += time.Since(t0)
	c.mu.Unlock()
	// from here on the controller reads the pipe as fast as srun writes it: not node time
	w := bufio.NewWriter(stdout)
	for more := true; more; {
		more = false
		for i := range outs {
			if len(outs[i]) > 0 {
				w.WriteString(outs[i][0])
				outs[i] = outs[i][1:]
				more = true
			}
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if len(failed) > 0 {
		if stderr != nil {
			fmt.Fprintf(stderr, "srun: error: %s: task 0: Exited with exit code 1\n", strings.Join(failed, ","))
		}
		return fmt.Errorf("srun: exit status 1")
	}
	return nil
}
