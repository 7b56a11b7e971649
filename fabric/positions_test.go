package fabric

import (
	"testing"

	"gopkg.in/yaml.v3"
)

func TestPositionsFind(t *testing.T) {
	src := `spec:
  hosts:
    - name: h1
      labels: {example.com/role: gpu, example.com: x}
    - &h2
      name: h2
  again: *h2
`
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(src), &doc); err != nil {
		t.Fatal(err)
	}
	p := newPositions()
	p.add("fabric", "f.yaml", doc.Content[0])
	for _, tc := range []struct {
		path       string
		line, col  int
		wholeFound bool
	}{
		{"", 1, 1, true},
		{"spec.hosts", 3, 5, true},
		{"spec.hosts[0].name", 3, 13, true},
		{"spec.hosts[0].labels.example.com/role", 4, 34, true}, // a key with dots
		{"spec.hosts[0].labels.example.com", 4, 52, true},
		{"spec.hosts[1].name", 6, 13, true},
		{"spec.again.name", 6, 13, true},            // through the alias
		{"spec.hosts[7].name", 3, 5, false},         // nearest parent: the list
		{"spec.hosts[0].labels.rack", 4, 15, false}, // nearest parent: the labels
		{"spec.hosts[x]", 3, 5, false},              // not an index
		{"spec.hosts[0].name.deeper", 3, 13, false}, // below a scalar
	} {
		pos, ok := p.find("fabric", tc.path)
		if pos.File != "f.yaml" || pos.Line != tc.line || pos.Col != tc.col || ok != tc.wholeFound {
			t.Errorf("find(%q) = %v %v, want f.yaml:%d:%d %v", tc.path, pos, ok, tc.line, tc.col, tc.wholeFound)
		}
	}
	if pos, ok := p.find("profile:x#0", "spec"); ok || pos != (Pos{}) {
		t.Errorf("unknown document: %v %v", pos, ok)
	}
}
