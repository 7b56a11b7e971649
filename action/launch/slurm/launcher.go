package slurm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/fabricctl/fabricctl/action/launch/task"
	"github.com/fabricctl/fabricctl/checks/preflight"
	"github.com/fabricctl/fabricctl/checks/rdma"
	"github.com/fabricctl/fabricctl/fabric"
)

// NodeLabel is the fabric host label naming the host's Slurm node when it differs from the
// host name (labels: {fabricctl.io/slurm-node: gpu017}).
const NodeLabel = "fabricctl.io/slurm-node"

// ErrUnavailable: Slurm will not run a step on the node (drained, down, not responding, or
// outside the allocation fabricctl runs in).
var ErrUnavailable = errors.New("slurm node unavailable")

// DefaultPreflightBound bounds the preflight step.
const DefaultPreflightBound = 3 * time.Minute

// stepSlack is added to a step's bound for srun's own start and end (allocation, launch
// through the slurmd tree, output drain).
const stepSlack = time.Minute

// Step is one srun step as it ran.
type Step struct {
	Name  string        `json:"name"`
	Nodes int           `json:"nodes"`
	Wall  time.Duration `json:"wall"`
	// ArgBytes is the size of the task spec on srun's command line.
	ArgBytes int    `json:"argBytes"`
	Error    string `json:"error,omitempty"`
}

// Launcher runs fabricctl's host-side checks as Slurm job steps: the preflight as one srun step
// on every node, each round of tests (a pairwise round, the loopback) as one srun step on the
// round's nodes. Every task runs `BIN task SPEC…` (the same argv on every node; each finds its
// part by SLURMD_NODENAME) and prints its result framed on stdout, which srun gathers.
// It implements action/check's Launcher. Safe for use by one sweep at a time.
type Launcher struct {
	Run Runner
	// Bin is fabricctl on the nodes (default "fabricctl", found through the tasks' PATH).
	Bin string
	// Partition and Reservation go to srun when set.
	Partition, Reservation string
	// Node maps a fabric host to its Slurm node name (nil: the host name).
	Node func(host string) string
	// Allocation is the job fabricctl runs inside (SLURM_JOB_ID): its steps run on its nodes,
	// draining ones included. Without one, every step is a job of its own with --exclusive.
	Allocation string
	// AllocationNodes are the allocation's nodes (SLURM_JOB_NODELIST expanded).
	AllocationNodes []string
	// PreflightBound bounds the preflight step (DefaultPreflightBound when 0).
	PreflightBound time.Duration
	// Log receives progress lines and srun's own messages.
	Log func(format string, args ...any)

	mu    sync.Mutex
	steps []Step
	seq   int
}

func (l *Launcher) node(host string) string {
	if l.Node == nil {
		return host
	}
	return l.Node(host)
}

func (l *Launcher) log(format string, args ...any) {
	if l.Log != nil {
		l.Log(format, args...)
	}
}

// Steps returns the steps run so far.
func (l *Launcher) Steps() []Step {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.steps)
}

// SrunArgs is srun's argv for a step named name on nodes, bounded by bound, running argv on
// each: one task per node, no task's failure killing the others.
func (l *Launcher) SrunArgs(name string, nodes []string, bound time.Duration, argv []string) []string {
	minutes := int((bound + stepSlack + time.Minute - 1) / time.Minute)
	args := []string{
		"--job-name=fabricctl-" + name,
		"--nodes=" + strconv.Itoa(len(nodes)),
		"--ntasks=" + strconv.Itoa(len(nodes)),
		"--ntasks-per-node=1",
		"--nodelist=" + CompressHostlist(nodes),
		"--kill-on-bad-exit=0",
		"--chdir=/tmp", // the caller's directory need not exist on the nodes
		"--time=" + strconv.Itoa(minutes),
	}
	if l.Allocation == "" {
		args = append(args, "--exclusive")
	} else {
		// the steps run one after another: --overlap spares each the wait until Slurm has
		// released the last one's CPUs ("step creation temporarily disabled")
		args = append(args, "--jobid="+l.Allocation, "--overlap")
	}
	if l.Partition != "" {
		args = append(args, "--partition="+l.Partition)
	}
	if l.Reservation != "" {
		args = append(args, "--reservation="+l.Reservation)
	}
	bin := l.Bin
	if bin == "" {
		bin = "fabricctl"
	}
	return append(append(args, bin), argv...)
}

// step runs one srun step and collects the tasks' results.
func (l *Launcher) step(ctx context.Context, name string, spec task.Spec, bound time.Duration) (task.Collected, error) {
	nodes := spec.Nodes()
	for _, n := range nodes {
		if err := CheckNodeName(n); err != nil {
			return task.Collected{}, fmt.Errorf("step %s: %w", name, err)
		}
	}
	targs, err := task.EncodeArgs(spec)
	if err != nil {
		return task.Collected{}, err
	}
	l.mu.Lock()
	l.seq++
	name = fmt.Sprintf("%s-%d", name, l.seq)
	l.mu.Unlock()
	size := 0
	for _, a := range targs {
		size += len(a)
	}
	args := l.SrunArgs(name, nodes, bound, append([]string{"task"}, targs...))
	sctx, cancel := context.WithTimeout(ctx, bound+2*stepSlack)
	defer cancel()
	pr, pw := io.Pipe()
	done := make(chan task.Collected, 1)
	go func() {
		done <- task.Collect(pr, func(line string) { l.log("%s: %s", name, line) })
	}()
	var stderr bytes.Buffer
	t0 := time.Now()
	l.log("step %s: srun on %d node(s) %s (spec %d bytes)", name, len(nodes), CompressHostlist(nodes), size)
	runErr := l.Run.Run(sctx, "srun", args, nil, pw, lineLogger{l: l, name: name, buf: &stderr})
	pw.Close()
	if sctx.Err() != nil {
		l.cancelled(sctx, name)
	}
	c := <-done
	st := Step{Name: name, Nodes: len(nodes), Wall: time.Since(t0), ArgBytes: size}
	if runErr != nil {
		st.Error = runErr.Error()
		runErr = fmt.Errorf("step %s: %w", name, runErr)
	}
	l.mu.Lock()
	l.steps = append(l.steps, st)
	l.mu.Unlock()
	for _, e := range c.Errors {
		l.log("step %s: %v", name, e)
	}
	l.log("step %s: %d of %d node(s) reported in %.1fs", name, len(c.Results), len(nodes), st.Wall.Seconds())
	return c, runErr
}

// lineLogger passes srun's stderr to the launcher's log line by line.
type lineLogger struct {
	l    *Launcher
	name string
	buf  *bytes.Buffer
}

func (w lineLogger) Write(p []byte) (int, error) {
	w.buf.Write(p)
	for {
		i := bytes.IndexByte(w.buf.Bytes(), '\n')
		if i < 0 {
			break
		}
		line := string(bytes.TrimSpace(w.buf.Next(i + 1)))
		if line != "" {
			w.l.log("%s: %s", w.name, line)
		}
	}
	return len(p), nil
}

// Availability asks Slurm about the nodes of hosts and returns, per host, why Slurm would not run
// a step there (nil when it would): a node Slurm does not know, a drained, down or not responding
// one, or one outside the allocation. Inside an allocation a draining node still runs steps.
func (l *Launcher) Availability(ctx context.Context, hosts []string) (map[string]error, error) {
	names := make([]string, len(hosts))
	for i, h := range hosts {
		names[i] = l.node(h)
	}
	nodes, err := Client{Run: l.Run}.Nodes(ctx)
	if err != nil {
		return nil, err
	}
	byName := map[string]Node{}
	for _, n := range nodes {
		byName[n.Name] = n
	}
	out := map[string]error{}
	for i, h := range hosts {
		n, ok := byName[names[i]]
		var why error
		switch {
		case !ok:
			why = fmt.Errorf("%w: Slurm has no node %q (map the host with the label %s)", ErrUnavailable, names[i], NodeLabel)
		case l.Allocation != "" && !slices.Contains(l.AllocationNodes, n.Name):
			why = fmt.Errorf("%w: node %s is not in allocation %s", ErrUnavailable, n.Name, l.Allocation)
		case l.Allocation != "" && !n.Responding():
			why = fmt.Errorf("%w: node %s is %s%s", ErrUnavailable, n.Name, n.StateString(), reasonSuffix(n))
		case l.Allocation == "" && !n.Allocatable():
			why = fmt.Errorf("%w: node %s is %s%s", ErrUnavailable, n.Name, n.StateString(), reasonSuffix(n))
		}
		out[h] = why
	}
	return out, nil
}

func reasonSuffix(n Node) string {
	if n.Reason == "" {
		return ""
	}
	return " (" + n.Reason + ")"
}

// usable returns the indexes of the hosts whose nodes Slurm will run a step on, and for every
// other host the reason as its error (all of them when Slurm cannot be asked).
func (l *Launcher) usable(ctx context.Context, hosts []string) ([]int, []error) {
	errs := make([]error, len(hosts))
	avail, err := l.Availability(ctx, hosts)
	if err != nil {
		for i := range errs {
			errs[i] = err
		}
		return nil, errs
	}
	var at []int
	for i, h := range hosts {
		if why := avail[h]; why != nil {
			errs[i] = why
			continue
		}
		at = append(at, i)
	}
	return at, errs
}

func (l *Launcher) preflightBound() time.Duration {
	if l.PreflightBound == 0 {
		return DefaultPreflightBound
	}
	return l.PreflightBound
}

// Preflight gathers every host's facts in one srun step on the nodes Slurm will run it on; a
// host on any other node gets the reason as its error.
func (l *Launcher) Preflight(ctx context.Context, intents []fabric.HostIntent) ([]preflight.Facts, []error) {
	facts := make([]preflight.Facts, len(intents))
	hosts := make([]string, len(intents))
	for i, in := range intents {
		hosts[i] = in.Host
		facts[i].Host = in.Host
	}
	at, errs := l.usable(ctx, hosts)
	run := make([]fabric.HostIntent, len(at))
	for k, i := range at {
		run[k] = intents[i]
	}
	if len(run) == 0 {
		return facts, errs
	}
	bound := l.preflightBound()
	c, stepErr := l.step(ctx, "preflight", task.PreflightSpec(run, intents, l.node), bound)
	got, gotErrs := task.Facts(run, l.node, c, stepErr)
	for k, i := range at {
		facts[i], errs[i] = got[k], gotErrs[k]
	}
	return facts, errs
}

// RunRound runs one round as one srun step. Runs that failed only because perftest's clock
// calibration did, or because the out-of-band exchange did (a client that could not reach or
// read its server: in a step the two sides start independently, and an emulated or loaded host
// may not be ready in time), run once more, in a second step of just those jobs; a broken path
// fails again.
func (l *Launcher) RunRound(ctx context.Context, jobs []rdma.Job) []rdma.PairRun {
	runs := l.round(ctx, jobs)
	var again []rdma.Job
	var at []int
	for i, r := range runs {
		if retryable(r) {
			again, at = append(again, jobs[i]), append(at, i)
		}
	}
	if len(again) > 0 && ctx.Err() == nil {
		l.log("running %d job(s) again (clock calibration or out-of-band exchange failed)", len(again))
		for k, r := range l.round(ctx, again) {
			r.Attempts = 2
			runs[at[k]] = r
		}
	}
	return runs
}

// retryable: the run failed for a cause of the measurement (rdma.PairRun.Retryable: clock
// calibration without an estimate, out-of-band exchange, set-up timeout, port in use), not a
// step that broke (that fails the whole step).
func retryable(r rdma.PairRun) bool {
	_, ok := r.Retryable()
	return ok && r.Err == nil
}

func (l *Launcher) round(ctx context.Context, jobs []rdma.Job) []rdma.PairRun {
	spec := task.RoundSpec(jobs, l.node)
	name := "round"
	if len(jobs) > 0 && jobs[0].Loopback() {
		name = "loopback"
	}
	bound := time.Duration(0)
	for _, j := range jobs {
		bound = max(bound, j.Test.Bound())
	}
	c, err := l.step(ctx, name, spec, bound)
	return task.Runs(jobs, spec, c, err)
}

// NodeOf maps a host to its Slurm node: the NodeLabel label when set, else the host name.
func NodeOf(host string, labels map[string]string) string {
	if n := labels[NodeLabel]; n != "" {
		return n
	}
	return host
}
