package k8s

import (
	"bytes"
	"maps"
	"slices"
	"strings"
	"testing"
)

func TestParseNodeSelector(t *testing.T) {
	if sel, err := ParseNodeSelector(nil); sel != nil || err != nil {
		t.Errorf("none: %v, %v; want nil", sel, err)
	}
	sel, err := ParseNodeSelector([]string{"pool=gpu", "rdma=", "a=b=c"})
	if err != nil || !maps.Equal(sel, map[string]string{"pool": "gpu", "rdma": "", "a": "b=c"}) {
		t.Errorf("got %v, %v", sel, err)
	}
	for _, bad := range []string{"pool", "=gpu"} {
		if _, err := ParseNodeSelector([]string{"pool=gpu", bad}); err == nil || !strings.Contains(err.Error(), "want KEY=VALUE") {
			t.Errorf("%q: err = %v", bad, err)
		}
	}
}

// TestFilesSplitTheStream: the files hold exactly the documents of the one stream, the health
// check first, each round in its numbered file.
func TestFilesSplitTheStream(t *testing.T) {
	m, err := Render(loadFabric(t, "profiles/lab/fabric.yaml"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	files, err := m.Files()
	if err != nil {
		t.Fatal(err)
	}
	names := slices.Sorted(maps.Keys(files))
	if len(names) != len(m.Rounds)+1 || names[0] != "health.yaml" || names[1] != "round-1.yaml" {
		t.Fatalf("files %q for %d rounds", names, len(m.Rounds))
	}
	all, err := Write(m.All())
	if err != nil {
		t.Fatal(err)
	}
	var joined [][]byte
	for _, n := range names {
		joined = append(joined, files[n])
	}
	if got := bytes.Join(joined, []byte("---\n")); !bytes.Equal(got, all) {
		t.Errorf("files joined differ from the stream")
	}
}
