package atomicfile

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func treeFiles(n int) map[string][]byte {
	fs := map[string][]byte{"switches/leaf-1.nvue": []byte("nv set\n")}
	for i := 0; i < n; i++ {
		fs[fmt.Sprintf("hosts/h%03d.json", i)] = []byte(fmt.Sprintf("{%d}\n", i))
	}
	return fs
}

func checkTree(t *testing.T, dir string, files map[string][]byte) {
	t.Helper()
	for p, data := range files {
		got, err := os.ReadFile(filepath.Join(dir, p))
		if err != nil || string(got) != string(data) {
			t.Fatalf("%s: %q, %v", p, got, err)
		}
	}
}

// noStaging fails when a temporary tree is left beside dir.
func noStaging(t *testing.T, dir string) {
	t.Helper()
	entries, _ := os.ReadDir(filepath.Dir(dir))
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("temporary %s left behind", e.Name())
		}
	}
}

func TestWriteTreeNewDirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "deeper", "out")
	files := treeFiles(50)
	if err := WriteTree(dir, files, 0o644); err != nil {
		t.Fatal(err)
	}
	checkTree(t, dir, files)
	noStaging(t, dir)
	if fi, _ := os.Stat(dir); fi.Mode().Perm() != 0o755 {
		t.Errorf("directory mode %v, want 0755", fi.Mode().Perm())
	}
}

func TestWriteTreeEmptyDirectoryKeepsItsMode(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	os.Chmod(dir, 0o700)
	files := treeFiles(3)
	if err := WriteTree(dir, files, 0o644); err != nil {
		t.Fatal(err)
	}
	checkTree(t, dir, files)
	noStaging(t, dir)
	if fi, _ := os.Stat(dir); fi.Mode().Perm() != 0o700 {
		t.Errorf("directory mode %v, want the 0700 it had", fi.Mode().Perm())
	}
}

func TestWriteTreeExistingDirectoryReplacesFilesAndKeepsOthers(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "README"), []byte("mine"), 0o644)
	if err := WriteTree(dir, treeFiles(3), 0o644); err != nil {
		t.Fatal(err)
	}
	files := treeFiles(3)
	files["hosts/h000.json"] = []byte("changed\n")
	if err := WriteTree(dir, files, 0o644); err != nil {
		t.Fatal(err)
	}
	checkTree(t, dir, files)
	if got, _ := os.ReadFile(filepath.Join(dir, "README")); string(got) != "mine" {
		t.Errorf("a file fabricctl did not write changed: %q", got)
	}
}

func TestWriteTreeRefusesPathsOutsideAndLeavesNothing(t *testing.T) {
	for _, p := range []string{"../x", "/etc/x", "a/../../x", ""} {
		dir := filepath.Join(t.TempDir(), "out")
		err := WriteTree(dir, map[string][]byte{"ok": nil, p: nil}, 0o644)
		if err == nil {
			t.Errorf("%q: no error", p)
		}
		if _, serr := os.Stat(dir); serr == nil {
			t.Errorf("%q: %s was created", p, dir)
		}
		noStaging(t, dir)
	}
}

func TestWriteTreeFailureLeavesNothing(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	// "a" is a file, so "a/b" cannot be created.
	err := WriteTree(dir, map[string][]byte{"a": []byte("x"), "a/b": []byte("y")}, 0o644)
	if err == nil {
		t.Fatal("no error")
	}
	if _, serr := os.Stat(dir); serr == nil {
		t.Errorf("%s exists after a failed write", dir)
	}
	noStaging(t, dir)
}

func TestTreeShowsNothingBeforeCommitAndAbortLeavesNoTrace(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	tr, err := NewTree(dir, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if err := tr.Write("hosts/h1.json", []byte("{}")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); err == nil {
		t.Error("the directory shows before Commit")
	}
	tr.Abort()
	if _, err := os.Stat(dir); err == nil {
		t.Error("the directory exists after Abort")
	}
	noStaging(t, dir)
}

func TestTreeAddFromManyGoroutines(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	tr, err := NewTree(dir, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	files := treeFiles(300)
	var wg sync.WaitGroup
	for p, data := range files {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := tr.Add(p, data); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if err := tr.Commit(); err != nil {
		t.Fatal(err)
	}
	checkTree(t, dir, files)
	noStaging(t, dir)
}

func TestTreeAddReportsTheFirstFailure(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	tr, err := NewTree(dir, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	tr.Add("a", []byte("x"))
	tr.Add("a/b", []byte("y")) // "a" is a file: this write fails
	var later error
	for i := 0; i < 1000 && later == nil; i++ {
		later = tr.Add(fmt.Sprintf("c/%d", i), nil)
	}
	if later == nil {
		t.Error("Add kept accepting files after a write failed")
	}
	err = tr.Commit()
	if err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "a", "b")) {
		t.Fatalf("Commit: %v, want the failed write of a/b", err)
	}
	if _, serr := os.Stat(dir); serr == nil {
		t.Error("the directory appeared after a failed write")
	}
	noStaging(t, dir)
}

// A run killed while staging left ".DIR.tmp-*" behind: the next Tree for
// DIR removes it; a staging directory of a live Tree stays (issue 13).
func TestStaleStagingRemovedLiveKept(t *testing.T) {
	parent := t.TempDir()
	out := filepath.Join(parent, "out")
	dead := filepath.Join(parent, ".out.tmp-123456")
	if err := os.MkdirAll(filepath.Join(dead, "hosts"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dead, "hosts", "h1.json"), []byte("{}"), 0o644)
	other := filepath.Join(parent, ".outer.tmp-1") // another directory's: not ours
	os.Mkdir(other, 0o755)
	live, err := NewTree(out, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dead); !os.IsNotExist(err) {
		t.Errorf("the dead run's staging directory is still there (%v)", err)
	}
	second, err := NewTree(out, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(live.stage); err != nil {
		t.Errorf("a live Tree's staging directory was removed: %v", err)
	}
	if _, err := os.Stat(other); err != nil {
		t.Errorf("another directory's staging directory was removed: %v", err)
	}
	second.Abort()
	if err := live.Write("a.json", []byte("{}")); err != nil {
		t.Fatal(err)
	}
	if err := live.Commit(); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(parent)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if strings.Join(names, " ") != ".outer.tmp-1 out" {
		t.Errorf("left beside the output: %v", names)
	}
}
