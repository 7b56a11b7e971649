package drivertest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/internal/testutil"
	"github.com/fabricctl/fabricctl/switchcfg"
)

// NeighborGolden parses every sample matching glob (under testdata/) as
// the output of nr's first neighbour command and compares the neighbours
// with the sample's .golden file (-update rewrites them). It fails when
// fewer than min samples match, so a moved directory is not a silent pass.
func NeighborGolden(t *testing.T, nr switchcfg.NeighborReader, glob string, min int) {
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
			ns, err := nr.ParseNeighbors(switchcfg.Readback{nr.NeighborCommands()[0]: b})
			if err != nil {
				t.Fatal(err)
			}
			got, _ := json.MarshalIndent(ns, "", "  ")
			testutil.Golden(t, strings.TrimPrefix(f, "testdata/")+".golden", append(got, '\n'))
		})
	}
}
