package checktest

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/fabricctl/fabricctl/internal/testutil"
)

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
	dir := testutil.CorpusDir(t, filepath.Join("validation", sub))
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
