package slurm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/fabricctl/fabricctl/internal/output"
)

// DefaultPath is searched for Slurm's commands when PATH is empty: slurmd runs the
// HealthCheckProgram with SLURMD_NODENAME as its only environment variable.
const DefaultPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

// DrainPrefix starts the reason of every drain fabricctl sets ("fabricctl: …"), as LBNL NHC's
// start with "NHC:". Only nodes drained with this prefix are resumed by fabricctl.
const DrainPrefix = "fabricctl:"

// MaxReason bounds a drain reason: Slurm keeps the whole text, but sinfo and scontrol print it
// on one line.
const MaxReason = 200

// Runner runs a Slurm command (srun, scontrol, …): argv without a shell, stdin may be nil.
type Runner interface {
	Run(ctx context.Context, name string, args []string, stdin io.Reader, stdout, stderr io.Writer) error
}

// Exec runs Slurm's commands as processes. Dir, when set, is where they are (otherwise PATH, or
// DefaultPath when PATH is empty); Env is added to this process's environment.
type Exec struct {
	Dir string
	Env []string
	// Grace is how long a cancelled command has after SIGTERM before it is killed (default 10 s):
	// srun forwards the signal to its tasks and cancels the step.
	Grace time.Duration
}

var _ Runner = Exec{}

// Path finds the command name.
func (e Exec) Path(name string) (string, error) {
	if e.Dir != "" {
		return filepath.Join(e.Dir, name), nil
	}
	if os.Getenv("PATH") == "" {
		for _, d := range filepath.SplitList(DefaultPath) {
			p := filepath.Join(d, name)
			if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
				return p, nil
			}
		}
		return "", fmt.Errorf("finding %s in %s: %w", name, DefaultPath, exec.ErrNotFound)
	}
	return exec.LookPath(name)
}

// Run runs name with args; a non-zero exit is an *exec.ExitError wrapped with the command and
// the last line of its stderr.
func (e Exec) Run(ctx context.Context, name string, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	p, err := e.Path(name)
	if err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, p, args...)
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = e.Grace
	if cmd.WaitDelay == 0 {
		cmd.WaitDelay = 10 * time.Second
	}
	if len(e.Env) > 0 {
		cmd.Env = append(os.Environ(), e.Env...)
	}
	cmd.Stdin, cmd.Stdout = stdin, stdout
	var tail tailWriter
	if stderr != nil {
		cmd.Stderr = io.MultiWriter(stderr, &tail)
	} else {
		cmd.Stderr = &tail
	}
	if err := cmd.Run(); err != nil {
		if l := tail.last(); l != "" {
			return fmt.Errorf("running %s: %w: %s", name, err, l)
		}
		return fmt.Errorf("running %s: %w", name, err)
	}
	return nil
}

// tailWriter keeps the last 4 KiB written.
type tailWriter struct{ b []byte }

func (t *tailWriter) Write(p []byte) (int, error) {
	t.b = append(t.b, p...)
	if len(t.b) > 4096 {
		t.b = t.b[len(t.b)-4096:]
	}
	return len(p), nil
}

func (t *tailWriter) last() string {
	lines := strings.Split(strings.TrimSpace(string(t.b)), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

// Client asks Slurm about nodes and changes their state through scontrol.
type Client struct{ Run Runner }

// Nodes returns the named nodes (every node when none is named), as scontrol shows them.
func (c Client) Nodes(ctx context.Context, names ...string) ([]Node, error) {
	args := []string{"show", "node"}
	if len(names) > 0 {
		args = append(args, CompressHostlist(names))
	}
	var out bytes.Buffer
	if err := c.Run.Run(ctx, "scontrol", args, nil, &out, nil); err != nil {
		return nil, fmt.Errorf("reading node states: %w", err)
	}
	nodes, err := ParseNodes(&out)
	if err != nil {
		return nil, fmt.Errorf("reading node states: %w", err)
	}
	return nodes, nil
}

// Reason makes a drain reason: DrainPrefix, then summary on one line, at most MaxReason bytes.
func Reason(summary string) string {
	return output.OneLine(DrainPrefix+" "+summary, MaxReason)
}

// ErrBadName: a node name scontrol would read as more than one node, or as none.
var ErrBadName = errors.New("invalid node name")

// Drain drains node with reason (`scontrol update nodename=N state=drain reason=…`): running jobs
// finish, no new ones start.
func (c Client) Drain(ctx context.Context, node, reason string) error {
	if err := CheckNodeName(node); err != nil {
		return err
	}
	if !strings.HasPrefix(reason, DrainPrefix) {
		reason = Reason(reason)
	}
	args := []string{"update", "nodename=" + node, "state=drain", "reason=" + reason}
	if err := c.Run.Run(ctx, "scontrol", args, nil, io.Discard, nil); err != nil {
		return fmt.Errorf("draining %s: %w", node, err)
	}
	return nil
}

// Resume returns a drained node to service (`scontrol update nodename=N state=resume`).
func (c Client) Resume(ctx context.Context, node string) error {
	if err := CheckNodeName(node); err != nil {
		return err
	}
	if err := c.Run.Run(ctx, "scontrol", []string{"update", "nodename=" + node, "state=resume"}, nil, io.Discard, nil); err != nil {
		return fmt.Errorf("resuming %s: %w", node, err)
	}
	return nil
}

// DrainedByUs reports whether n was drained by fabricctl (its reason starts with DrainPrefix):
// only such nodes are resumed when they pass again, as NHC only resumes nodes it drained.
func DrainedByUs(n Node) bool { return n.Drained() && strings.HasPrefix(n.Reason, DrainPrefix) }

// JobNodes returns the nodes of job (an allocation), from squeue.
func (c Client) JobNodes(ctx context.Context, job string) ([]string, error) {
	var out bytes.Buffer
	if err := c.Run.Run(ctx, "squeue", []string{"--jobs=" + job, "--noheader", "--format=%N"}, nil, &out, nil); err != nil {
		return nil, fmt.Errorf("reading the nodes of job %s: %w", job, err)
	}
	nodes, err := ExpandHostlist(strings.TrimSpace(out.String()))
	if err != nil {
		return nil, fmt.Errorf("reading the nodes of job %s: %w", job, err)
	}
	if len(nodes) == 0 {
		return nil, fmt.Errorf("reading the nodes of job %s: the job has no nodes (not running?)", job)
	}
	return nodes, nil
}
