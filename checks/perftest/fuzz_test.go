package perftest

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

func seed(f *testing.F, glob string) {
	paths, _ := filepath.Glob(filepath.Join("testdata", glob))
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
}

// FuzzParse: any input either parses or fails with an error; never a panic,
// and a report's failures always name a class and a line inside the input.
func FuzzParse(f *testing.F) {
	seed(f, "text/*.txt")
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := Parse(bytes.NewReader(data))
		if err != nil {
			return
		}
		lines := bytes.Count(data, []byte("\n")) + 1
		for _, fl := range r.Failures {
			if fl.Class == "" || fl.Line < 1 || fl.Line > lines {
				t.Fatalf("failure %+v outside the %d input lines", fl, lines)
			}
		}
		Cause(r)
		Hints(r, r)
		r.Final()
		if _, err := json.Marshal(r); err != nil {
			t.Fatalf("the report does not encode: %v", err)
		}
	})
}

// FuzzParseJSON: any input either parses or fails with an error; never a panic.
func FuzzParseJSON(f *testing.F) {
	seed(f, "json/*.json")
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := ParseJSON(data)
		if err == nil && r == nil {
			t.Fatal("nil report without an error")
		}
		if _, merr := json.Marshal(r); err == nil && merr != nil {
			t.Fatalf("the report does not encode: %v", merr)
		}
	})
}
