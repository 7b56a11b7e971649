package analyze

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fabricctl/fabricctl/checks"
)

// TestReadFilesRefusesSpecialFiles: a FIFO, a device or a directory named
// on the command line is one error entry at once (issue 28: analyze blocked
// in open(2) on a FIFO and ignored SIGTERM); the captures beside it are
// analysed all the same.
func TestReadFilesRefusesSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "p")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	var rep *Report
	var err error
	go func() {
		defer close(done)
		rep, err = ReadFiles(context.Background(), strings.NewReader(""),
			[]string{fifo, "/dev/zero", dir, "../hostparse/testdata/ibstat/roce_and_ib.txt"}, Options{})
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("ReadFiles blocked on a special file")
	}
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"reading " + fifo + ": is a named pipe (FIFO), not a regular file",
		"reading /dev/zero: is a character device, not a regular file",
		"reading " + dir + ": is a directory, not a regular file",
	}
	if len(rep.Files) != 4 || rep.Files[3].Kind != KindIBStat {
		t.Fatalf("%+v", rep.Files)
	}
	for i, w := range want {
		f := rep.Files[i].Findings[0]
		if f.Status != checks.StatusError || f.Summary != w {
			t.Errorf("file %d: %s %q; want error %q", i, f.Status, f.Summary, w)
		}
	}
}

// TestReadFilesStdinGivesWay: analyze - on a pipe that never writes ends
// with the context (--timeout, SIGTERM).
func TestReadFilesStdinGivesWay(t *testing.T) {
	r, w := io.Pipe()
	defer w.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	done := make(chan error, 1)
	go func() { _, err := ReadFiles(ctx, r, []string{"-"}, Options{}); done <- err }()
	select {
	case err := <-done:
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("err = %v; want the deadline", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("ReadFiles ignored its context on stdin")
	}
}

// TestReadFilesBudget: a file over MaxFileSize is refused by its size,
// without reading it.
func TestReadFilesBudget(t *testing.T) {
	p := filepath.Join(t.TempDir(), "huge.log")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(MaxFileSize + 1); err != nil { // sparse: no disk used
		t.Fatal(err)
	}
	f.Close()
	rep, err := ReadFiles(context.Background(), nil, []string{p}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if s := rep.Files[0].Findings[0].Summary; s != "reading "+p+": is larger than the 64 MiB budget for this input" {
		t.Errorf("summary %q", s)
	}
}
