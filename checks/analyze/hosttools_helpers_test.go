package analyze

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/checks"
)

// hostFixture analyses a file of ../hostparse/testdata and returns it with
// each finding's status keyed by "<id> <subject>".
func hostFixture(t *testing.T, path string) (File, map[string]checks.Status) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "hostparse", "testdata", path))
	if err != nil {
		t.Fatal(err)
	}
	return hostText(filepath.Base(path), string(b))
}

// hostText analyses text and keys its findings as hostFixture does.
func hostText(name, text string) (File, map[string]checks.Status) {
	f := Analyze(name, []byte(text))
	st := map[string]checks.Status{}
	for _, x := range f.Findings {
		st[x.ID+" "+x.Subject] = x.Status
	}
	return f, st
}

// hostMentions reports whether a finding of status st holds word.
func hostMentions(f File, st checks.Status, word string) bool {
	for _, x := range f.Findings {
		if x.Status == st && strings.Contains(x.Subject+" "+x.Summary+" "+strings.Join(x.Evidence, " "), word) {
			return true
		}
	}
	return false
}
