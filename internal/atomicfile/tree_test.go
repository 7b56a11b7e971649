package atomicfile

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func treeFiles(n int) []File {
	var fs []File
	for i := 0; i < n; i++ {
		fs = append(fs, File{Path: fmt.Sprintf("hosts/h%03d.json", i), Data: []byte(fmt.Sprintf("{%d}\n", i))})
	}
	return append(fs, File{Path: "switches/leaf-1.nvue", Data: []byte("nv set\n")})
}

func checkTree(t *testing.T, dir string, files []File) {
	t.Helper()
	for _, f := range files {
		got, err := os.ReadFile(filepath.Join(dir, f.Path))
		if err != nil || string(got) != string(f.Data) {
			t.Fatalf("%s: %q, %v", f.Path, got, err)
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
	files[0].Data = []byte("changed\n")
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
		err := WriteTree(dir, []File{{Path: "ok", Data: nil}, {Path: p}}, 0o644)
		if err == nil {
			t.Errorf("%q: no error", p)
		}
		if _, serr := os.Stat(dir); serr == nil {
			t.Errorf("%q: %s was created", p, dir)
		}
	}
}

func TestWriteTreeFailureLeavesNothing(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	// "a" is a file, so "a/b" cannot be created.
	err := WriteTree(dir, []File{{Path: "a", Data: []byte("x")}, {Path: "a/b", Data: []byte("y")}}, 0o644)
	if err == nil {
		t.Fatal("no error")
	}
	if _, serr := os.Stat(dir); serr == nil {
		t.Errorf("%s exists after a failed write", dir)
	}
	noStaging(t, dir)
}
