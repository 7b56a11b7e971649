package fabric

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// sameTree describes the first difference between two node trees, ignoring
// comments (which the decoder does not read), or returns "".
func sameTree(a, b *yaml.Node, path string) string {
	if a.Kind != b.Kind || a.Style != b.Style || a.Tag != b.Tag || a.Value != b.Value || a.Anchor != b.Anchor ||
		a.Line != b.Line || a.Column != b.Column || len(a.Content) != len(b.Content) {
		return fmt.Sprintf("%s: kind %v/%v style %v/%v tag %q/%q value %q/%q at %d:%d/%d:%d, %d/%d children",
			path, a.Kind, b.Kind, a.Style, b.Style, a.Tag, b.Tag, a.Value, b.Value, a.Line, a.Column, b.Line, b.Column,
			len(a.Content), len(b.Content))
	}
	if (a.Alias == nil) != (b.Alias == nil) || a.Alias != nil && (a.Alias.Line != b.Alias.Line || a.Alias.Column != b.Alias.Column) {
		return path + ": aliases differ"
	}
	for i := range a.Content {
		if d := sameTree(a.Content[i], b.Content[i], fmt.Sprintf("%s/%d", path, i)); d != "" {
			return d
		}
	}
	return ""
}

// lowSplitThresholds lets small documents be split.
func lowSplitThresholds(t testing.TB) {
	b, i := splitMinBytes, splitMinItems
	splitMinBytes, splitMinItems = 0, 2
	t.Cleanup(func() { splitMinBytes, splitMinItems = b, i })
}

// checkSplit parses data whole and split; when the split applies the trees
// must be the same, and it must apply when want says so.
func checkSplit(t *testing.T, name, data string, pieces int, want bool) {
	t.Helper()
	got, ok := parseSplit([]byte(data), pieces)
	if ok != want {
		t.Fatalf("%s: split applied = %v, want %v", name, ok, want)
	}
	if !ok {
		return
	}
	var whole yaml.Node
	if err := yaml.Unmarshal([]byte(data), &whole); err != nil {
		t.Fatalf("%s: the split parse succeeded where the whole parse fails: %v", name, err)
	}
	if d := sameTree(&whole, got, ""); d != "" {
		t.Fatalf("%s: split parse differs from the whole parse: %s", name, d)
	}
}

const blockHosts = `# a fabric
apiVersion: fabricctl.io/v1alpha1
kind: Fabric
metadata:
  name: big
spec:
  include: [roce.yaml]
  hosts:
    # rack 1
    - name: h1
      address: 10.0.0.1
      interfaces:
        - ens1f0np0
        - ens2f0np0
      labels: {rack: r1, "quoted key": "a value
        on two lines"}

    - name: h2
      note: |
        a block scalar
          - that looks like an item
      - not an item either, as part of the block scalar? no: a mapping cannot hold this
`

func TestParseSplitMatchesWholeParse(t *testing.T) {
	lowSplitThresholds(t)
	var items []string
	for i := 0; i < 40; i++ {
		switch i % 4 {
		case 0:
			items = append(items, fmt.Sprintf("    - {name: h%d, address: 10.0.0.%d, labels: {rack: r%d}}\n", i, i, i%3))
		case 1:
			items = append(items, fmt.Sprintf("    - name: h%d\n      interfaces:\n        - ens1\n        - ens2\n      description: a plain\n        scalar on two lines\n\n", i))
		case 2:
			items = append(items, fmt.Sprintf("    # host %d\n    - name: \"h%d\"\n      note: |\n        text\n          - indented dash\n      tags: [a,\n        b]\n", i, i))
		case 3:
			items = append(items, fmt.Sprintf("    -\n      name: h%d\n", i))
		}
	}
	head := "apiVersion: fabricctl.io/v1alpha1\nkind: Fabric\nmetadata: {name: x}\nspec:\n  include: [roce.yaml]\n  hosts:\n"
	tail := "  switches:\n    - {name: s1, platform: sonic}\n  # end\nextra: 1\n"
	body := strings.Join(items, "")
	for name, doc := range map[string]string{
		"mixed items, keys after":  head + body + tail,
		"items to the end":         head + body,
		"items at the key's level": strings.ReplaceAll(head+body, "\n    ", "\n  ") + "",
		"CRLF":                     strings.ReplaceAll(head+body+tail, "\n", "\r\n"),
		"leading document marker?": "# comment\n" + head + body,
	} {
		for _, pieces := range []int{2, 3, 7} {
			checkSplit(t, fmt.Sprintf("%s/%d pieces", name, pieces), doc, pieces, true)
		}
	}
}

func TestParseSplitGeneratedFabric(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(writeLarge(t, 500), "fabric.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	b := splitMinBytes
	splitMinBytes = 0
	defer func() { splitMinBytes = b }()
	checkSplit(t, "fabricgen 500 hosts", string(data), 2, true)
	checkSplit(t, "fabricgen 500 hosts", string(data), 5, true)
}

func TestParseSplitFallsBack(t *testing.T) {
	lowSplitThresholds(t)
	items := strings.Repeat("    - {name: h}\n", 10)
	head := "spec:\n  hosts:\n"
	for name, doc := range map[string]string{
		"two documents":             head + items + "---\nspec: {}\n",
		"a directive":               "%YAML 1.2\n---\n" + head + items,
		"an anchor in the items":    head + "    - &a {name: h}\n" + items + "    - *a\n",
		"no spec":                   "hosts:\n" + items,
		"flow spec":                 "spec: {hosts: [a, b]}\n",
		"hosts not under spec":      "spec:\n  profiles:\n    - hosts:\n" + items,
		"a dash that is no item":    head + items + "    -x\n" + items,
		"too few items":             head + "    - {name: h}\n",
		"flow list across a cut":    head + "    - [a,\n    - b]\n" + items,
		"second spec key":           head + items + "spec:\n  hosts:\n" + items,
		"a syntax error in an item": head + items + "    - {name: [}\n" + items,
	} {
		checkSplit(t, name, doc, 2, false)
	}
	// A duplicate hosts key splits the first one's items; the tree is the
	// whole parse's, and the decoder reports the duplicate.
	checkSplit(t, "hosts given twice", head+items+"  hosts:\n"+items, 2, true)
}

// writeLarge writes a generated fabric (its hosts in flow style) and
// returns its directory.
func writeLarge(t *testing.T, hosts int) string {
	t.Helper()
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("apiVersion: fabricctl.io/v1alpha1\nkind: Fabric\nmetadata: {name: big}\nspec:\n  hosts:\n")
	for i := 0; i < hosts; i++ {
		fmt.Fprintf(&b, "    - {name: gpu-%05d, address: 10.1.%d.%d, profile: roce, interfaces: [ens1f0np0, ens2f0np0], labels: {rack: r%d, tenant: t%d}, portGuids: [\"0x0002c903%08x\"]}\n", i, i/256, i%256, i/32, i%64, i)
	}
	b.WriteString("  switches:\n    - {name: leaf-000, platform: sonic, address: 10.200.0.0, profile: roce, ports: [\"Ethernet0-31\"]}\n")
	if err := os.WriteFile(filepath.Join(dir, "fabric.yaml"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func FuzzParseSplit(f *testing.F) {
	lowSplitThresholds(f)
	items := strings.Repeat("    - {name: h, labels: {a: b}}\n", 4)
	f.Add("spec:\n  hosts:\n"+items+"  switches: []\n", 2)
	f.Add("a: 1\nspec:\n  hosts:\n    - name: x\n      v: |\n        y\n    - name: z\n      w: \"q\n        r\"\n"+items, 3)
	f.Add(blockHosts, 2)
	f.Fuzz(func(t *testing.T, data string, pieces int) {
		if pieces < 2 || pieces > 8 {
			return
		}
		got, ok := parseSplit([]byte(data), pieces)
		if !ok {
			return
		}
		var whole yaml.Node
		if err := yaml.Unmarshal([]byte(data), &whole); err != nil {
			t.Fatalf("split parse succeeded where the whole parse fails: %v\n%q", err, data)
		}
		if d := sameTree(&whole, got, ""); d != "" {
			t.Fatalf("split parse differs: %s\n%q", d, data)
		}
	})
}

// Loading a large fabric split or whole gives the same fabric, and the same
// located errors.
func TestLoadSplitOrWholeAgree(t *testing.T) {
	dir := writeLarge(t, 300)
	path := filepath.Join(dir, "fabric.yaml")
	data, _ := os.ReadFile(path)
	// A mistake deep in the host list, and an unknown field.
	bad := strings.Replace(string(data), "address: 10.1.0.250,", "address: 10.1.0.250, adress: x,", 1)
	bad = strings.Replace(bad, "{name: gpu-00200,", "{name: GPU_200,", 1)
	badPath := filepath.Join(dir, "bad.yaml")
	os.WriteFile(badPath, []byte(bad), 0o644)
	roce := "apiVersion: fabricctl.io/v1alpha1\nkind: Profile\nmetadata: {name: roce}\nspec:\n  ethernet:\n    classes:\n      - {name: roce, priority: 3, dscp: [26], lossless: true}\n      - {name: default, priority: 0, dscp: rest}\n"
	for _, f := range []string{path, badPath} {
		text, _ := os.ReadFile(f)
		os.WriteFile(f, append(text, []byte("  include: [roce.yaml]\n")...), 0o644)
	}
	os.WriteFile(filepath.Join(dir, "roce.yaml"), []byte(roce), 0o644)

	load := func(file string, split bool) (string, error) {
		b := splitMinBytes
		if !split {
			splitMinBytes = 1 << 30
		} else {
			splitMinBytes = 0
		}
		defer func() { splitMinBytes = b }()
		f, err := Load(file)
		if err != nil {
			return "", err
		}
		out, err := f.Normalized()
		return string(out), err
	}
	for _, file := range []string{path, badPath} {
		a, errA := load(file, true)
		b, errB := load(file, false)
		if fmt.Sprint(errA) != fmt.Sprint(errB) || a != b {
			t.Errorf("%s: split and whole loads differ:\nsplit: %v\nwhole: %v", filepath.Base(file), errA, errB)
		}
		if file == badPath && (errA == nil || !strings.Contains(errA.Error(), "adress")) {
			t.Errorf("the bad fabric loaded: %v", errA)
		}
	}
}
