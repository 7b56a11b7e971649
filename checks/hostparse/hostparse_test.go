package hostparse

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/internal/testutil"
)

// parsers maps each testdata folder to its parser, returning what the golden
// file pins.
var parsers = map[string]func(io.Reader) (any, error){
	"devinfo":      func(r io.Reader) (any, error) { return ParseDevInfo(r) },
	"ibstat":       func(r io.Reader) (any, error) { return ParseIBStat(r) },
	"showgids":     func(r io.Reader) (any, error) { return ParseShowGIDs(r) },
	"ibdev2netdev": func(r io.Reader) (any, error) { return ParseIBDev2Netdev(r) },
	"topo":         func(r io.Reader) (any, error) { return ParseTopo(r) },
	"lspci":        func(r io.Reader) (any, error) { return ParsePCI(r) },
	"nvsmi":        func(r io.Reader) (any, error) { return ParseNvidiaSMIQ(r) },
	"nvlink":       func(r io.Reader) (any, error) { return ParseNVLink(r) },
	"iblinkinfo":   func(r io.Reader) (any, error) { return ParseIBLinkInfo(r) },
	"p2pbw":        func(r io.Reader) (any, error) { return ParseP2PBandwidth(r) },
}

func TestGolden(t *testing.T) {
	for kind, parse := range parsers {
		paths, _ := filepath.Glob(filepath.Join("testdata", kind, "*.txt"))
		if len(paths) == 0 {
			t.Errorf("no fixtures for %s", kind)
		}
		for _, path := range paths {
			name := kind + "/" + strings.TrimSuffix(filepath.Base(path), ".txt")
			t.Run(name, func(t *testing.T) {
				f, err := os.Open(path)
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				v, err := parse(f)
				if err != nil {
					t.Fatalf("parsing: %v", err)
				}
				testutil.Golden(t, name+".golden", testutil.JSON(t, v))
			})
		}
	}
}

func open(t *testing.T, path string) *os.File {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", path))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}
