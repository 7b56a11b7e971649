package starter_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/action/render"
	"github.com/fabricctl/fabricctl/action/starter"
	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/internal/testutil"
	"github.com/fabricctl/fabricctl/switchcfg/all"
)

// load loads the written fabric from disk as `fabricctl validate` does.
func load(t *testing.T, path string) *fabric.Fabric {
	t.Helper()
	f, err := fabric.Load(path, fabric.Options{Platforms: all.Registry()})
	if err != nil {
		t.Fatalf("the starter does not validate: %v", err)
	}
	return f
}

// The default starter, as a directory: what a user gets from `fabricctl
// init`. It validates from disk and renders every target.
func TestDefaultDirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "my-fabric")
	files, err := starter.Files(all.Registry(), dir, starter.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := starter.Write(files, false); err != nil {
		t.Fatal(err)
	}
	fab := filepath.Join(dir, starter.FabricFile)
	if files[0].Path != fab || len(files) != 2 || files[1].Path != filepath.Join(dir, starter.ProfileFile) {
		t.Fatalf("files %v: want %s then %s", paths(files), fab, starter.ProfileFile)
	}
	f := load(t, fab)
	if len(f.Spec.Hosts) != 2 || len(f.Spec.Switches) != 1 || f.Spec.Switches[0].Platform != "cumulus-nvue" {
		t.Errorf("hosts %d, switches %v: want two hosts and one cumulus-nvue leaf", len(f.Spec.Hosts), f.Spec.Switches)
	}
	if f.Spec.Checks == nil || f.Spec.Checks.Pairwise == nil || f.Spec.Checks.Loopback == nil || f.Spec.Checks.Preflight == nil {
		t.Errorf("checks %+v: want preflight, loopback and pairwise", f.Spec.Checks)
	}
	arts, err := render.Artifacts(context.Background(), f, all.Registry(), "", nil)
	if err != nil || len(arts) == 0 {
		t.Fatalf("render: %d artifacts, %v", len(arts), err)
	}
	// The golden files are those of out "my-fabric" (the path is in the comments).
	rel, err := starter.Files(all.Registry(), "my-fabric", starter.Options{})
	if err != nil {
		t.Fatal(err)
	}
	testutil.Golden(t, "my-fabric/fabric.yaml", rel[0].Data)
	testutil.Golden(t, "my-fabric/roce-lossless.yaml", rel[1].Data)
}

// The profile is the repository's standard one, field for field, but for
// switchMtu: max, which every platform takes (9216 where the model has it).
func TestProfileIsTheStandardOne(t *testing.T) {
	std, err := fabric.Load(filepath.Join("..", "..", "profiles", "roce-lossless.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	files, err := starter.Files(all.Registry(), dir, starter.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := starter.Write(files, false); err != nil {
		t.Fatal(err)
	}
	ours := load(t, files[0].Path)
	want, got := profileJSON(t, std), profileJSON(t, ours)
	if len(want) < 100 || want != got {
		t.Errorf("the starter's profile differs from profiles/roce-lossless.yaml:\n got %s\nwant %s", got, want)
	}
	if sw := ours.Resolve().Switches[0]; sw.MTU != 9216 {
		t.Errorf("the cumulus leaf's MTU is %d, want 9216 (as the standard profile's)", sw.MTU)
	}
}

// Every registered platform, every layout: the starter validates and renders.
func TestEveryPlatformValidatesAndRenders(t *testing.T) {
	reg := all.Registry()
	for _, p := range reg.Names() {
		for _, out := range []string{"dir", "fabric.yaml"} {
			t.Run(p+"/"+out, func(t *testing.T) {
				path := filepath.Join(t.TempDir(), out)
				files, err := starter.Files(reg, path, starter.Options{Platform: p, Hosts: 3, Interfaces: []string{"ens1f0np0", "ens2f0np0"}})
				if err != nil {
					t.Fatal(err)
				}
				if err := starter.Write(files, false); err != nil {
					t.Fatal(err)
				}
				f := load(t, files[0].Path)
				if got := f.Spec.Switches[0].Platform; got != p {
					t.Errorf("platform %s, want %s", got, p)
				}
				if len(f.Spec.Hosts) != 3 || len(f.Spec.Hosts[2].Interfaces) != 2 {
					t.Errorf("hosts %+v: want three with two interfaces each", f.Spec.Hosts)
				}
				if _, err := render.Artifacts(context.Background(), f, reg, "", nil); err != nil {
					t.Errorf("render: %v", err)
				}
			})
		}
	}
}

// One file (the profile inline) for a .yaml path and for stdout.
func TestSingleFile(t *testing.T) {
	for _, out := range []string{"-", "starter.yml"} {
		files, err := starter.Files(all.Registry(), out, starter.Options{Name: "lab-b", SwitchPorts: []string{"swp1-4", "swp31"}})
		if err != nil {
			t.Fatal(err)
		}
		if len(files) != 1 || files[0].Path != out {
			t.Fatalf("%s: files %v, want one", out, paths(files))
		}
		if strings.Contains(string(files[0].Data), "include:") {
			t.Errorf("%s: includes a profile file; want it inline", out)
		}
		f, err := fabric.LoadBytes("x.yaml", files[0].Data, fabric.Options{Platforms: all.Registry()})
		if err != nil {
			t.Fatal(err)
		}
		if f.Metadata.Name != "lab-b" || strings.Join(f.Spec.Switches[0].Ports, ",") != "swp1-4,swp31" {
			t.Errorf("name %q ports %v", f.Metadata.Name, f.Spec.Switches[0].Ports)
		}
		if out == "-" {
			testutil.Golden(t, "stdout.yaml", files[0].Data)
		}
	}
}

// One host gets no pairwise check (it needs two).
func TestOneHost(t *testing.T) {
	files, err := starter.Files(all.Registry(), "-", starter.Options{Hosts: 1})
	if err != nil {
		t.Fatal(err)
	}
	f, err := fabric.LoadBytes("x.yaml", files[0].Data, fabric.Options{Platforms: all.Registry()})
	if err != nil {
		t.Fatal(err)
	}
	if f.Spec.Checks.Pairwise != nil {
		t.Errorf("pairwise %+v with one host", f.Spec.Checks.Pairwise)
	}
}

// Without force nothing is overwritten, and nothing at all is written when
// one file exists; with force both are replaced.
func TestWriteRefusesToOverwrite(t *testing.T) {
	dir := t.TempDir()
	prof := filepath.Join(dir, starter.ProfileFile)
	if err := os.WriteFile(prof, []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	files, err := starter.Files(all.Registry(), dir, starter.Options{})
	if err != nil {
		t.Fatal(err)
	}
	err = starter.Write(files, false)
	if err == nil || !strings.Contains(err.Error(), prof) || !strings.Contains(err.Error(), "--force") {
		t.Fatalf("error %v: want one naming %s and --force", err, prof)
	}
	if _, err := os.Stat(filepath.Join(dir, starter.FabricFile)); err == nil {
		t.Error("fabric.yaml was written although the profile file exists")
	}
	if b, _ := os.ReadFile(prof); string(b) != "mine\n" {
		t.Errorf("the existing file was changed: %q", b)
	}
	if err := starter.Write(files, true); err != nil {
		t.Fatal(err)
	}
	load(t, files[0].Path)
}

// What the flags may give is checked, and errors say which flag to change.
func TestBadOptions(t *testing.T) {
	reg := all.Registry()
	for _, c := range []struct {
		opt  starter.Options
		want string
	}{
		{starter.Options{Platform: "arista"}, `unknown platform "arista"`},
		{starter.Options{Hosts: -1}, "-1 is outside 1..200"},
		{starter.Options{Hosts: 33}, "the leaf has 32 ports; give more with --switch-ports"},
		{starter.Options{Interfaces: []string{"ens1 f0"}}, `"ens1 f0" is not a Linux interface name`},
		{starter.Options{Interfaces: []string{"eth0", "eth0"}}, "eth0 is given twice"},
		{starter.Options{Interfaces: []string{"mlx5_0"}}, "mlx5_0 is an RDMA device, not a netdev"},
		{starter.Options{SwitchPorts: []string{"Ethernet1-4"}}, "spec.switches[0].ports"},
		{starter.Options{Name: "Not A Name!"}, "metadata.name"},
	} {
		_, err := starter.Files(reg, "-", c.opt)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want one with %q", c.opt, err, c.want)
		}
	}
}

// profileJSON is roce-lossless of f as JSON, without switchMtu.
func profileJSON(t *testing.T, f *fabric.Fabric) string {
	t.Helper()
	b, err := json.Marshal(f.Profiles["roce-lossless"])
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	delete(m["spec"].(map[string]any)["ethernet"].(map[string]any), "switchMtu")
	b, _ = json.Marshal(m)
	return string(b)
}

func paths(files []starter.File) []string {
	var out []string
	for _, f := range files {
		out = append(out, f.Path)
	}
	return out
}
