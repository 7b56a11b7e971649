package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInvalidDocumentFiles runs `fabricctl validate` on every case of the
// invalid-document table (fabric/testdata/invalid, written by the fabric
// tests with -update): each exits 1 with its located message on stderr and
// prints nothing on stdout.
func TestInvalidDocumentFiles(t *testing.T) {
	dirs, err := filepath.Glob("../../fabric/testdata/invalid/*")
	if err != nil || len(dirs) < 40 {
		t.Fatalf("want at least 40 invalid cases, found %d (%v)", len(dirs), err)
	}
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			raw, err := os.ReadFile(filepath.Join(dir, "want.txt"))
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
			file := filepath.Join(dir, strings.TrimPrefix(lines[0], "file: "))
			code, out, errs := runCLI(t, "validate", "-f", file)
			if code != 1 || out != "" {
				t.Fatalf("exit %d, stdout %q; want 1 and nothing on stdout", code, out)
			}
			for _, w := range lines[1:] {
				if !strings.Contains(errs, w) {
					t.Errorf("stderr lacks %q:\n%s", w, errs)
				}
			}
		})
	}
}
