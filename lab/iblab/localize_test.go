package iblab

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fabricctl/fabricctl/action/ibcheck"
	"github.com/fabricctl/fabricctl/checks/ibdiag"
	"github.com/fabricctl/fabricctl/checks/ibfabric"
	"github.com/fabricctl/fabricctl/checks/localize"
	"github.com/fabricctl/fabricctl/checks/topology"
	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/switchcfg/opensm"
)

// What the localiser reads of an InfiniBand fabric in `check`
// (ibcheck.ReadLocalization): the routes of OpenSM's forwarding tables
// must be the paths ibtracert traces, and the port counters must show an
// error injected on one port, named as the fabric file names the port.
//
// With FABRICCTL_IBLOC_CAPTURE=1 the tests write what the diagnostics
// printed to action/ibcheck/testdata/localize/<fabric>/<phase>/, the
// captures action/ibcheck's and action/check's tests replay.

// localizeLab starts the lab of the fabric file path.
func localizeLab(t *testing.T, path string) (*Lab, *fabric.Fabric) {
	t.Helper()
	needLab(t)
	f, err := fabric.Load(path, fabric.Options{})
	if err != nil {
		t.Fatal(err)
	}
	topo, guids, err := FromFabric(f)
	if err != nil {
		t.Fatal(err)
	}
	conf, err := opensm.Render(f.Resolve().SubnetManagers[0], guids)
	if err != nil {
		t.Fatal(err)
	}
	l, err := Up(context.Background(), Options{Dir: t.TempDir(), Topology: topo, Partitions: []byte(conf)}, testLog{t})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := l.Down(context.Background()); err != nil {
			t.Error(err)
		}
	})
	return l, f
}

// recorder is an ibcheck.Runner that keeps what each tool printed in dir
// (none when dir is "").
type recorder struct {
	ibcheck.Runner
	t   *testing.T
	dir string
}

func (r recorder) RunDiag(ctx context.Context, argv []string) (ibcheck.Output, error) {
	out, err := r.Runner.RunDiag(ctx, argv)
	if err == nil && r.dir != "" {
		if err := os.MkdirAll(r.dir, 0o755); err != nil {
			r.t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(r.dir, strings.Join(argv, "_")+".txt"), out.Stdout, 0o644); err != nil {
			r.t.Fatal(err)
		}
	}
	return out, err
}

// readLocalization reads the lab at the SM's node, recording into
// captures/<fabric>/<phase> when asked to.
func readLocalization(t *testing.T, l *Lab, f *fabric.Fabric, phase string) (*ibcheck.Localization, *ibfabric.Declared) {
	t.Helper()
	d, err := ibfabric.Declare(f)
	if err != nil {
		t.Fatal(err)
	}
	dir := ""
	if os.Getenv("FABRICCTL_IBLOC_CAPTURE") != "" {
		dir = filepath.Join("..", "..", "action", "ibcheck", "testdata", "localize", f.Metadata.Name, phase)
	}
	o := ibcheck.Options{Runner: recorder{Runner: ibcheck.ExecRunner{Env: l.Env(""), Dir: l.ClientsDir()}, t: t, dir: dir}, Timeout: 20 * time.Second}
	start := time.Now()
	loc, err := ibcheck.ReadLocalization(context.Background(), d, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: read %d forwarding entries and %d counters of %d nodes in %v", phase, entries(loc.Routes), len(loc.Readings), len(loc.Read), time.Since(start).Round(time.Millisecond))
	if loc.RoutesErr != nil || len(loc.Unread) > 0 {
		t.Fatalf("routes: %v; unread: %q", loc.RoutesErr, loc.Unread)
	}
	return loc, d
}

func entries(r *localize.Routes) int {
	if r == nil {
		return 0
	}
	n, _ := r.Len()
	return n
}

// TestLocalizeRoutesAreIBTracert: for every ordered pair of CA ports of
// both lab fabrics, the path through the forwarding tables read is the
// path ibtracert traces between their LIDs.
func TestLocalizeRoutesAreIBTracert(t *testing.T) {
	for _, path := range []string{labFabric, "../../action/check/testdata/ib-3leaf.yaml"} {
		t.Run(filepath.Base(path), func(t *testing.T) {
			l, f := localizeLab(t, path)
			loc, _ := readLocalization(t, l, f, "healthy")
			topo := topology.DeclaredIB(f)
			out, err := l.Diag(context.Background(), "", "ibnetdiscover", "-p")
			if err != nil {
				t.Fatal(err)
			}
			net, err := ibdiag.ParseIBNetDiscover(string(out))
			if err != nil {
				t.Fatal(err)
			}
			var cas []ibdiag.PortEnd
			for _, p := range net.PortLines {
				if p.Local.Type == ibdiag.CA {
					cas = append(cas, p.Local)
				}
			}
			if len(cas) != len(f.IBNodes())-len(f.Spec.InfiniBand.Switches) {
				t.Fatalf("%d CA ports in the subnet", len(cas))
			}
			spines := map[string]bool{}
			for _, a := range cas {
				for _, b := range cas {
					if a == b {
						continue
					}
					out, err := l.Diag(context.Background(), "", "ibtracert", strconv.Itoa(a.LID), strconv.Itoa(b.LID))
					if err != nil {
						t.Fatal(err)
					}
					tr, err := ibdiag.ParseIBTracert(string(out))
					if err != nil {
						t.Fatal(err)
					}
					traced, err := localize.IBRoutes(nil, nil, []*ibdiag.Trace{tr}, nil)
					if err != nil {
						t.Fatal(err)
					}
					src, dst := fabric.Endpoint{Device: a.Desc, Port: strconv.Itoa(a.Port)}, fabric.Endpoint{Device: b.Desc, Port: strconv.Itoa(b.Port)}
					want, err := traced.Path(topo, src, dst)
					if err != nil {
						t.Fatal(err)
					}
					got, err := loc.Routes.Path(topo, src, dst)
					if err != nil || !slices.Equal(got, want) {
						t.Errorf("%s to %s: the tables give %v (%v), ibtracert %v", src, dst, got, err, want)
					}
					for _, e := range got {
						if strings.HasPrefix(e.Device, "spine") {
							spines[e.Device] = true
						}
					}
				}
			}
			if want := f.Spec.InfiniBand.Switches[0].Name; !spines[want] {
				t.Errorf("no path crosses %s: %v", want, spines)
			}
		})
	}
}

// TestLocalizeCountersSeeSymbolErrors: every cabled port's counters are
// read, and symbol errors set on one port (ibsim PerformanceSet) appear
// there, and only there, under the port's declared name.
func TestLocalizeCountersSeeSymbolErrors(t *testing.T) {
	l, f := localizeLab(t, labFabric)
	before, _ := readLocalization(t, l, f, "healthy")
	if reply, err := l.Sim(context.Background(), `PerformanceSet "leaf-02"[7] PortCounters.SymbolErrorCounter=40`); err != nil || strings.HasPrefix(reply, "#") {
		t.Fatalf("PerformanceSet: %q %v", reply, err)
	}
	after, _ := readLocalization(t, l, f, "symbol-errors-leaf-02-7")
	read, moved := localize.Deltas(before.Readings, after.Readings)
	topo := topology.DeclaredIB(f)
	for _, link := range topo.Links {
		for _, e := range []fabric.Endpoint{link.A, link.B} {
			if !slices.Contains(read, e) {
				t.Errorf("%s: counters not read", e)
			}
		}
	}
	want := localize.Counter{At: fabric.Endpoint{Device: "leaf-02", Port: "7"}, Kind: localize.PhyErrors, Name: "SymbolErrorCounter", Delta: 40}
	if len(moved) != 1 || moved[0] != want {
		t.Errorf("moved %v, want %v", moved, want)
	}
}
