package rdma

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// OpIBDiag runs one InfiniBand diagnostic (infiniband-diags) on the host
// and answers what it printed: IBDiagArgs → IBDiagOutput. It is how
// `fabricctl check --suite ib` reads the subnet from a vantage host. Only
// the tools and argument shapes of IBDiagTools run: no shell, no other
// argv.
const OpIBDiag = "ib-diag"

// Bounds of OpIBDiag.
const (
	// IBDiagDefaultTimeout bounds a tool when the request names no timeout.
	IBDiagDefaultTimeout = 60 * time.Second
	// IBDiagMaxTimeout is the longest timeout a request may ask for.
	IBDiagMaxTimeout = 10 * time.Minute
	// IBDiagStdoutCap and IBDiagStderrCap are how much of each stream is
	// kept (the beginning); beyond them the reply says Truncated.
	IBDiagStdoutCap = 16 << 20
	IBDiagStderrCap = 64 << 10
)

// IBDiagArgs are the args of OpIBDiag.
type IBDiagArgs struct {
	// Tool is one of IBDiagTools (a program name, never a path).
	Tool string `json:"tool"`
	// Args are its arguments, in one of the shapes the tool allows.
	Args []string `json:"args,omitempty"`
	// TimeoutSeconds bounds the tool (0: 60 s; at most 600).
	TimeoutSeconds int `json:"timeoutSeconds,omitempty"`
}

// IBDiagOutput is the reply of OpIBDiag: the tool ran (a tool that could
// not be started, or that the host lacks, is the op's error).
type IBDiagOutput struct {
	Tool   string   `json:"tool"`
	Args   []string `json:"args,omitempty"`
	Stdout string   `json:"stdout"`
	Stderr string   `json:"stderr,omitempty"`
	// ExitCode is the tool's exit status (-1 when it was killed).
	ExitCode int `json:"exitCode"`
	// TimedOut: the tool ran past its timeout and was killed.
	TimedOut bool `json:"timedOut,omitempty"`
	// Truncated: a stream was longer than the agent keeps.
	Truncated bool `json:"truncated,omitempty"`
	// Millis is how long the tool ran.
	Millis int64 `json:"millis"`
}

// ErrIBDiagRefused: a request names a tool or an argument shape OpIBDiag
// does not run. It wraps ErrBadArgs.
var ErrIBDiagRefused = fmt.Errorf("%w: not an allowed InfiniBand diagnostic", ErrBadArgs)

// ibShape says whether args are an allowed argument list of a tool.
type ibShape func(args []string) error

// ibTools are the allowed tools and their argument shapes: what the ib
// suite runs (action/ibcheck), nothing more.
var ibTools = map[string]ibShape{
	"sminfo":        exactly(nil),
	"iblinkinfo":    exactly(nil),
	"ibnetdiscover": exactly(nil, []string{"-p"}),
	"saquery":       exactly([]string{"SMIR"}),
	"ibqueryerrors": exactly(nil, []string{"--skip-sl"}),
	// smpquery pkeys LID [PORT] | smpquery pkeys -G GUID [PORT]
	"smpquery": func(args []string) error {
		if len(args) < 2 || args[0] != "pkeys" {
			return errors.New("want pkeys LID [PORT] or pkeys -G GUID [PORT]")
		}
		rest := args[1:]
		if rest[0] == "-G" {
			if len(rest) < 2 {
				return errors.New("-G wants a GUID")
			}
			if err := ibGUID(rest[1]); err != nil {
				return err
			}
			rest = rest[2:]
		} else {
			if err := ibLID(rest[0]); err != nil {
				return err
			}
			rest = rest[1:]
		}
		switch len(rest) {
		case 0:
			return nil
		case 1:
			return ibPort(rest[0])
		}
		return fmt.Errorf("%d arguments after the node, want at most a port", len(rest))
	},
	// dump_fts: every switch's forwarding table (the localiser's routes)
	"dump_fts": exactly(nil),
	// perfquery LID PORT | perfquery -l LID 255: a port's or every port's
	// error counters (the localiser's evidence)
	"perfquery": func(args []string) error {
		if len(args) == 3 && args[0] == "-l" {
			if args[2] != "255" {
				return errors.New("-l LID wants port 255 (all ports)")
			}
			return ibLID(args[1])
		}
		if len(args) != 2 {
			return errors.New("want LID PORT or -l LID 255")
		}
		if err := ibLID(args[0]); err != nil {
			return err
		}
		return ibPort(args[1])
	},
	// ibroute LID: a switch's linear forwarding table
	"ibroute": func(args []string) error {
		if len(args) != 1 {
			return errors.New("want one switch LID")
		}
		return ibLID(args[0])
	},
}

// IBDiagTools lists the tools OpIBDiag runs, sorted.
func IBDiagTools() []string {
	out := make([]string, 0, len(ibTools))
	for t := range ibTools {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}

// CheckIBDiag says whether OpIBDiag runs tool with args: nil, or an error
// wrapping ErrIBDiagRefused that says why not. The agent and its clients
// use the same rules.
func CheckIBDiag(tool string, args []string) error {
	shape, ok := ibTools[tool]
	if !ok {
		return fmt.Errorf("%w: tool %s (allowed: %s)", ErrIBDiagRefused, quoteCut(tool), strings.Join(IBDiagTools(), ", "))
	}
	for _, a := range args {
		if len(a) > 64 {
			return fmt.Errorf("%w: %s argument %s is too long", ErrIBDiagRefused, tool, quoteCut(a))
		}
	}
	if err := shape(args); err != nil {
		q := make([]string, len(args))
		for i, a := range args {
			q[i] = quoteCut(a)
		}
		return fmt.Errorf("%w: %s [%s]: %v", ErrIBDiagRefused, tool, strings.Join(q, " "), err)
	}
	return nil
}

// exactly allows the listed argument lists only.
func exactly(lists ...[]string) ibShape {
	return func(args []string) error {
		for _, l := range lists {
			if slices.Equal(l, args) {
				return nil
			}
		}
		var want []string
		for _, l := range lists {
			if len(l) == 0 {
				want = append(want, "no arguments")
			} else {
				want = append(want, strings.Join(l, " "))
			}
		}
		return fmt.Errorf("want %s", strings.Join(want, " or "))
	}
}

// ibLID is a unicast LID, decimal (1..49151).
func ibLID(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > 0xBFFF || s != strconv.Itoa(n) {
		return fmt.Errorf("LID %s is not a unicast LID 1..49151 in decimal", quoteCut(s))
	}
	return nil
}

// ibPort is a port number, decimal (0..254; 0 is a switch's own port).
func ibPort(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || n > 254 || s != strconv.Itoa(n) {
		return fmt.Errorf("port %s is not a port number 0..254 in decimal", quoteCut(s))
	}
	return nil
}

// ibGUID is 0x and 1..16 hex digits.
func ibGUID(s string) error {
	h, ok := strings.CutPrefix(s, "0x")
	if !ok || len(h) == 0 || len(h) > 16 {
		return fmt.Errorf("GUID %s is not 0x and up to 16 hex digits", quoteCut(s))
	}
	if _, err := strconv.ParseUint(h, 16, 64); err != nil {
		return fmt.Errorf("GUID %s is not 0x and up to 16 hex digits", quoteCut(s))
	}
	return nil
}

// quoteCut quotes s for a message, cut to 32 bytes.
func quoteCut(s string) string {
	if len(s) > 32 {
		return strconv.Quote(s[:32]) + "…"
	}
	return strconv.Quote(s)
}

// RunIBDiag runs one allowed InfiniBand diagnostic (OpIBDiag): argv
// directly (no shell), LC_ALL=C plus Agent.IBEnv, in Agent.IBDir, bounded
// by the request's timeout and the output caps. A refused request wraps
// ErrIBDiagRefused; a tool the host lacks is an error naming it.
func (a *Agent) RunIBDiag(ctx context.Context, args IBDiagArgs) (IBDiagOutput, error) {
	if err := CheckIBDiag(args.Tool, args.Args); err != nil {
		return IBDiagOutput{}, err
	}
	timeout := IBDiagDefaultTimeout
	switch {
	case args.TimeoutSeconds < 0 || time.Duration(args.TimeoutSeconds)*time.Second > IBDiagMaxTimeout:
		return IBDiagOutput{}, fmt.Errorf("%w: timeoutSeconds %d is outside 0..%d", ErrBadArgs, args.TimeoutSeconds, int(IBDiagMaxTimeout/time.Second))
	case args.TimeoutSeconds > 0:
		timeout = time.Duration(args.TimeoutSeconds) * time.Second
	}
	look := a.LookPath
	if look == nil {
		look = exec.LookPath
	}
	path, err := look(args.Tool)
	if err != nil {
		return IBDiagOutput{}, fmt.Errorf("finding %s (infiniband-diags): %w", args.Tool, err)
	}
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, args.Args...)
	cmd.Env = append(append(os.Environ(), "LC_ALL=C"), a.IBEnv...)
	cmd.Dir = a.IBDir
	cmd.WaitDelay = 5 * time.Second
	stdout, stderr := &headBuffer{max: IBDiagStdoutCap}, &headBuffer{max: IBDiagStderrCap}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	t0 := time.Now()
	err = cmd.Run()
	out := IBDiagOutput{Tool: args.Tool, Args: args.Args, Stdout: string(stdout.b), Stderr: string(stderr.b),
		Truncated: stdout.cut || stderr.cut, Millis: time.Since(t0).Milliseconds()}
	if err != nil && parent.Err() != nil {
		return IBDiagOutput{}, fmt.Errorf("running %s: %w", args.Tool, parent.Err())
	}
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit):
		out.ExitCode = exit.ExitCode()
		out.TimedOut = ctx.Err() != nil
	default:
		return IBDiagOutput{}, fmt.Errorf("running %s: %w", args.Tool, err)
	}
	a.log().Debug("ib-diag", "tool", args.Tool, "args", args.Args, "exit", out.ExitCode, "ms", out.Millis)
	return out, nil
}

// headBuffer keeps the first max bytes written to it.
type headBuffer struct {
	b   []byte
	max int
	cut bool
}

func (h *headBuffer) Write(p []byte) (int, error) {
	if room := h.max - len(h.b); room < len(p) {
		h.b = append(h.b, p[:max(room, 0)]...)
		h.cut = true
		return len(p), nil
	}
	h.b = append(h.b, p...)
	return len(p), nil
}
