package drivertest

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/internal/testutil"
	"github.com/fabricctl/fabricctl/switchcfg"
)

// NeighborGolden parses every sample matching glob (under testdata/) as
// the output of nr's first neighbour command and compares the neighbours
// with the sample's .golden file (-update rewrites them). It fails when
// fewer than min samples match, so a moved directory is not a silent pass.
func NeighborGolden(t *testing.T, nr switchcfg.NeighborReader, glob string, min int) {
	t.Helper()
	sampleGolden(t, glob, min, func(b []byte) (any, error) { return parseAs(nr, b) })
}

// sampleGolden parses every sample matching glob (under testdata/) with
// parse and compares the result, as indented JSON, with the sample's
// .golden file (-update rewrites them). It fails when fewer than min
// samples match, so a moved directory is not a silent pass.
func sampleGolden(t *testing.T, glob string, min int, parse func([]byte) (any, error)) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join("testdata", glob))
	if len(files) < min {
		t.Fatalf("%d samples match testdata/%s, want at least %d", len(files), glob, min)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			v, err := parse(b)
			if err != nil {
				t.Fatal(err)
			}
			got, _ := json.MarshalIndent(v, "", "  ")
			testutil.Golden(t, strings.TrimPrefix(f, "testdata/")+".golden", append(got, '\n'))
		})
	}
}

// addSamples seeds f with every sample matching glob (under testdata/).
func addSamples(f *testing.F, glob string) {
	files, _ := filepath.Glob(filepath.Join("testdata", glob))
	for _, p := range files {
		b, _ := os.ReadFile(p)
		f.Add(string(b))
	}
}

// parseAs runs nr's parser on out as the output of its first command.
func parseAs(nr switchcfg.NeighborReader, out []byte) ([]fabric.Neighbor, error) {
	return nr.ParseNeighbors(switchcfg.Readback{nr.NeighborCommands()[0]: out})
}

// NeighborPorts parses each sample (a file under testdata/) and compares
// its neighbours, written "LOCAL→SYSTEM:PORT" (PORT is Neighbor.PortName,
// what checks/topology matches on) and joined by spaces, with want.
func NeighborPorts(t *testing.T, nr switchcfg.NeighborReader, want map[string]string) {
	t.Helper()
	for file, w := range want {
		b, err := os.ReadFile(filepath.Join("testdata", file))
		if err != nil {
			t.Fatal(err)
		}
		ns, err := parseAs(nr, b)
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		var got []string
		for _, n := range ns {
			got = append(got, n.LocalPort+"→"+n.SystemName+":"+n.PortName())
		}
		if strings.Join(got, " ") != w {
			t.Errorf("%s: %q, want %q", file, strings.Join(got, " "), w)
		}
	}
}

// NeighborErrors checks that every bad output (mapped to the part of the
// error that says where: a line, an element) is an error wrapping
// sentinel and saying where, never an empty neighbour list, and that a
// read-back without the command's output is an error naming the command.
func NeighborErrors(t *testing.T, nr switchcfg.NeighborReader, sentinel error, bad map[string]string) {
	t.Helper()
	for in, where := range bad {
		_, err := parseAs(nr, []byte(in))
		if !errors.Is(err, sentinel) || !strings.Contains(err.Error(), where) {
			t.Errorf("%q: error %v, want %v at %s", in, err, sentinel, where)
		}
	}
	cmd := nr.NeighborCommands()[0]
	if _, err := nr.ParseNeighbors(switchcfg.Readback{}); err == nil || !strings.Contains(err.Error(), cmd) {
		t.Errorf("no output: error %v, want one naming %q", err, cmd)
	}
}

// NeighborFuzz fuzzes nr's parser from the samples matching glob (under
// testdata/): any output parses or fails with an error wrapping sentinel,
// without panicking, and every neighbour has a local port and passes
// check (when set; it returns what is wrong, or "").
func NeighborFuzz(f *testing.F, nr switchcfg.NeighborReader, glob string, sentinel error, check func(fabric.Neighbor) string) {
	addSamples(f, glob)
	f.Fuzz(func(t *testing.T, in string) {
		ns, err := parseAs(nr, []byte(in))
		if err != nil {
			if !errors.Is(err, sentinel) {
				t.Fatalf("error %v does not wrap %v", err, sentinel)
			}
			return
		}
		for _, n := range ns {
			if n.LocalPort == "" {
				t.Fatalf("neighbour without local port: %+v", n)
			}
			if check != nil {
				if msg := check(n); msg != "" {
					t.Fatalf("%s: %+v", msg, n)
				}
			}
		}
	})
}
