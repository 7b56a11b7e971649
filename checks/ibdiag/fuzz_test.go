package ibdiag

import (
	"os"
	"path/filepath"
	"testing"
)

// fuzzKind runs the parser of kind on arbitrary input: it must not panic,
// and every non-blank line is read, a tool error or Unparsed.
func fuzzKind(f *testing.F, kind string) {
	files, _ := filepath.Glob("testdata/lab/*.txt")
	for _, file := range files {
		if kindOf(filepath.Base(file)) == kind {
			if data, err := os.ReadFile(file); err == nil {
				f.Add(string(data))
			}
		}
	}
	f.Add("")
	f.Add("GUID 0x1 port ALL: [X == 1] [")
	f.Add("[1](1)(2)() \"x\"[2]() # lid 1 lmc 0 \"\" lid 2 4x???")
	f.Fuzz(func(t *testing.T, text string) {
		_, acc, err := parseAny(kind, text)
		if err != nil {
			if kind == "iblinkinfo" {
				return // hostparse refuses input without a link; nothing is returned
			}
		}
		if got, want := acc.Lines(), nonBlank(text); got != want {
			t.Errorf("%d of %d lines accounted for", got, want)
		}
	})
}

func FuzzIBNetDiscover(f *testing.F) { fuzzKind(f, "ibnetdiscover") }
func FuzzIBLinkInfo(f *testing.F)    { fuzzKind(f, "iblinkinfo") }
func FuzzPerfQuery(f *testing.F)     { fuzzKind(f, "perfquery") }
func FuzzSMPQuery(f *testing.F)      { fuzzKind(f, "smpquery") }
func FuzzSMInfo(f *testing.F)        { fuzzKind(f, "sminfo") }
func FuzzIBTracert(f *testing.F)     { fuzzKind(f, "ibtracert") }
func FuzzIBRoute(f *testing.F)       { fuzzKind(f, "ibroute") }
func FuzzIBQueryErrors(f *testing.F) { fuzzKind(f, "ibqueryerrors") }
