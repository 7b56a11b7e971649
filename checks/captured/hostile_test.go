package captured

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fabricctl/fabricctl/checks"
	"github.com/fabricctl/fabricctl/internal/infile"
)

// TestHostileTreeKeepsTheOthers (issue 28): a FIFO in the tree blocked the
// walk in open(2); a link to /dev/zero grew until killed; a link out of the
// tree read a file the user did not hand over; and any of them lost every
// other capture's result. Each is now one error result naming it, and the
// real captures beside them are judged as before.
func TestHostileTreeKeepsTheOthers(t *testing.T) {
	root := t.TempDir()
	tree := filepath.Join(root, "tree")
	ibstat, err := os.ReadFile("../hostparse/testdata/ibstat/roce_and_ib.txt")
	if err != nil {
		t.Fatal(err)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(tree, "gpu-01"), 0o700))
	must(os.WriteFile(filepath.Join(tree, "gpu-01", "ibstat.txt"), ibstat, 0o600))
	must(os.WriteFile(filepath.Join(root, "secret.txt"), ibstat, 0o600))
	must(syscall.Mkfifo(filepath.Join(tree, "gpu-01", "fifo.txt"), 0o600))
	must(os.Symlink("/dev/zero", filepath.Join(tree, "gpu-01", "zero.txt")))
	must(os.Symlink("../../secret.txt", filepath.Join(tree, "gpu-01", "out.txt")))
	must(os.Symlink("ibstat.txt", filepath.Join(tree, "gpu-01", "again.txt")))

	d, err := infile.OpenDir(context.Background(), tree, 1<<20)
	must(err)
	done := make(chan struct{})
	var res []checks.Result
	go func() {
		defer close(done)
		res, err = Evaluate(d, Options{})
	}()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("Evaluate blocked on the tree")
	}
	must(err)
	errs := map[string]string{}
	ibstatResults := map[string]int{}
	for _, r := range res {
		switch {
		case r.ID == "captured/file":
			errs[r.Target] = string(r.Status) + " " + r.Summary
		case strings.HasPrefix(r.ID, "captured/ibstat"):
			ibstatResults[strings.SplitN(r.Target, "/", 2)[0]]++
		}
	}
	in := func(n string) string { return filepath.Join(tree, "gpu-01", n) }
	want := map[string]string{
		"gpu-01/fifo.txt": "error " + in("fifo.txt") + ": is a named pipe (FIFO), not a regular file",
		"gpu-01/zero.txt": "error " + in("zero.txt") + ": is a symbolic link to /dev/zero, which leads outside the directory",
		"gpu-01/out.txt":  "error " + in("out.txt") + ": is a symbolic link to " + filepath.Join(root, "secret.txt") + ", which leads outside the directory",
	}
	for k, v := range want {
		if errs[k] != v {
			t.Errorf("%s: %q\n want %q", k, errs[k], v)
		}
	}
	if len(errs) != len(want) {
		t.Errorf("file results: %v", errs)
	}
	if ibstatResults["gpu-01"] == 0 {
		t.Errorf("the real ibstat capture lost its results: %+v", res)
	}
}
