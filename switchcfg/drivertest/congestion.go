package drivertest

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/internal/testutil"
	"github.com/fabricctl/fabricctl/switchcfg"
)

// The congestion readers' shared tests (switchcfg.CongestionReader): each
// driver keeps its samples in testdata/congestion/*.txt, the outputs of
// its commands after "=== <command>" lines, and golden readings beside
// them in testdata/congestion/*.txt.golden.

// CongestionSample reads testdata/congestion/<file> (commands after
// "=== <command>" lines) through cr.
func CongestionSample(t *testing.T, cr switchcfg.CongestionReader, file string) switchcfg.CongestionReading {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "congestion", file))
	if err != nil {
		t.Fatal(err)
	}
	rb, err := switchcfg.SplitReadback(b)
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	r, err := cr.ParseCongestion(rb)
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return r
}

// CongestionGolden compares every sample's reading with its golden file
// (-update rewrites them); at least min samples must exist.
func CongestionGolden(t *testing.T, cr switchcfg.CongestionReader, min int) {
	files, _ := filepath.Glob(filepath.Join("testdata", "congestion", "*.txt"))
	if len(files) < min {
		t.Fatalf("%d congestion samples, want at least %d", len(files), min)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			r := CongestionSample(t, cr, filepath.Base(f))
			testutil.Golden(t, filepath.Join("congestion", filepath.Base(f)+".golden"), []byte(r.Format()))
		})
	}
}

// CongestionFuzz fuzzes cr's parser: the fuzzed output replaces one of
// its commands' outputs (for ports) in the first sample's read-back,
// seeded with every section of every sample. It parses or fails with
// sentinel, never panics; counters name their port and counter, come
// sorted and once; unread lines say which command and why.
func CongestionFuzz(f *testing.F, cr switchcfg.CongestionReader, ports []string, sentinel error) {
	files, _ := filepath.Glob(filepath.Join("testdata", "congestion", "*.txt"))
	base := switchcfg.Readback{}
	cmds := cr.CongestionCommands(ports)
	for k, p := range files {
		b, _ := os.ReadFile(p)
		rb, _ := switchcfg.SplitReadback(b)
		for i, c := range cmds {
			if out, ok := rb[c]; ok {
				f.Add(uint8(i), string(out))
				if k == 0 {
					base[c] = out
				}
			}
		}
	}
	f.Fuzz(func(t *testing.T, which uint8, in string) {
		rb := switchcfg.Readback{}
		for _, c := range cmds {
			rb[c] = base[c]
		}
		if len(cmds) > 0 {
			rb[cmds[int(which)%len(cmds)]] = []byte(in)
		}
		r, err := cr.ParseCongestion(rb)
		if err != nil {
			if !errors.Is(err, sentinel) {
				t.Fatalf("error %v does not wrap %v", err, sentinel)
			}
			return
		}
		for i, c := range r.Counters {
			if c.Port == "" || c.Name == "" || c.From == "" {
				t.Fatalf("counter %d incomplete: %+v", i, c)
			}
			if i > 0 && (r.Counters[i-1].Port > c.Port || r.Counters[i-1].Port == c.Port && r.Counters[i-1].Name >= c.Name) {
				t.Fatalf("counters %d and %d out of order or repeated: %+v %+v", i-1, i, r.Counters[i-1], c)
			}
		}
		for _, u := range r.Unread {
			if u.Command == "" || u.Reason == "" {
				t.Fatalf("unread line without command or reason: %+v", u)
			}
		}
	})
}

// CongestionErrors checks that every bad output (mapped to a part of the
// error) given to command cmd, the other commands' outputs taken from the
// sample file, is an error wrapping sentinel and naming cmd; and that a
// read-back without cmd's output is an error naming it.
func CongestionErrors(t *testing.T, cr switchcfg.CongestionReader, file, cmd string, sentinel error, bad map[string]string) {
	CongestionErrorsOf(t, cr, file, cmd, sentinel, bad, true)
}

// CongestionErrorsOf is CongestionErrors; needed says whether a missing
// output of cmd is an error.
func CongestionErrorsOf(t *testing.T, cr switchcfg.CongestionReader, file, cmd string, sentinel error, bad map[string]string, needed bool) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "congestion", file))
	if err != nil {
		t.Fatal(err)
	}
	for in, where := range bad {
		rb, _ := switchcfg.SplitReadback(b)
		rb[cmd] = []byte(in)
		_, err := cr.ParseCongestion(rb)
		if !errors.Is(err, sentinel) || !strings.Contains(err.Error(), where) || !strings.Contains(err.Error(), cmd) {
			t.Errorf("%q: error %v, want %v naming %q and %q", in, err, sentinel, cmd, where)
		}
	}
	rb, _ := switchcfg.SplitReadback(b)
	delete(rb, cmd)
	if _, err := cr.ParseCongestion(rb); needed && (err == nil || !strings.Contains(err.Error(), cmd)) {
		t.Errorf("no output of %q: error %v, want one naming it", cmd, err)
	}
}
