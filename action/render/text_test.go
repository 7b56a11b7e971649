package render

import (
	"bytes"
	"testing"
)

func TestWriteText(t *testing.T) {
	r := Result{Artifacts: []Artifact{
		{Target: "gpu-01", Kind: "host", Path: "hosts/gpu-01.json", Content: "{}\n"},
		{Target: "leaf-01", Kind: "switch", Path: "switches/leaf-01.cfg", Content: "no newline"},
	}}
	var b bytes.Buffer
	r.WriteText(&b)
	want := "# ==> hosts/gpu-01.json (host gpu-01) <==\n{}\n\n# ==> switches/leaf-01.cfg (switch leaf-01) <==\nno newline\n"
	if b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
}
