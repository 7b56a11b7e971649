package infile

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// within fails the test if fn does not return within a second: the
// refusals must never block.
func within(t *testing.T, what string, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { fn(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatalf("%s blocked", what)
	}
}

func specials(t *testing.T) (dir string, paths map[string]string) {
	dir = t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return dir, map[string]string{
		"a named pipe (FIFO)": fifo,
		"a socket":            sock,
		"a character device":  "/dev/zero",
		"a directory":         dir,
	}
}

func TestReadFileRefusesSpecialFilesAtOnce(t *testing.T) {
	_, paths := specials(t)
	for want, p := range paths {
		within(t, p, func() {
			_, err := ReadFile(context.Background(), p, MaxCapture)
			if !errors.Is(err, ErrNotRegular) || !strings.HasPrefix(err.Error(), p+": is "+want+", not a regular file") {
				t.Errorf("ReadFile(%s) = %v; want %q refused as not regular", p, err, want)
			}
			if _, err := Open(context.Background(), p, MaxCapture); !errors.Is(err, ErrNotRegular) {
				t.Errorf("Open(%s) = %v", p, err)
			}
		})
	}
}

func TestReadFileBudget(t *testing.T) {
	p := filepath.Join(t.TempDir(), "big")
	if err := os.WriteFile(p, make([]byte, 1000), 0o600); err != nil {
		t.Fatal(err)
	}
	if b, err := ReadFile(context.Background(), p, 1000); err != nil || len(b) != 1000 {
		t.Fatalf("at the budget: %d bytes, %v", len(b), err)
	}
	_, err := ReadFile(context.Background(), p, 999)
	if !errors.Is(err, ErrTooLarge) || err.Error() != p+": is larger than the 999-byte budget for this input" {
		t.Errorf("over the budget: %v", err)
	}
	// A file whose size the kernel does not tell (0 in stat) is held to the
	// budget while it is read.
	_, err = ReadFile(context.Background(), "/proc/self/maps", 16)
	if !errors.Is(err, ErrTooLarge) {
		t.Errorf("/proc/self/maps within 16 bytes: %v", err)
	}
	// Streaming: reads fail once past the budget.
	f, err := Open(context.Background(), p, 500)
	if err == nil {
		_, err = io.ReadAll(f)
		f.Close()
	}
	if !errors.Is(err, ErrTooLarge) {
		t.Errorf("streaming past the budget: %v", err)
	}
}

func TestReadFileMissing(t *testing.T) {
	_, err := ReadFile(context.Background(), "no/such/file", 10)
	if !errors.Is(err, fs.ErrNotExist) || err.Error() != "no/such/file: no such file or directory" {
		t.Errorf("missing: %v", err)
	}
}

func TestReadAllGivesWayToContext(t *testing.T) {
	r, w := io.Pipe() // a writer that never writes: stdin of a stalled pipeline
	defer w.Close()
	go func() { time.Sleep(100 * time.Millisecond); w.Write([]byte("late")) }()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	within(t, "stdin", func() {
		if _, err := ReadAll(ctx, "stdin", r, MaxLog); !errors.Is(err, context.DeadlineExceeded) {
			// the read that blocked returns "late"; the next sees the deadline
			t.Errorf("ReadAll on a silent pipe: %v", err)
		}
	})
	big := strings.NewReader(strings.Repeat("x", 100))
	if _, err := ReadArg(context.Background(), big, "-", 10); !errors.Is(err, ErrTooLarge) || !strings.HasPrefix(err.Error(), "stdin: ") {
		t.Errorf("stdin over the budget: %v", err)
	}
}

func TestDirHoldsLinksInside(t *testing.T) {
	dir, paths := specials(t)
	root := filepath.Join(dir, "tree")
	mk := func(p, content string) {
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	mk(filepath.Join(root, "h1", "ibstat.txt"), "ok")
	mk(filepath.Join(dir, "outside.txt"), "secret")
	for name, target := range map[string]string{
		"h1/zero":    "/dev/zero",
		"h1/out":     "../../outside.txt",
		"h1/in":      "ibstat.txt",
		"h1/fifo":    paths["a named pipe (FIFO)"],
		"h1/etc":     "/etc",
		"h1/dangles": "nowhere",
	} {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(root, "h1", "pipe"), 0o600); err != nil {
		t.Fatal(err)
	}
	d, err := OpenDir(context.Background(), root, 1<<10)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	within(t, "walking the tree", func() {
		err = fs.WalkDir(d, ".", func(p string, e fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if e.IsDir() {
				return nil
			}
			b, err := d.ReadFile(p)
			if err != nil {
				got[p] = err.Error()
			} else {
				got[p] = string(b)
			}
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	p := func(n string) string { return filepath.Join(root, n) }
	want := map[string]string{
		"h1/ibstat.txt": "ok",
		"h1/in":         "ok",
		"h1/zero":       p("h1/zero") + ": is a symbolic link to /dev/zero, which leads outside the directory",
		"h1/out":        p("h1/out") + ": is a symbolic link to " + filepath.Join(dir, "outside.txt") + ", which leads outside the directory",
		"h1/fifo":       p("h1/fifo") + ": is a symbolic link to " + paths["a named pipe (FIFO)"] + ", which leads outside the directory",
		"h1/etc":        p("h1/etc") + ": is a symbolic link to /etc, which leads outside the directory",
		"h1/dangles":    p("h1/dangles") + ": no such file or directory",
		"h1/pipe":       p("h1/pipe") + ": is a named pipe (FIFO), not a regular file",
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: got %q\n want %q", k, got[k], v)
		}
	}
	if len(got) != len(want) {
		t.Errorf("walked %d files, want %d: %v", len(got), len(want), got)
	}
	if f, err := d.Open("h1/zero"); !errors.Is(err, ErrOutside) {
		t.Errorf("Open of a link out: %v %v", f, err)
	}
	if _, err := d.Open("../x"); err == nil {
		t.Error("Open(../x) accepted")
	}
}

func TestOpenDirSaysWhatIsWrong(t *testing.T) {
	for root, want := range map[string]string{
		"MISSING":   "MISSING: no such directory",
		"/dev/null": "/dev/null: not a directory",
	} {
		if _, err := OpenDir(context.Background(), root, 10); err == nil || err.Error() != want {
			t.Errorf("OpenDir(%s) = %v; want %q", root, err, want)
		}
	}
}
