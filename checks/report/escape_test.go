package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/fabricctl/fabricctl/checks"
)

// TestTableEscapesInput (issue 28): host and file names from a --from-dir
// tree, and text read from captures, reached the terminal raw through the
// check table (ESC ]0;… retitles it, ESC [2J clears it, NUL hides text).
func TestTableEscapesInput(t *testing.T) {
	r := New("f", time.Unix(0, 0), SuitePreflight)
	r.Add(checks.Result{ID: "captured/ibstat/port-state", Target: "gpu\x1b]0;pwn\x07/mlx5_0/1", Status: checks.StatusFail,
		Summary: "port \x1b[2JDown\x00", Evidence: []string{"ib\x1b[31mstat.txt"}})
	var b bytes.Buffer
	if err := WriteTable(&b, r); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if strings.ContainsAny(out, "\x1b\x07\x00") {
		t.Errorf("raw control characters in the table:\n%q", out)
	}
	for _, want := range []string{`gpu\x1b]0;pwn\x07/mlx5_0/1`, `port \x1b[2JDown`, `ib\x1b[31mstat.txt`} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %s:\n%s", want, out)
		}
	}
}
