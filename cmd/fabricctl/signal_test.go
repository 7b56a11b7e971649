package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// An interrupted render writes nothing and leaves no staging directory.
func TestRenderInterruptedWritesNothing(t *testing.T) {
	parent := t.TempDir()
	out := filepath.Join(parent, "out")
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // as the first Ctrl-C does
	var stdout, stderr bytes.Buffer
	g := &globals{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr}
	code := execute(ctx, g, []string{"render", "-f", labFabric, "--out", out})
	if code != 1 || !strings.Contains(stderr.String(), "context canceled; nothing was written") {
		t.Errorf("exit %d, stderr %q; want 1 and the interruption said", code, stderr.String())
	}
	if entries, _ := os.ReadDir(parent); len(entries) != 0 {
		t.Errorf("an interrupted render left %v", entries)
	}
}

// The first SIGTERM stops a command that waits for input which never
// comes: it exits by itself (not killed), saying so (issue 13: a FIFO as -f
// hung and ignored the first SIGTERM).
func TestFirstSigtermStopsWaitingCommands(t *testing.T) {
	bin := fabricctlBinary(t)
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	// A FIFO as the fabric is refused at once, no signal needed.
	for _, cmd := range []string{"validate", "render", "plan"} {
		r := runBinary(t, bin, nil, cmd, "-f", fifo)
		if r.code != 1 || !strings.Contains(r.stderr, fifo+": is a named pipe (FIFO), not a regular file") {
			t.Errorf("%s -f FIFO: exit %d, stderr %q", cmd, r.code, r.stderr)
		}
	}
	for _, args := range [][]string{
		{"agent"},                // a request on stdin that never comes
		{"nccl", "analyze", "-"}, // a log on stdin that never ends
		{"analyze", "-"},         // a capture on stdin that never ends
		{"switch", "parse", "--platform", "sonic", "-"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			cmd := exec.Command(bin, append([]string{"-v"}, args...)...)
			stdin, _ := cmd.StdinPipe() // open, never written
			defer stdin.Close()
			stderr, _ := cmd.StderrPipe()
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// Wait for the event: the command has started, its signal
			// handler installed.
			sc := bufio.NewScanner(stderr)
			var log strings.Builder
			for sc.Scan() {
				log.WriteString(sc.Text() + "\n")
				if strings.Contains(sc.Text(), "msg=starting") {
					break
				}
			}
			cmd.Process.Signal(syscall.SIGTERM)
			rest := make(chan string, 1)
			go func() { b, _ := io.ReadAll(stderr); rest <- string(b) }()
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			select {
			case <-exited:
			case <-time.After(30 * time.Second): // a hang guard, not a measure
				cmd.Process.Kill()
				t.Fatalf("still running 30 s after SIGTERM:\n%s", log.String())
			}
			log.WriteString(<-rest)
			st := cmd.ProcessState.Sys().(syscall.WaitStatus)
			if st.Signaled() || !strings.Contains(log.String(), "interrupted; finishing cleanly") {
				t.Errorf("want a clean exit after the first SIGTERM; got %v:\n%s", cmd.ProcessState, log.String())
			}
		})
	}
}
