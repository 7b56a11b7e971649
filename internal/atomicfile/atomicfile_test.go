package atomicfile

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func TestWriteFileNewAndReplace(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "h1.json")
	if err := WriteFile(path, []byte("first\n"), 0o640); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(path, []byte("second, longer\n"), 0o640); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil || string(got) != "second, longer\n" {
		t.Fatalf("content %q, %v", got, err)
	}
	fi, _ := os.Stat(path)
	if fi.Mode().Perm()&^0o640 != 0 {
		t.Errorf("mode %v, want at most 0640", fi.Mode())
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("directory holds %d entries, want only the file (no temporary left)", len(entries))
	}
}

func TestReplaceFallback(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x")
	if err := replace(path, []byte("a"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := replace(path, []byte("b"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); string(got) != "b" {
		t.Fatalf("got %q", got)
	}
}

func TestWriteFileMissingDirectory(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nope", "h1.json")
	err := WriteFile(path, []byte("x"), 0o644)
	if err == nil || !strings.Contains(err.Error(), path) || strings.Count(err.Error(), path) != 1 {
		t.Fatalf("error %v should name %s once", err, path)
	}
}

// A reader racing the writers sees the old or the new content, whole.
func TestWriteFileReadersSeeWholeContent(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	a, b := bytes.Repeat([]byte("a"), 1<<20), bytes.Repeat([]byte("b"), 1<<20)
	if err := WriteFile(path, a, 0o644); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			got, err := os.ReadFile(path)
			if err != nil || !(bytes.Equal(got, a) || bytes.Equal(got, b)) {
				t.Errorf("reader saw %d bytes (err %v)", len(got), err)
				return
			}
		}
	}()
	for i := 0; i < 20; i++ {
		data := a
		if i%2 == 0 {
			data = b
		}
		if err := WriteFile(path, data, 0o644); err != nil {
			t.Error(err)
		}
	}
	close(stop)
	wg.Wait()
}
