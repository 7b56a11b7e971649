package testutil

import (
	"os"
	"runtime"
	"strings"
	"testing"
)

// recorder is a testing.TB that records how a helper ended the test.
type recorder struct {
	testing.TB
	how string
}

func (r *recorder) Helper() {}
func (r *recorder) Fatalf(format string, args ...any) {
	r.how = "fatal"
	runtime.Goexit()
}
func (r *recorder) Skipf(format string, args ...any) {
	r.how = "skip"
	runtime.Goexit()
}

func endsAs(t *testing.T, f func(tb testing.TB)) string {
	r := &recorder{TB: t}
	done := make(chan struct{})
	go func() { defer close(done); f(r) }()
	<-done
	return r.how
}

// TestCorpusDirAbsent: an absent corpus skips a test on a developer's
// machine and fails it under CI=true, where ../shared is always beside the
// repository.
func TestCorpusDirAbsent(t *testing.T) {
	absent := func(tb testing.TB) { CorpusDir(tb, "no-such-corpus-directory") }
	t.Setenv("CI", "")
	if got := endsAs(t, absent); got != "skip" {
		t.Errorf("outside CI: %q, want skip", got)
	}
	t.Setenv("CI", "true")
	if got := endsAs(t, absent); got != "fatal" {
		t.Errorf("under CI=true: %q, want fatal", got)
	}
}

func TestFileParts(t *testing.T) {
	f := File{Body: []byte("before\n## block: one\na\nb\n## block: two\nc\n")}
	if got := f.Text(); got != "before\na\nb\nc\n" {
		t.Errorf("Text = %q", got)
	}
	b := f.Blocks()
	if b[""] != "before\n" || b["one"] != "a\nb\n" || b["two"] != "c\n" || len(b) != 3 {
		t.Errorf("Blocks = %q", b)
	}
	if got := endsAs(t, func(tb testing.TB) { f.Block(tb, "three") }); got != "fatal" {
		t.Errorf("a missing block: %q, want fatal", got)
	}
}

func TestReadCorpusFileHeaders(t *testing.T) {
	dir := t.TempDir()
	for name, c := range map[string]struct{ raw, body string }{
		"marker.txt": {"# SOURCE: x\n# WHAT: y\n" + strings.TrimSuffix(verbatimMarker, "\n") + "\nthe capture\n", "the capture\n"},
		"source.txt": {"# SOURCE: x\nline 1\n", "line 1\n"},
		"plain.txt":  {"line 1\n", "line 1\n"},
	} {
		path := dir + "/" + name
		if err := writeFile(path, c.raw); err != nil {
			t.Fatal(err)
		}
		f := readCorpusFile(t, path)
		if string(f.Body) != c.body || string(f.Raw) != c.raw || f.Name != name {
			t.Errorf("%s: %+v, want body %q", name, f, c.body)
		}
	}
}

func writeFile(path, data string) error { return os.WriteFile(path, []byte(data), 0o644) }
