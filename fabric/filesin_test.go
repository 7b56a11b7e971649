package fabric

import (
	"errors"
	"io/fs"
	"strings"
	"testing"
)

// FilesIn serves generated documents; a path it does not hold is a
// not-exist error naming it, which Load reports at the include.
func TestFilesIn(t *testing.T) {
	read := FilesIn(map[string]string{"a.yaml": "x"})
	if b, err := read("a.yaml"); err != nil || string(b) != "x" {
		t.Fatalf("a.yaml: %q %v", b, err)
	}
	_, err := read("b.yaml")
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "b.yaml") {
		t.Fatalf("b.yaml: %v", err)
	}
	files := map[string]string{"f.yaml": "apiVersion: fabricctl.io/v1alpha1\nkind: Fabric\nmetadata: {name: f}\nspec:\n  include: [missing.yaml]\n"}
	if _, err := Load("f.yaml", Options{ReadFile: FilesIn(files)}); err == nil || !strings.Contains(err.Error(), "missing.yaml") {
		t.Fatalf("a missing include: %v", err)
	}
}
