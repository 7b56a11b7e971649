package fabric

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// yamlNodes counts the nodes of every document yaml.v3 makes of data (an
// alias counts once, as the node it is), or false when yaml.v3 refuses it.
func yamlNodes(data []byte) (int, bool) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	total := 0
	for {
		var n yaml.Node
		err := dec.Decode(&n)
		if errors.Is(err, io.EOF) {
			return total, true
		}
		if err != nil {
			return 0, false
		}
		var walk func(*yaml.Node)
		walk = func(n *yaml.Node) {
			total++
			for _, c := range n.Content {
				walk(c)
			}
		}
		walk(&n)
	}
}

// estimateSeeds are documents of every shape the estimate must bound.
var estimateSeeds = []string{
	goodProfile, goodFabric,
	"a: &x {b: 1}\nc: *x\n",
	"- - - a\n- \n-\n  k: v\n",
	"{a, b, c: , d: e}\n",
	"[a: b, c, {d}, [e]]\n",
	"key: |\n  text: 1\n  - x\nother: >-\n  folded\n\n  more\nlast:\n",
	"  - key: |\n      text\n    other: 1\n",
	"- |\n a\n- b\n",
	"? complex\n: value\n? [a, b]\n",
	"--- !tag\nfoo\n--- &a\n- 1\n...\n---\n\"quoted: \\\"x\\\" # not a comment\"\n",
	"a: 'it''s: [x]' # comment\nb: \"multi\n  line\"\nc: plain\n  continued\n",
	"{\"json\":1,\"k\":[1,2,{\"x\":null}]}\n",
	"empty:\nnested:\n  deeper:\n    - \n",
	"%YAML 1.2\n---\na: !!str 1\n",
	"a: !!null\nb: &anchor\nc: *anchor\n",
}

func TestEstimateNodesBoundsYAML(t *testing.T) {
	for _, s := range estimateSeeds {
		checkEstimate(t, []byte(s))
	}
	for _, f := range []string{"../profiles/lab/fabric.yaml"} {
		if data, err := os.ReadFile(f); err == nil {
			checkEstimate(t, data)
		}
	}
	profiles, _ := filepath.Glob("../profiles/*/*.yaml")
	for _, p := range profiles {
		data, _ := os.ReadFile(p)
		checkEstimate(t, data)
	}
}

// The estimate is close for fabric files: it must not refuse a fabric
// the node budget admits.
func TestEstimateNodesCloseForFabrics(t *testing.T) {
	var b strings.Builder
	b.WriteString("apiVersion: fabricctl.io/v1alpha1\nkind: Fabric\nmetadata: {name: x}\nspec:\n  include: [p.yaml]\n  hosts:\n")
	for i := 0; i < 1000; i++ {
		b.WriteString("    - {name: gpu-00001, address: 10.1.0.1, profile: roce, interfaces: [ens1f0np0, ens2f0np0], labels: {rack: r0, leaf: leaf-000}, portGuids: [\"0x0002c90300000000\"]}\n")
		b.WriteString("    - name: gpu-2\n      address: 10.1.0.2\n      profile: roce\n      interfaces:\n        - ens1f0np0\n      labels:\n        rack: r0\n")
	}
	actual, ok := yamlNodes([]byte(b.String()))
	if !ok {
		t.Fatal("the fabric does not parse")
	}
	est, _, _, _ := estimateNodes([]byte(b.String()), 1<<30)
	if est < actual || float64(est) > 1.2*float64(actual) {
		t.Errorf("estimate %d for %d nodes: want within 0..20%% above", est, actual)
	}
}

func checkEstimate(t *testing.T, data []byte) {
	t.Helper()
	actual, ok := yamlNodes(data)
	if !ok {
		return
	}
	est, _, _, over := estimateNodes(data, 1<<30)
	if over || est < actual {
		t.Errorf("estimate %d < %d nodes for:\n%s", est, actual, data)
	}
	if est > 0 {
		if _, line, _, over := estimateNodes(data, est-1); !over || line < 1 {
			t.Errorf("a limit below the estimate is not reported (line %d)", line)
		}
	}
}

// FuzzEstimateNodes holds estimateNodes an upper bound of yaml.v3's node
// count for every document yaml.v3 accepts: the node budget is checked
// before parsing on it.
func FuzzEstimateNodes(f *testing.F) {
	for _, s := range estimateSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 4096 {
			return
		}
		checkEstimate(t, data)
	})
}
