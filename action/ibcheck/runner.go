package ibcheck

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/fabricctl/fabricctl/agent/agentclient"
	"github.com/fabricctl/fabricctl/checks/rdma"
)

// Output is what one diagnostic printed and how it exited.
type Output struct {
	Stdout, Stderr []byte
	ExitCode       int
}

// Runner runs one diagnostic, argv[0] being the tool, and returns what it
// printed. A tool that ran and exited non-zero is an Output with its
// ExitCode, not an error; the error is for one that could not run or did
// not finish. Options.Timeout bounds ctx.
type Runner interface {
	RunDiag(ctx context.Context, argv []string) (Output, error)
}

// ExecRunner runs the diagnostics on this machine (the default Runner).
type ExecRunner struct {
	// Env is added to this process's environment (KEY=VALUE), and Dir is
	// the tools' working directory ("": this one's).
	Env []string
	Dir string
}

// RunDiag implements Runner.
func (e ExecRunner) RunDiag(ctx context.Context, argv []string) (Output, error) {
	if len(argv) == 0 {
		return Output{}, errors.New("running a diagnostic: empty command")
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	if len(e.Env) > 0 {
		cmd.Env = append(os.Environ(), e.Env...)
	}
	cmd.Dir = e.Dir
	cmd.WaitDelay = 5 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	out := Output{Stdout: stdout.Bytes(), Stderr: stderr.Bytes()}
	var exit *exec.ExitError
	if errors.As(err, &exit) && ctx.Err() == nil {
		out.ExitCode = exit.ExitCode()
		return out, nil
	}
	if err != nil {
		if ctx.Err() != nil {
			err = ctx.Err()
		}
		return out, fmt.Errorf("running %s: %w", strings.Join(argv, " "), err)
	}
	return out, nil
}

// AgentRunner runs the diagnostics on a vantage host through its agent's
// ib-diag op (rdma.OpIBDiag): only the tools and argument shapes that op
// allows (rdma.CheckIBDiag), which are those Read and Baseline run;
// anything else is refused here, before a request is sent.
type AgentRunner struct {
	Agent agentclient.Agent
	// Host names the vantage host in errors.
	Host string
}

// RunDiag implements Runner. ctx's deadline becomes the op's timeout, so
// the host kills a tool the controller no longer waits for.
func (a AgentRunner) RunDiag(ctx context.Context, argv []string) (Output, error) {
	if len(argv) == 0 {
		return Output{}, errors.New("running a diagnostic: empty command")
	}
	args := rdma.IBDiagArgs{Tool: argv[0], Args: argv[1:]}
	if err := rdma.CheckIBDiag(args.Tool, args.Args); err != nil {
		return Output{}, fmt.Errorf("running %s on %s through its agent: %w", strings.Join(argv, " "), a.Host, err)
	}
	if d, ok := ctx.Deadline(); ok {
		s := int((time.Until(d) + time.Second - 1) / time.Second)
		args.TimeoutSeconds = min(max(s, 1), int(rdma.IBDiagMaxTimeout/time.Second))
	}
	var r rdma.IBDiagOutput
	if err := agentclient.Call(ctx, a.Agent, rdma.OpIBDiag, args, &r); err != nil {
		return Output{}, fmt.Errorf("running %s on %s: %w", strings.Join(argv, " "), a.Host, err)
	}
	out := Output{Stdout: []byte(r.Stdout), Stderr: []byte(r.Stderr), ExitCode: r.ExitCode}
	switch {
	case r.TimedOut:
		return out, fmt.Errorf("running %s on %s: timed out after %v", strings.Join(argv, " "), a.Host, time.Duration(r.Millis)*time.Millisecond)
	case r.Truncated:
		return out, fmt.Errorf("running %s on %s: its output is over the agent's %d MiB", strings.Join(argv, " "), a.Host, rdma.IBDiagStdoutCap>>20)
	}
	return out, nil
}

// runner is o.Runner, or an ExecRunner on o.Env and o.Dir.
func (o Options) runner() Runner {
	if o.Runner != nil {
		return o.Runner
	}
	return ExecRunner{Env: o.Env, Dir: o.Dir}
}

// diagExit is a tool that exited non-zero, for opensm.Runner's callers
// (ExitCode tells absence from failure).
type diagExit struct {
	argv   []string
	code   int
	stderr string
}

func (e *diagExit) Error() string {
	msg := fmt.Sprintf("running %s: exit status %d", e.argv[0], e.code)
	if e.stderr != "" {
		msg += ": " + e.stderr
	}
	return msg
}

// ExitCode is the tool's exit status.
func (e *diagExit) ExitCode() int { return e.code }
