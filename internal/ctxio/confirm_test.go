package ctxio

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestConfirm(t *testing.T) {
	ctx := context.Background()
	for in, want := range map[string]bool{"y\n": true, "YES\n": true, "n\n": false, "\n": false, "yes please\n": false} {
		var prompt bytes.Buffer
		got, err := Confirm(ctx, strings.NewReader(in), &prompt, "Apply these changes to 2 target(s)?")
		if err != nil || got != want {
			t.Errorf("answer %q: %v, %v; want %v", in, got, err, want)
		}
		if prompt.String() != "Apply these changes to 2 target(s)? [y/N] " {
			t.Errorf("prompt %q", prompt.String())
		}
	}
	if _, err := Confirm(ctx, strings.NewReader(""), &bytes.Buffer{}, "?"); err == nil || !strings.Contains(err.Error(), "no confirmation on stdin") {
		t.Errorf("no answer: err = %v", err)
	}
	f, err := os.Create(filepath.Join(t.TempDir(), "answers"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := Confirm(ctx, f, &bytes.Buffer{}, "?"); err == nil || !strings.Contains(err.Error(), "stdin is not a terminal") {
		t.Errorf("file stdin: err = %v", err)
	}
	if IsTerminal(f) || IsTerminal(&bytes.Buffer{}) {
		t.Error("a file or a buffer is a terminal")
	}
	ctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := Confirm(ctx, strings.NewReader("y\n"), &bytes.Buffer{}, "?"); err == nil || !strings.Contains(err.Error(), "waiting for confirmation") {
		t.Errorf("cancelled: err = %v", err)
	}
}
