package k8s

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
)

// ParseNodeSelector turns KEY=VALUE pairs (--node-selector) into Options.NodeSelector; none
// gives nil, a key given twice is an error. Validate checks the keys and values.
func ParseNodeSelector(pairs []string) (map[string]string, error) {
	if len(pairs) == 0 {
		return nil, nil
	}
	sel := map[string]string{}
	for _, s := range pairs {
		k, v, ok := strings.Cut(s, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("--node-selector %+q: want KEY=VALUE", s)
		}
		if _, dup := sel[k]; dup {
			return nil, fmt.Errorf("--node-selector %+q: key %+q given twice", s, k)
		}
		sel[k] = v
	}
	return sel, nil
}

// Files encodes the manifests one file each, by name: health.yaml holds the health check,
// round-NNN.yaml each round's Job (numbered from 1, zero-padded to the width of the count).
func (m Manifests) Files() (map[string][]byte, error) {
	objs := map[string][]runtime.Object{"health.yaml": m.Health}
	for i, j := range m.Rounds {
		objs[fmt.Sprintf("round-%0*d.yaml", len(fmt.Sprint(len(m.Rounds))), i+1)] = []runtime.Object{j}
	}
	files := map[string][]byte{}
	for name, o := range objs {
		y, err := Write(o)
		if err != nil {
			return nil, err
		}
		files[name] = y
	}
	return files, nil
}
