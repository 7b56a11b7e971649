package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestSpecialFilesRefusedEverywhere (issue 28): every command that reads a
// file the user names refuses a FIFO and a device at once, naming it, with
// exit 1 — analyze, nccl analyze, switch parse, host show/plan --desired,
// check --from-dir and drift --from-dir blocked in open(2) or grew until
// killed. A guard kills a run still going after 30 s (a hang, not a
// measure).
func TestSpecialFilesRefusedEverywhere(t *testing.T) {
	bin := fabricctlBinary(t)
	dir := t.TempDir()
	fifo := filepath.Join(dir, "p")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	tree := filepath.Join(dir, "tree")
	if err := os.MkdirAll(filepath.Join(tree, "gpu-01"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(tree, "gpu-01", "ibstat.txt"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", filepath.Join(tree, "gpu-01", "zero.txt")); err != nil {
		t.Fatal(err)
	}
	notRegular := func(p, what string) string { return p + ": is " + what + ", not a regular file" }
	for _, c := range []struct {
		args []string
		code int
		want string // in stdout or stderr
	}{
		{[]string{"analyze", fifo}, 1, notRegular(fifo, "a named pipe (FIFO)")},
		{[]string{"analyze", "/dev/zero"}, 1, notRegular("/dev/zero", "a character device")},
		{[]string{"nccl", "analyze", fifo}, 1, "analysing " + fifo + ": reading: is a named pipe (FIFO), not a regular file"},
		{[]string{"nccl", "analyze", "--timeout", "2s", "/dev/zero"}, 1, "analysing /dev/zero: reading: is a character device, not a regular file"},
		{[]string{"switch", "parse", "--platform", "sonic", fifo}, 1, notRegular(fifo, "a named pipe (FIFO)")},
		{[]string{"switch", "parse", "--platform", "arista-eos", "/dev/zero"}, 1, notRegular("/dev/zero", "a character device")},
		{[]string{"switch", "parse", "--platform", "opensm", fifo}, 1, notRegular(fifo, "a named pipe (FIFO)")},
		{[]string{"host", "show", "--desired", fifo}, 1, notRegular(fifo, "a named pipe (FIFO)")},
		{[]string{"host", "plan", "--desired", "/dev/zero"}, 1, notRegular("/dev/zero", "a character device")},
		{[]string{"check", "--from-dir", tree, "-o", "json"}, 1, notRegular(filepath.Join(tree, "gpu-01", "ibstat.txt"), "a named pipe (FIFO)")},
		{[]string{"check", "--from-dir", tree, "-o", "json"}, 1, filepath.Join(tree, "gpu-01", "zero.txt") + ": is a symbolic link to /dev/zero, which leads outside the directory"},
		{[]string{"check", "--from-dir", fifo}, 1, "--from-dir " + fifo + ": not a directory"},
		{[]string{"drift", "-f", labFabric, "--from-dir", filepath.Join(dir, "MISSING")}, 1, "--from-dir " + filepath.Join(dir, "MISSING") + ": no such directory"},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, bin, c.args...)
			var out, errb strings.Builder
			cmd.Stdout, cmd.Stderr = &out, &errb
			err := cmd.Run()
			if ctx.Err() != nil {
				t.Fatalf("still running after 30 s: %s", errb.String())
			}
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			}
			if code != c.code || !strings.Contains(out.String()+errb.String(), c.want) {
				t.Errorf("exit %d; want %d and %q in:\n%s%s", code, c.code, c.want, out.String(), errb.String())
			}
		})
	}
}

// TestTimeoutWhileReading (issue 28: nccl analyze --timeout 2s ignored
// the timeout): a command reading stdin that never ends stops at
// --timeout with exit 1, saying so.
func TestTimeoutWhileReading(t *testing.T) {
	bin := fabricctlBinary(t)
	for _, args := range [][]string{
		{"nccl", "analyze", "-"},
		{"analyze", "-"},
		{"switch", "parse", "--platform", "sonic", "-"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, bin, append([]string{"--timeout", "1s"}, args...)...)
			stdin, err := cmd.StdinPipe() // open, never written
			if err != nil {
				t.Fatal(err)
			}
			defer stdin.Close()
			var errb strings.Builder
			cmd.Stderr = &errb
			err = cmd.Run()
			if ctx.Err() != nil {
				t.Fatalf("--timeout 1s ignored: still running after 30 s")
			}
			if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !strings.Contains(errb.String(), "deadline exceeded") {
				t.Errorf("%v; want exit 1 and the deadline said: %s", err, errb.String())
			}
		})
	}
}

// TestErrorsPrintedEscaped (issue 28): a file name holding terminal escapes
// (retitle, clear screen) and a NUL reaches stderr escaped, never raw.
func TestErrorsPrintedEscaped(t *testing.T) {
	name := filepath.Join(t.TempDir(), "\x1b]0;owned\x07\x1b[2J")
	code, out, errs := runCLI(t, "switch", "parse", "--platform", "sonic", name)
	if code != 1 || strings.ContainsAny(out+errs, "\x1b\x07") || !strings.Contains(errs, `\x1b]0;owned\x07\x1b[2J: no such file or directory`) {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
}
