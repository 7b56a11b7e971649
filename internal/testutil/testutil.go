package testutil

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Update is the -update flag: golden tests rewrite their files instead of comparing.
var Update = flag.Bool("update", false, "rewrite golden files under testdata/")

// RepoRoot returns the directory holding go.mod, walking up from the working directory.
func RepoRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatalf("getting working directory: %v", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatalf("no go.mod above the working directory")
		}
		dir = parent
	}
}

// CorpusDir returns ../shared/corpus/<sub> relative to the repository root, or skips
// the test when the corpus is absent (it is never copied into the repository).
func CorpusDir(t testing.TB, sub string) string {
	t.Helper()
	dir := filepath.Join(RepoRoot(t), "..", "shared", "corpus", sub)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		t.Skipf("corpus %s absent; skipping", dir)
	}
	return dir
}

// Golden compares got with testdata/<name>; with -update it rewrites the file.
func Golden(t testing.TB, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *Update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading golden file (run with -update to create it): %v", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", path, diff)
	}
}

// File is one corpus file without its "# SOURCE:" line.
type File struct {
	Name string // base name, e.g. "p07_err_couldnt_connect_unable_init_socket.txt"
	Body []byte
}

// CorpusFiles returns the files of corpus/validation/<sub> whose base names match
// glob, in name order. It skips t when the corpus is absent and fails t when
// nothing matches.
func CorpusFiles(t testing.TB, sub, glob string) []File {
	t.Helper()
	dir := CorpusDir(t, filepath.Join("validation", sub))
	paths, err := filepath.Glob(filepath.Join(dir, glob))
	if err != nil {
		t.Fatalf("globbing corpus: %v", err)
	}
	if len(paths) == 0 {
		t.Fatalf("no corpus file in %s matches %q", dir, glob)
	}
	files := make([]File, 0, len(paths))
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatalf("reading corpus: %v", err)
		}
		if bytes.HasPrefix(b, []byte("# SOURCE:")) {
			if i := bytes.IndexByte(b, '\n'); i >= 0 {
				b = b[i+1:]
			} else {
				b = nil
			}
		}
		files = append(files, File{Name: filepath.Base(p), Body: b})
	}
	return files
}

// JSON encodes v indented by two spaces, without HTML escaping, with a final newline.
func JSON(t testing.TB, v any) []byte {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		t.Fatalf("encoding JSON: %v", err)
	}
	return b.Bytes()
}
