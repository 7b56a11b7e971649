package fabric

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// FuzzLoad feeds arbitrary bytes to the loader: it must never panic, and every
// error it returns must be located in the file it was given.
func FuzzLoad(f *testing.F) {
	f.Add([]byte(goodProfile))
	f.Add([]byte(goodFabric))
	f.Add([]byte("a: &a [*a]\n"))
	f.Add([]byte("apiVersion: fabricctl.io/v1alpha1\nkind: Profile\nmetadata: {name: x}\nspec: {infiniband: {partitions: [{name: a, pkey: 0x8001, members: [{guid: '0x1'}]}]}}\n"))
	// Decode errors beside semantic ones: validation runs on what decoded.
	f.Add([]byte(strings.Replace(strings.Replace(goodProfile, "priority: 6", "priority: six", 1), "dscp: [26]", "dscp: all", 1)))
	f.Add([]byte(strings.Replace(goodFabric, "  hosts:\n", "  hosts: 7\n  x:\n", 1)))
	f.Fuzz(func(t *testing.T, data []byte) {
		files := map[string]string{"f.yaml": string(data), "p.yaml": goodProfile}
		fab, ws, err := Check("f.yaml", Options{ReadFile: memFS(files)})
		for _, w := range ws {
			if w.Pos.File == "" || w.Msg == "" || w.Code == "" {
				t.Fatalf("unlocated, empty or uncoded warning: %q", w.String())
			}
		}
		if err == nil {
			fab.Resolve()
			if _, err := fab.Normalized(); err != nil {
				t.Fatalf("normalizing a valid document: %v", err)
			}
			return
		}
		var errs Errors
		if !errors.As(err, &errs) {
			t.Fatalf("error is %T, not Errors: %v", err, err)
		}
		for _, e := range errs {
			if e.Pos.File == "" || e.Msg == "" {
				t.Fatalf("unlocated or empty error: %q", e.Error())
			}
		}
	})
}

func TestAliasBombRefused(t *testing.T) {
	// A host mapping referenced 20,000 times: each reference would be decoded
	// again. The alias budget refuses it long before memory grows.
	var b strings.Builder
	b.WriteString("apiVersion: fabricctl.io/v1alpha1\nkind: Fabric\nmetadata: {name: x}\nspec:\n  hosts:\n")
	b.WriteString("    - &h {name: a, address: 10.0.0.1, profile: p, labels: {")
	for i := 0; i < 500; i++ {
		fmt.Fprintf(&b, "k%d: v, ", i)
	}
	b.WriteString("z: v}}\n")
	for i := 0; i < 20000; i++ {
		b.WriteString("    - *h\n")
	}
	_, err := LoadBytes("bomb.yaml", []byte(b.String()))
	if err == nil || !strings.Contains(err.Error(), "refusing it") {
		t.Fatalf("want the alias bomb refused, got %.300v", err)
	}
}

func TestDeepNestingRefused(t *testing.T) {
	for _, depth := range []int{100, 100000} {
		doc := "apiVersion: fabricctl.io/v1alpha1\nkind: Profile\nmetadata: {name: x}\nspec: {ethernet: {mtu: 9000, classes: " +
			strings.Repeat("[", depth) + strings.Repeat("]", depth) + "}}\n"
		_, err := LoadBytes("deep.yaml", []byte(doc))
		if err == nil || !strings.HasPrefix(err.Error(), "deep.yaml:") {
			t.Fatalf("depth %d: want a located error, got %.200v", depth, err)
		}
	}
}

func TestTooManyErrorsCapped(t *testing.T) {
	var b strings.Builder
	b.WriteString("apiVersion: fabricctl.io/v1alpha1\nkind: Fabric\nmetadata: {name: x}\nspec:\n  hosts:\n")
	for i := 0; i < 5000; i++ {
		b.WriteString("    - {bad: 1}\n")
	}
	_, err := LoadBytes("many.yaml", []byte(b.String()))
	var errs Errors
	if !errors.As(err, &errs) || len(errs) > maxErrors+1 {
		t.Fatalf("want at most %d errors, got %d", maxErrors+1, len(errs))
	}
	if !strings.Contains(err.Error(), "too many errors") {
		t.Errorf("the cap is not announced")
	}
}

func TestFileErrors(t *testing.T) {
	dir := t.TempDir()
	for name, want := range map[string]string{
		dir + "/missing.yaml": "missing.yaml: file does not exist",
		dir:                   ": is a directory; give a fabric or profile file",
	} {
		_, err := Load(name)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Load(%s) = %v, want %q", name, err, want)
		}
	}
	_, err := LoadBytes("empty.yaml", []byte("  \n"))
	if err == nil || !strings.Contains(err.Error(), "empty.yaml: file is empty") {
		t.Errorf("empty file: %v", err)
	}
}

func TestErrorsSortedAndAllReported(t *testing.T) {
	doc := edit(t, edit(t, goodProfile, "priority: 6", "priority: 9"), "mtu: 9000", "mtu: 100")
	_, err := LoadBytes("p.yaml", []byte(doc))
	var errs Errors
	if !errors.As(err, &errs) || len(errs) < 2 {
		t.Fatalf("want two errors, got %v", err)
	}
	for i := 1; i < len(errs); i++ {
		if errs[i-1].Pos.Line > errs[i].Pos.Line {
			t.Errorf("errors not sorted by position:\n%v", err)
		}
	}
}
