package ctxio

import (
	"context"
	"errors"
	"io"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestReaderGivesWayToCancel(t *testing.T) {
	pr, pw := io.Pipe() // nothing is ever written: Read blocks
	defer pw.Close()
	ctx, cancel := context.WithCancel(t.Context())
	r := NewReader(ctx, pr)
	done := make(chan error, 1)
	go func() {
		_, err := r.Read(make([]byte, 8))
		done <- err
	}()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Read after cancel: %v", err)
	}
}

func TestReaderReadsWhole(t *testing.T) {
	r := NewReader(t.Context(), strings.NewReader("hello, world"))
	b, err := io.ReadAll(io.LimitReader(r, 100))
	if err != nil || string(b) != "hello, world" {
		t.Fatalf("%q %v", b, err)
	}
}

func TestOpenFIFOGivesWayToCancel(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := Open(ctx, fifo); !errors.Is(err, context.Canceled) {
		t.Fatalf("Open of a FIFO without writer after cancel: %v", err)
	}
}
