package fabric

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestIBVantage: spec.infiniband.vantage must be a declared host (a
// located error otherwise); without it the vantage is the first host the
// cabling names.
func TestIBVantage(t *testing.T) {
	b, err := os.ReadFile("../profiles/lab/ib.yaml")
	if err != nil {
		t.Fatal(err)
	}
	load := func(vantage string) (*Fabric, error) {
		doc := string(b)
		if vantage != "" {
			doc = strings.Replace(doc, "  infiniband:\n    linkWidth", "  infiniband:\n    vantage: "+vantage+"\n    linkWidth", 1)
		}
		p := filepath.Join(t.TempDir(), "ib.yaml")
		if err := os.WriteFile(p, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		return Load(p, Options{})
	}
	f, err := load("")
	if err != nil {
		t.Fatal(err)
	}
	if v := f.IBVantage(); v != "ib-h1" {
		t.Errorf("default vantage %q, want ib-h1 (the first cabled host)", v)
	}
	if f, err = load("ib-h3"); err != nil || f.IBVantage() != "ib-h3" {
		t.Errorf("vantage ib-h3: %v", err)
	}
	_, err = load("sm-01")
	if err == nil || !strings.Contains(err.Error(), `ib.yaml:46:14: spec.infiniband.vantage: no host named "sm-01"`) {
		t.Errorf("vantage sm-01 (a subnet manager): %v", err)
	}
	_, err = load("ib-h9")
	if err == nil || !strings.Contains(err.Error(), `(did you mean "ib-h1"?)`) {
		t.Errorf("vantage ib-h9: %v", err)
	}
}
