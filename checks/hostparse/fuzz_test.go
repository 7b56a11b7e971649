package hostparse

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// fuzzParser seeds f with the fixtures of kind and checks that its parser
// never panics and never returns nothing without an error.
func fuzzParser(f *testing.F, kind string) {
	paths, _ := filepath.Glob(filepath.Join("testdata", kind, "*.txt"))
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	parse := parsers[kind]
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := parse(bytes.NewReader(data))
		if err == nil && v == nil {
			t.Fatal("nil result without an error")
		}
		if _, merr := json.Marshal(v); err == nil && merr != nil {
			t.Fatalf("the result does not encode (a NaN or infinity?): %v", merr)
		}
	})
}

func FuzzParseDevInfo(f *testing.F)      { fuzzParser(f, "devinfo") }
func FuzzParseIBStat(f *testing.F)       { fuzzParser(f, "ibstat") }
func FuzzParseShowGIDs(f *testing.F)     { fuzzParser(f, "showgids") }
func FuzzParseIBDev2Netdev(f *testing.F) { fuzzParser(f, "ibdev2netdev") }
func FuzzParseTopo(f *testing.F)         { fuzzParser(f, "topo") }
func FuzzParsePCI(f *testing.F)          { fuzzParser(f, "lspci") }
func FuzzParseNvidiaSMIQ(f *testing.F)   { fuzzParser(f, "nvsmi") }
func FuzzParseNVLink(f *testing.F)       { fuzzParser(f, "nvlink") }
func FuzzParseIBLinkInfo(f *testing.F)   { fuzzParser(f, "iblinkinfo") }
func FuzzParseP2PBandwidth(f *testing.F) { fuzzParser(f, "p2pbw") }
