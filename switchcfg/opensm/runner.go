package opensm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"strconv"
	"strings"
	"time"
)

// Runner runs one command on the subnet manager's host: argv[0] with the
// remaining arguments, stdin fed from stdin, and returns its stdout.
//
// The argv built here is fixed: no element is ever meant for a shell, and
// file paths are separate elements behind "--". An implementation over SSH,
// where the remote side runs a command line through the login shell, must
// therefore quote every element for that shell: wrap it in single quotes
// and write each embedded quote as quote, backslash, quote, quote.
//
// When the command ran and exited non-zero, the error must implement
// ExitCode() int (as *exec.ExitError does; wrap *ssh.ExitError's
// ExitStatus()), so absence can be told from failure.
type Runner interface {
	Run(ctx context.Context, argv []string, stdin []byte) (stdout []byte, err error)
}

// ExecRunner runs commands on this machine with os/exec, for a subnet manager
// on the local host, the InfiniBand lab and tests. Stderr is added to the
// error.
type ExecRunner struct {
	// Env is added to this process's environment (KEY=VALUE).
	Env []string
	// Dir is the working directory ("" for this process's).
	Dir string
}

// Run implements Runner.
func (e ExecRunner) Run(ctx context.Context, argv []string, stdin []byte) ([]byte, error) {
	if len(argv) == 0 {
		return nil, errors.New("running: empty command")
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	if len(e.Env) > 0 {
		cmd.Env = append(os.Environ(), e.Env...)
	}
	cmd.Dir = e.Dir
	cmd.WaitDelay = 5 * time.Second
	cmd.Stdin = bytes.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.Bytes(), &runError{argv: argv, stderr: strings.TrimSpace(stderr.String()), err: err}
	}
	return stdout.Bytes(), nil
}

type runError struct {
	argv   []string
	stderr string
	err    error
}

func (e *runError) Error() string {
	msg := fmt.Sprintf("running %s: %v", e.argv[0], e.err)
	if e.stderr != "" {
		msg += ": " + e.stderr
	}
	return msg
}

func (e *runError) Unwrap() error { return e.err }

// exitCode returns the exit status carried by err, or -1.
func exitCode(err error) int {
	var ec interface{ ExitCode() int }
	if errors.As(err, &ec) {
		return ec.ExitCode()
	}
	return -1
}

// CommandRemote is a Remote over a Runner using only coreutils, procps and
// /proc: cat, test, cp -p, mktemp, chmod, tee, mv, rm, pidof, kill.
type CommandRemote struct {
	R Runner
}

// NewRemote returns a Remote that runs fixed commands through r.
func NewRemote(r Runner) *CommandRemote { return &CommandRemote{R: r} }

var _ Remote = (*CommandRemote)(nil)

// checkPath accepts absolute, clean paths without control characters, so
// that no argument can be mistaken for an option or smuggle a line.
func checkPath(p string) error {
	if !strings.HasPrefix(p, "/") || path.Clean(p) != p || p == "/" {
		return fmt.Errorf("path %q is not an absolute, clean file path", p)
	}
	for _, r := range p {
		if r < 0x20 || r == 0x7f {
			return fmt.Errorf("path %q contains a control character", p)
		}
	}
	return nil
}

func (c *CommandRemote) exists(ctx context.Context, p string) (bool, error) {
	_, err := c.R.Run(ctx, []string{"test", "-e", p}, nil)
	switch {
	case err == nil:
		return true, nil
	case exitCode(err) == 1:
		return false, nil
	}
	return false, err
}

// ReadFile implements Remote with cat.
func (c *CommandRemote) ReadFile(ctx context.Context, p string) ([]byte, error) {
	if err := checkPath(p); err != nil {
		return nil, err
	}
	out, err := c.R.Run(ctx, []string{"cat", "--", p}, nil)
	if err == nil {
		return out, nil
	}
	if exitCode(err) > 0 {
		if ok, xerr := c.exists(ctx, p); xerr == nil && !ok {
			return nil, fmt.Errorf("reading %s: %w", p, fs.ErrNotExist)
		}
	}
	return nil, fmt.Errorf("reading %s: %w", p, err)
}

// WriteFileAtomic implements Remote: cp -p to the backup, mktemp next to the
// file, cp -p the old file over the temp file so it keeps mode and owner
// (chmod 0644 when there is no old file), tee the data into it, mv it over
// the file. The temp file is removed when a step fails.
func (c *CommandRemote) WriteFileAtomic(ctx context.Context, p string, data []byte, backupPath string) (err error) {
	if err := checkPath(p); err != nil {
		return err
	}
	if backupPath != "" {
		if err := checkPath(backupPath); err != nil {
			return err
		}
	}
	existed, err := c.exists(ctx, p)
	if err != nil {
		return fmt.Errorf("checking %s: %w", p, err)
	}
	if existed && backupPath != "" {
		if _, err := c.R.Run(ctx, []string{"cp", "-p", "--", p, backupPath}, nil); err != nil {
			return fmt.Errorf("backing up %s: %w", p, err)
		}
	}
	out, err := c.R.Run(ctx, []string{"mktemp", p + ".fabricctl-XXXXXX"}, nil)
	if err != nil {
		return fmt.Errorf("creating a temporary file next to %s: %w", p, err)
	}
	tmp := strings.TrimSuffix(string(out), "\n")
	if checkPath(tmp) != nil || path.Dir(tmp) != path.Dir(p) {
		return fmt.Errorf("creating a temporary file next to %s: mktemp printed %q", p, tmp)
	}
	defer func() {
		if err != nil {
			cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), remoteCleanupTimeout)
			defer cancel()
			_, _ = c.R.Run(cctx, []string{"rm", "-f", "--", tmp}, nil)
		}
	}()
	if existed {
		if _, err := c.R.Run(ctx, []string{"cp", "-p", "--", p, tmp}, nil); err != nil {
			return fmt.Errorf("copying the attributes of %s: %w", p, err)
		}
	} else if _, err := c.R.Run(ctx, []string{"chmod", "0644", "--", tmp}, nil); err != nil {
		return fmt.Errorf("setting the mode of %s: %w", tmp, err)
	}
	if _, err := c.R.Run(ctx, []string{"tee", "--", tmp}, data); err != nil {
		return fmt.Errorf("writing %s: %w", tmp, err)
	}
	if _, err := c.R.Run(ctx, []string{"mv", "-f", "--", tmp, p}, nil); err != nil {
		return fmt.Errorf("moving %s over %s: %w", tmp, p, err)
	}
	return nil
}

// Remove implements Remote with rm -f.
func (c *CommandRemote) Remove(ctx context.Context, p string) error {
	if err := checkPath(p); err != nil {
		return err
	}
	if _, err := c.R.Run(ctx, []string{"rm", "-f", "--", p}, nil); err != nil {
		return fmt.Errorf("removing %s: %w", p, err)
	}
	return nil
}

// Signal implements Remote with kill -s SIG PID for every pid of the process.
func (c *CommandRemote) Signal(ctx context.Context, proc Process, sig Signal) error {
	if sig != SIGHUP && sig != SignalCheck {
		return fmt.Errorf("signalling: unsupported signal %q", sig)
	}
	pids, err := c.pids(ctx, proc)
	if err != nil {
		return err
	}
	for _, pid := range pids {
		if _, err := c.R.Run(ctx, []string{"kill", "-s", string(sig), strconv.Itoa(pid)}, nil); err != nil {
			if exitCode(err) > 0 {
				return fmt.Errorf("signalling %s (pid %d): %w: %w", proc.Name, pid, ErrNotRunning, err)
			}
			return fmt.Errorf("signalling %s (pid %d): %w", proc.Name, pid, err)
		}
		if sig == SignalCheck {
			// kill -0 succeeds on a zombie, which /proc/PID/stat shows as Z.
			stat, err := c.R.Run(ctx, []string{"cat", "--", "/proc/" + strconv.Itoa(pid) + "/stat"}, nil)
			if err != nil || procState(string(stat)) == "Z" || procState(string(stat)) == "X" {
				return fmt.Errorf("checking %s (pid %d): %w (exited)", proc.Name, pid, ErrNotRunning)
			}
		}
	}
	return nil
}

// procState returns the state letter of a /proc/PID/stat line, which follows
// the parenthesised command name (itself free to contain ") ").
func procState(stat string) string {
	i := strings.LastIndex(stat, ")")
	if i < 0 {
		return ""
	}
	f := strings.Fields(stat[i+1:])
	if len(f) == 0 {
		return ""
	}
	return f[0]
}

// pids finds the process: the pidfile's pid when it names a live process
// whose /proc/PID/comm is proc.Name (a stale pidfile may name a reused pid),
// otherwise pidof proc.Name.
func (c *CommandRemote) pids(ctx context.Context, proc Process) ([]int, error) {
	if proc.PIDFile != "" && checkPath(proc.PIDFile) == nil {
		if out, err := c.R.Run(ctx, []string{"cat", "--", proc.PIDFile}, nil); err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(out))); err == nil && pid > 1 {
				comm, err := c.R.Run(ctx, []string{"cat", "--", "/proc/" + strconv.Itoa(pid) + "/comm"}, nil)
				if err == nil && (proc.Name == "" || strings.TrimSpace(string(comm)) == commName(proc.Name)) {
					return []int{pid}, nil
				}
			}
		}
	}
	if proc.Name == "" || strings.ContainsAny(proc.Name, "/\x00\n") {
		return nil, fmt.Errorf("finding the subnet manager: %w (no usable pidfile and no process name)", ErrNotRunning)
	}
	out, err := c.R.Run(ctx, []string{"pidof", proc.Name}, nil)
	if err != nil {
		if exitCode(err) == 1 {
			return nil, fmt.Errorf("finding %s: %w", proc.Name, ErrNotRunning)
		}
		return nil, fmt.Errorf("finding %s: %w", proc.Name, err)
	}
	var pids []int
	for _, f := range strings.Fields(string(out)) {
		pid, err := strconv.Atoi(f)
		if err != nil || pid <= 1 {
			return nil, fmt.Errorf("finding %s: pidof printed %q", proc.Name, out)
		}
		pids = append(pids, pid)
	}
	if len(pids) == 0 {
		return nil, fmt.Errorf("finding %s: %w", proc.Name, ErrNotRunning)
	}
	return pids, nil
}

// remoteCleanupTimeout bounds the removal of a temporary file after a failure.
const remoteCleanupTimeout = 30 * time.Second

// commName is name as the kernel keeps it in /proc/PID/comm (15 bytes).
func commName(name string) string {
	if len(name) > 15 {
		return name[:15]
	}
	return name
}
