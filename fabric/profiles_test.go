package fabric

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/internal/testutil"
	"github.com/google/go-cmp/cmp"
)

// profileFiles lists every YAML file under profiles/.
func profileFiles(t *testing.T) []string {
	t.Helper()
	root := filepath.Join(testutil.RepoRoot(t), "profiles")
	var files []string
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".yaml") {
			files = append(files, p)
		}
		return err
	})
	if err != nil || len(files) < 4 {
		t.Fatalf("walking profiles/: %v (%d files)", err, len(files))
	}
	return files
}

func goldenName(t *testing.T, path string) string {
	rel, _ := filepath.Rel(filepath.Join(testutil.RepoRoot(t), "profiles"), path)
	return "profiles/" + strings.NewReplacer("/", "__", ".yaml", ".resolved.json").Replace(rel)
}

// TestProfilesLoadAndRender loads, validates and golden-renders every example.
func TestProfilesLoadAndRender(t *testing.T) {
	for _, file := range profileFiles(t) {
		t.Run(filepath.Base(file), func(t *testing.T) {
			f, err := Load(file)
			if err != nil {
				t.Fatalf("loading: %v", err)
			}
			got, err := json.MarshalIndent(resolvedView(f), "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			testutil.Golden(t, goldenName(t, file), append(got, '\n'))
		})
	}
}

// resolvedView is what a test compares: targets for a fabric, and the derived
// interface/switch/partition state of each profile.
func resolvedView(f *Fabric) map[string]any {
	view := map[string]any{"targets": f.Resolve()}
	profiles := map[string]any{}
	for n, p := range f.Profiles {
		pv := map[string]any{}
		if e := p.Spec.Ethernet; e != nil {
			pv["interface"] = ResolveInterface(e)
			var si SwitchIntent
			ResolveSwitchQoS(e, &si)
			pv["switch"] = si
		}
		if ib := p.Spec.InfiniBand; ib != nil {
			pv["partitions"] = ResolvePartitions(ib, nil)
		}
		profiles[n] = pv
	}
	view["profiles"] = profiles
	return view
}

// TestRoundTrip: load → normalize → load gives the same resolved state, and
// normalizing again gives the same bytes.
func TestRoundTrip(t *testing.T) {
	for _, file := range profileFiles(t) {
		t.Run(filepath.Base(file), func(t *testing.T) {
			f1, err := Load(file)
			if err != nil {
				t.Fatal(err)
			}
			y1, err := f1.Normalized()
			if err != nil {
				t.Fatal(err)
			}
			f2, err := LoadBytes("normalized.yaml", y1)
			if err != nil {
				t.Fatalf("reloading normalized form: %v\n%s", err, y1)
			}
			if diff := cmp.Diff(resolvedView(f1), resolvedView(f2)); diff != "" {
				t.Errorf("resolved state changed across the round trip (-first +second):\n%s", diff)
			}
			y2, err := f2.Normalized()
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(y1), string(y2)); diff != "" {
				t.Errorf("normalized form is not stable (-first +second):\n%s", diff)
			}
		})
	}
}
