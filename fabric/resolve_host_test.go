package fabric

import (
	"path/filepath"
	"testing"

	"github.com/fabricctl/fabricctl/internal/testutil"
)

func TestResolvedHostByName(t *testing.T) {
	f, err := Load(filepath.Join(testutil.RepoRoot(t), "profiles", "lab", "fabric.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	r := f.Resolve()
	h, err := r.Host("lab-h3")
	if err != nil || h.Host != "lab-h3" || h.Address == "" {
		t.Errorf("Host(lab-h3) = %+v, %v", h, err)
	}
	if _, err := r.Host("leaf-01"); err == nil || err.Error() != `no host "leaf-01" (hosts: lab-h1, lab-h2, lab-h3, lab-h4)` {
		t.Errorf("Host(leaf-01): err = %v, want every host listed", err)
	}
}
