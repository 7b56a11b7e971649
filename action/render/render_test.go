package render

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/internal/testutil"
	"github.com/fabricctl/fabricctl/switchcfg"
	"github.com/fabricctl/fabricctl/switchcfg/all"
	"github.com/fabricctl/fabricctl/testkit/fabricgen"
)

// BenchmarkRenderLarge renders every artifact of a 2,000-host, 200-switch,
// 64-partition fabric in memory (bench/validate.sh times the whole command).
func BenchmarkRenderLarge(b *testing.B) {
	dir := b.TempDir()
	if err := fabricgen.Write(dir, 2000, 200, 64); err != nil {
		b.Fatal(err)
	}
	f, err := fabric.Load(filepath.Join(dir, "fabric.yaml"), fabric.Options{Platforms: all.Registry()})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		arts, err := Artifacts(context.Background(), f, all.Registry(), "", nil)
		if err != nil {
			b.Fatal(err)
		}
		if len(arts) < 2400 {
			b.Fatalf("%d artifacts", len(arts))
		}
	}
}

// Rendering switch intents through the shared-tail encoder gives what
// encoding each intent whole gives.
func TestRenderSwitchIntentsMatchWholeEncoding(t *testing.T) {
	dir := t.TempDir()
	if err := fabricgen.Write(dir, 40, 25, 4); err != nil {
		t.Fatal(err)
	}
	for _, file := range []string{filepath.Join(dir, "fabric.yaml"), filepath.Join(testutil.RepoRoot(t), "profiles", "lab", "fabric.yaml")} {
		f, err := fabric.Load(file, fabric.Options{Platforms: all.Registry()})
		if err != nil {
			t.Fatal(err)
		}
		arts, err := Artifacts(context.Background(), f, all.Registry(), "", nil)
		if err != nil {
			t.Fatal(err)
		}
		byPath := map[string]string{}
		for _, a := range arts {
			byPath[a.Path] = a.Content
		}
		r := f.Resolve()
		for _, s := range r.Switches {
			want, err := MarshalYAML(s)
			if err != nil {
				t.Fatal(err)
			}
			if got := byPath["switches/"+s.Name+".intent.yaml"]; got != want {
				t.Errorf("%s: %s intent differs:\n%s\nwant\n%s", file, s.Name, got, want)
			}
		}
	}
}

// A failing sink (a full disk) stops rendering and reports a few errors,
// not one per target.
func TestRenderStopsAtTheFirstSinkError(t *testing.T) {
	dir := t.TempDir()
	if err := fabricgen.Write(dir, 300, 20, 4); err != nil {
		t.Fatal(err)
	}
	f, err := fabric.Load(filepath.Join(dir, "fabric.yaml"), fabric.Options{Platforms: all.Registry()})
	if err != nil {
		t.Fatal(err)
	}
	var calls atomic.Int64
	_, err = Artifacts(context.Background(), f, all.Registry(), "", func(a Artifact) error {
		calls.Add(1)
		return fmt.Errorf("writing %s: no space left on device", a.Path)
	})
	if err == nil {
		t.Fatal("no error")
	}
	if n := strings.Count(err.Error(), "no space left"); n < 1 || n > runtime.GOMAXPROCS(0) {
		t.Errorf("%d errors reported, want at least one and at most one per worker:\n%v", n, err)
	}
	if c := calls.Load(); c > int64(2*runtime.GOMAXPROCS(0)) {
		t.Errorf("the sink was called %d times after failing", c)
	}
}

// TestRenderWithUnknownGUIDs (issue 14): a fabric whose hosts' port GUIDs
// are not known yet renders every target; the partitions list those hosts
// as members to be discovered at plan time instead of failing the render.
func TestRenderWithUnknownGUIDs(t *testing.T) {
	text, err := os.ReadFile(filepath.Join(testutil.RepoRoot(t), "profiles", "lab", "fabric.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var kept []string
	for _, l := range strings.Split(string(text), "\n") {
		if !strings.Contains(l, "portGuids:") {
			kept = append(kept, l)
		}
	}
	name := filepath.Join(testutil.RepoRoot(t), "profiles", "lab", "no-guids.yaml")
	f, err := fabric.LoadBytes(name, []byte(strings.Join(kept, "\n")), fabric.Options{Platforms: all.Registry()})
	if err != nil {
		t.Fatal(err)
	}
	arts, err := Artifacts(context.Background(), f, all.Registry(), "", nil)
	if err != nil {
		t.Fatalf("render failed without port GUIDs: %v", err)
	}
	var sm string
	for _, a := range arts {
		if a.Kind == "subnet-manager" {
			sm = a.Content
		}
	}
	if n := strings.Count(sm, "discovered at plan time"); n == 0 || strings.Contains(sm, "0x5054") {
		t.Errorf("partitions.conf without GUIDs (%d pending members):\n%s", n, sm)
	}
}

// refusingSM is a subnet-manager kind whose renderer refuses everything, to
// show that validate's check reaches the kind's renderer.
type refusingSM struct{ switchcfg.SubnetManager }

func (refusingSM) Render(fabric.SubnetManagerIntent, map[string][]string) (string, error) {
	return "", errors.New("OpenSM would read the file differently from the intent: 3:1: test")
}

// TestCheckSubnetManagers: validate renders every subnet manager with its
// kind's renderer and names the manager whose rendering is refused; the lab
// fabric's renders.
func TestCheckSubnetManagers(t *testing.T) {
	f, err := fabric.Load(filepath.Join(testutil.RepoRoot(t), "profiles", "lab", "ib.yaml"), fabric.Options{Platforms: all.Registry()})
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckSubnetManagers(f, all.Registry()); err != nil {
		t.Errorf("the IB lab fabric: %v", err)
	}
	reg := switchcfg.NewRegistry()
	m, _ := all.Registry().SubnetManager("opensm")
	reg.AddSubnetManager(refusingSM{m})
	err = CheckSubnetManagers(f, reg)
	if err == nil || !strings.Contains(err.Error(), "subnet manager sm-01: OpenSM would read") {
		t.Errorf("refused rendering: %v", err)
	}
}
