package ibcheck

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/checks/ibdiag"
	"github.com/fabricctl/fabricctl/checks/ibfabric"
	"github.com/fabricctl/fabricctl/checks/localize"
	"github.com/fabricctl/fabricctl/checks/topology"
	"github.com/fabricctl/fabricctl/fabric"
)

// replay is a Runner that prints captures: files[argv joined by spaces],
// or, when dir is set, dir/<argv joined by _>.txt; a command with neither
// cannot run.
type replay struct {
	dir   string
	files map[string]string
}

func (r replay) RunDiag(_ context.Context, argv []string) (Output, error) {
	p, ok := r.files[strings.Join(argv, " ")]
	if !ok && r.dir != "" {
		p, ok = filepath.Join(r.dir, strings.Join(argv, "_")+".txt"), true
	}
	if !ok {
		return Output{}, errors.New("running " + argv[0] + ": not captured")
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return Output{}, err
	}
	return Output{Stdout: b}, nil
}

func declare(t *testing.T, path string) (*fabric.Fabric, *ibfabric.Declared) {
	t.Helper()
	f, err := fabric.Load(path, fabric.Options{})
	if err != nil {
		t.Fatal(err)
	}
	d, err := ibfabric.Declare(f)
	if err != nil {
		t.Fatal(err)
	}
	return f, d
}

func ep(s string) fabric.Endpoint {
	dev, port, _ := strings.Cut(s, ":")
	return fabric.Endpoint{Device: dev, Port: port}
}

// TestReadLocalizationLabCaptures replays what the lab of
// profiles/lab/ib.yaml printed (lab/iblab's localize tests capture it;
// there the paths are checked against ibtracert): dump_fts gives every
// switch's route to every CA port, perfquery every port's counters, all
// named as the fabric file names them, and the symbol errors set on
// leaf-02 port 7 are the one counter that moved.
func TestReadLocalizationLabCaptures(t *testing.T) {
	f, d := declare(t, "../../profiles/lab/ib.yaml")
	dir := filepath.Join("testdata", "localize", "ib-lab")
	healthy, err := ReadLocalization(context.Background(), d, Options{Runner: replay{dir: filepath.Join(dir, "healthy")}})
	if err != nil {
		t.Fatal(err)
	}
	if healthy.RoutesErr != nil || len(healthy.Unread) != 0 {
		t.Fatalf("routes %v, unread %q", healthy.RoutesErr, healthy.Unread)
	}
	if n, _ := healthy.Routes.Len(); n != 3*5 {
		t.Errorf("%d forwarding entries, want 3 switches × 5 CA ports", n)
	}
	want := []string{"ib-h1", "ib-h2", "ib-h3", "ib-h4", "leaf-01", "leaf-02", "sm-01", "spine-01"}
	if !slices.Equal(healthy.Read, want) {
		t.Errorf("read %q, want %q", healthy.Read, want)
	}
	topo := topology.DeclaredIB(f)
	got, err := healthy.Routes.Path(topo, ep("ib-h1:1"), ep("ib-h4:1"))
	if w := []fabric.Endpoint{ep("ib-h1:1"), ep("leaf-01:7"), ep("spine-01:2"), ep("leaf-02:2")}; err != nil || !slices.Equal(got, w) {
		t.Errorf("ib-h1 to ib-h4: %v %v, want %v", got, err, w)
	}
	faulty, err := ReadLocalization(context.Background(), d, Options{Runner: replay{dir: filepath.Join(dir, "symbol-errors-leaf-02-7")}})
	if err != nil {
		t.Fatal(err)
	}
	read, moved := localize.Deltas(healthy.Readings, faulty.Readings)
	for _, l := range topo.Links {
		if !slices.Contains(read, l.A) || !slices.Contains(read, l.B) {
			t.Errorf("%s: an end not read", l)
		}
	}
	w := localize.Counter{At: ep("leaf-02:7"), Kind: localize.PhyErrors, Name: "SymbolErrorCounter", Delta: 40}
	if len(moved) != 1 || moved[0] != w {
		t.Errorf("moved %v, want %v", moved, w)
	}
}

// TestReadLocalizationIBDiagCaptures reads checks/ibdiag's captures of
// the three-switch lab: without dump_fts, ibroute runs per switch, and
// leaf-02's table, never captured, is named; the tables read give the
// paths ibtracert traced, and perfquery's blocks become readings at the
// declared ports (the injected errors on leaf-02 port 1; lab-h1's
// saturated counter is no reading).
func TestReadLocalizationIBDiagCaptures(t *testing.T) {
	_, d := declare(t, "../../checks/ibfabric/testdata/demo.yaml")
	lab := func(name string) string {
		return filepath.Join("..", "..", "checks", "ibdiag", "testdata", "lab", name)
	}
	o := Options{Runner: replay{files: map[string]string{
		"ibnetdiscover -p":   lab("healthy-ibnetdiscover-p.txt"),
		"ibroute 3":          lab("healthy-ibroute-leaf01.txt"),
		"ibroute 2":          lab("healthy-ibroute-spine.txt"),
		"perfquery 4 1":      lab("faulty-perfquery-h1.txt"),
		"perfquery -l 8 255": lab("faulty-perfquery-leaf02-p1.txt"),
	}}}
	loc, err := ReadLocalization(context.Background(), d, o)
	if err != nil {
		t.Fatal(err)
	}
	if loc.RoutesErr == nil || !strings.Contains(loc.RoutesErr.Error(), "forwarding table of leaf-02") || loc.Routes != nil {
		t.Errorf("routes without leaf-02's table: %v", loc.RoutesErr)
	}
	if !slices.Equal(loc.Read, []string{"lab-h1", "leaf-02"}) || len(loc.Unread) != 6 {
		t.Errorf("read %q, unread %q", loc.Read, loc.Unread)
	}
	var at []string
	for _, r := range loc.Readings {
		if r.Name == "SymbolErrorCounter" {
			at = append(at, r.At.String())
		}
	}
	// lab-h1's SymbolErrorCounter is saturated (65535): no reading
	if !slices.Equal(at, []string{"leaf-02:1"}) {
		t.Errorf("symbol error readings at %q, want leaf-02:1 alone", at)
	}

	net, err := ibdiag.ParseIBNetDiscover(readCapture(t, lab("healthy-ibnetdiscover-p.txt")))
	if err != nil {
		t.Fatal(err)
	}
	var tables []ibdiag.LFT
	for _, name := range []string{"healthy-ibroute-leaf01.txt", "healthy-ibroute-spine.txt"} {
		r, err := ibdiag.ParseIBRoute(readCapture(t, lab(name)))
		if err != nil {
			t.Fatal(err)
		}
		tables = append(tables, r.Tables...)
	}
	routes, err := IBRoutes(d, net.PortLines, tables)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := ibdiag.ParseIBTracert(readCapture(t, lab("healthy-ibtracert.txt")))
	if err != nil {
		t.Fatal(err)
	}
	traced, err := localize.IBRoutes(nil, nil, []*ibdiag.Trace{tr}, nil)
	if err != nil {
		t.Fatal(err)
	}
	topo := d.Topology
	h1, h4 := ep("lab-h1:1"), ep("lab-h4:1")
	trace, err := traced.Path(topo, h1, h4)
	if err != nil {
		t.Fatal(err)
	}
	// The tables reach leaf-02 as the trace does, and stop there.
	if _, err := routes.Path(topo, h1, h4); err == nil || !strings.Contains(err.Error(), "leaf-02 forwards nothing") {
		t.Errorf("lab-h1 to lab-h4 without leaf-02's table: %v", err)
	}
	routes.Forward("leaf-02", h4, trace[len(trace)-1].Port)
	if got, err := routes.Path(topo, h1, h4); err != nil || !slices.Equal(got, trace) {
		t.Errorf("lab-h1 to lab-h4: tables %v (%v), ibtracert %v", got, err, trace)
	}
}

func readCapture(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
