package hostcfg

import (
	"context"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestReadDesiredRefusesSpecialFiles: host show --desired on a FIFO blocked
// in open(2) and on /dev/zero grew until killed (issue 28); both are now
// refused at once, naming the file.
func TestReadDesiredRefusesSpecialFiles(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "p")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]string{
		fifo:        "reading desired state: " + fifo + ": is a named pipe (FIFO), not a regular file",
		"/dev/zero": "reading desired state: /dev/zero: is a character device, not a regular file",
	} {
		done := make(chan error, 1)
		go func() { _, err := ReadDesired(context.Background(), p); done <- err }()
		select {
		case err := <-done:
			if err == nil || err.Error() != want {
				t.Errorf("ReadDesired(%s) = %v; want %q", p, err, want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("ReadDesired(%s) blocked", p)
		}
	}
	if _, err := ReadDesired(context.Background(), "testdata/desired"); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("a directory: %v", err)
	}
}
