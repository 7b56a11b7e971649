package drivertest

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/switchcfg"
)

// CounterGolden parses every sample matching glob (under testdata/) as
// the output of cr's first counter command and compares the counters
// with the sample's .golden file (-update rewrites them); at least min
// samples must match.
func CounterGolden(t *testing.T, cr switchcfg.CounterReader, glob string, min int) {
	t.Helper()
	sampleGolden(t, glob, min, func(b []byte) (any, error) { return countersOf(cr, b) })
}

// countersOf runs cr's parser on out as the output of its first command.
func countersOf(cr switchcfg.CounterReader, out []byte) ([]switchcfg.PortCounter, error) {
	return cr.ParseCounters(switchcfg.Readback{cr.CounterCommands()[0]: out})
}

// CounterValues parses out and returns its counters by "PORT NAME",
// for tests that assert particular ports.
func CounterValues(t *testing.T, cr switchcfg.CounterReader, out []byte) map[string]uint64 {
	t.Helper()
	cs, err := countersOf(cr, out)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]uint64{}
	for _, c := range cs {
		got[c.Port+" "+c.Name] = c.Value
	}
	return got
}

// CounterPorts parses the sample file (under testdata/) through cr and
// checks that every counter of want ("PORT NAME") is read with its value,
// that no port of absent is read, and, when total > 0, that exactly total
// counters are: what check's localiser relies on, per port and kind.
func CounterPorts(t *testing.T, cr switchcfg.CounterReader, file string, want map[string]uint64, absent []string, total int) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	got := CounterValues(t, cr, b)
	for k, v := range want {
		if g, ok := got[k]; !ok || g != v {
			t.Errorf("%s: %s = %d (read %v), want %d", file, k, g, ok, v)
		}
	}
	for k := range got {
		port, _, _ := strings.Cut(k, " ")
		if slices.Contains(absent, port) {
			t.Errorf("%s: %s read, want %s left out", file, k, port)
		}
	}
	if total > 0 && len(got) != total {
		t.Errorf("%s: %d counters, want %d: %v", file, len(got), total, got)
	}
}

// CounterErrors checks that every bad output (mapped to the part of the
// error that says where) is an error wrapping sentinel, naming the
// command and saying where, and that a read-back without the command's
// output is an error naming the command.
func CounterErrors(t *testing.T, cr switchcfg.CounterReader, sentinel error, bad map[string]string) {
	t.Helper()
	cmd := cr.CounterCommands()[0]
	for in, where := range bad {
		_, err := countersOf(cr, []byte(in))
		if !errors.Is(err, sentinel) || !strings.Contains(err.Error(), where) || !strings.Contains(err.Error(), cmd) {
			t.Errorf("%q: error %v, want %v naming %q at %s", in, err, sentinel, cmd, where)
		}
	}
	if _, err := cr.ParseCounters(switchcfg.Readback{}); err == nil || !strings.Contains(err.Error(), cmd) {
		t.Errorf("no output: error %v, want one naming %q", err, cmd)
	}
}

// CounterFuzz fuzzes cr's parser from the samples matching glob (under
// testdata/): any output parses or fails with an error wrapping
// sentinel, without panicking; every counter names its port and counter
// and has a known kind, and the counters come sorted.
func CounterFuzz(f *testing.F, cr switchcfg.CounterReader, glob string, sentinel error) {
	addSamples(f, glob)
	f.Fuzz(func(t *testing.T, in string) {
		cs, err := countersOf(cr, []byte(in))
		if err != nil {
			if !errors.Is(err, sentinel) {
				t.Fatalf("error %v does not wrap %v", err, sentinel)
			}
			return
		}
		for i, c := range cs {
			if c.Port == "" || c.Name == "" || (c.Kind != switchcfg.PhyErrors && c.Kind != switchcfg.Discards) {
				t.Fatalf("counter %d incomplete: %+v", i, c)
			}
			if i > 0 && (cs[i-1].Port > c.Port || cs[i-1].Port == c.Port && cs[i-1].Name >= c.Name) {
				t.Fatalf("counters %d and %d out of order or repeated: %+v %+v", i-1, i, cs[i-1], c)
			}
		}
	})
}
