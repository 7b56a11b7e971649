package check

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/checks/localize"
	"github.com/fabricctl/fabricctl/checks/rdma"
	"github.com/fabricctl/fabricctl/checks/topology"
	"github.com/fabricctl/fabricctl/fabric"
)

// clos is two leaves of four hosts each under two spines, one cable per
// leaf and spine: gpu-0N:eth0 on leaf-0L:swpN, leaf-0L:swp49 to spine-01,
// swp50 to spine-02.
func clos(t *testing.T) *topology.Topology {
	t.Helper()
	var nodes []topology.Node
	var links []topology.Link
	ep := func(d, p string) fabric.Endpoint { return fabric.Endpoint{Device: d, Port: p} }
	for _, sw := range []string{"leaf-01", "leaf-02", "spine-01", "spine-02"} {
		nodes = append(nodes, topology.Node{Name: sw})
	}
	for h := 1; h <= 8; h++ {
		name, leaf := fmt.Sprintf("gpu-%02d", h), fmt.Sprintf("leaf-%02d", (h-1)/4+1)
		nodes = append(nodes, topology.Node{Name: name, Role: topology.RoleHost})
		links = append(links, topology.Link{A: ep(name, "eth0"), B: ep(leaf, fmt.Sprintf("swp%d", (h-1)%4+1))})
	}
	for l := 1; l <= 2; l++ {
		for s := 1; s <= 2; s++ {
			links = append(links, topology.Link{A: ep(fmt.Sprintf("leaf-%02d", l), fmt.Sprintf("swp%d", 48+s)), B: ep(fmt.Sprintf("spine-%02d", s), fmt.Sprintf("swp%d", l))})
		}
	}
	topo := topology.New(nodes, links)
	if err := topo.Validate(); err != nil {
		t.Fatal(err)
	}
	return topo
}

func known(sws ...string) rdma.LearnedPath {
	return rdma.LearnedPath{Switches: sws, Known: true, Deterministic: true}
}

func TestPathRoutes(t *testing.T) {
	topo := clos(t)
	paths := []PairPath{
		{Client: "gpu-01", Server: "gpu-05", There: known("leaf-01", "spine-02", "leaf-02"), Back: known("leaf-02", "spine-01", "leaf-01")},
		// The leaves bridge, only the spine answers: the cabling puts them back.
		{Client: "gpu-02", Server: "gpu-06", There: known("spine-01"), Back: rdma.LearnedPath{Why: rdma.NotObservableOnLink}},
		{Client: "gpu-03", Server: "gpu-07", There: known("leaf-02", "spine-01", "leaf-01"), Back: rdma.LearnedPath{Why: "hop 2 did not answer: the path has a gap"}},
	}
	routes, notes := PathRoutes(topo, paths)
	if routes == nil {
		t.Fatalf("no routes; notes %q", notes)
	}
	ep := func(s string) fabric.Endpoint {
		e, err := fabric.ParseEndpoint(s)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	cases := []struct {
		src, dst string
		want     []string
	}{
		{"gpu-01:eth0", "gpu-05:eth0", []string{"gpu-01:eth0", "leaf-01:swp50", "spine-02:swp2", "leaf-02:swp1"}},
		{"gpu-05:eth0", "gpu-01:eth0", []string{"gpu-05:eth0", "leaf-02:swp49", "spine-01:swp1", "leaf-01:swp1"}},
		{"gpu-02:eth0", "gpu-06:eth0", []string{"gpu-02:eth0", "leaf-01:swp49", "spine-01:swp2", "leaf-02:swp2"}},
	}
	for _, c := range cases {
		got, err := routes.Path(topo, ep(c.src), ep(c.dst))
		var s []string
		for _, e := range got {
			s = append(s, e.String())
		}
		if err != nil || !slices.Equal(s, c.want) {
			t.Errorf("Path(%s, %s) = %v, %v; want %v", c.src, c.dst, s, err, c.want)
		}
	}
	if _, traced := routes.Len(); traced != 3 {
		t.Errorf("%d traced paths, want 3 (the three known directions)", traced)
	}
	wantNotes := []string{
		"gpu-06 → gpu-02: " + rdma.NotObservableOnLink,
		"gpu-03 → gpu-07: the path does not follow the cabling: the trace starts at leaf-02, not at leaf-01 (gpu-03's leaf)",
		"gpu-07 → gpu-03: hop 2 did not answer: the path has a gap",
	}
	if !slices.Equal(notes, wantNotes) {
		t.Errorf("notes\n%q\nwant\n%q", notes, wantNotes)
	}
	if r, n := PathRoutes(topo, []PairPath{{Client: "gpu-01", Server: "gpu-09"}}); r != nil || len(n) != 1 || !strings.Contains(n[0], "gpu-09 has 0 cabled NICs") {
		t.Errorf("an uncabled server: %v %q", r, n)
	}
}

func TestEgressRefusesWhatTheCablingCannotSay(t *testing.T) {
	topo := clos(t)
	src, dst := fabric.Endpoint{Device: "gpu-01", Port: "eth0"}, fabric.Endpoint{Device: "gpu-05", Port: "eth0"}
	for _, sws := range [][]string{
		{"leaf-01", "leaf-02"},              // no cable joins the leaves
		{"leaf-01", "spine-01", "spine-02"}, // ends at a spine cabled to no end
		{},
	} {
		if _, err := Egress(topo, src, dst, sws); !errors.Is(err, ErrPathCabling) {
			t.Errorf("Egress(%v) = %v, want ErrPathCabling", sws, err)
		}
	}
	// Two cables between one leaf and one spine: a trace names switches, not ports.
	par := topology.New(topo.Nodes, append(slices.Clone(topo.Links), topology.Link{A: fabric.Endpoint{Device: "leaf-01", Port: "swp51"}, B: fabric.Endpoint{Device: "spine-01", Port: "swp3"}}))
	if _, err := Egress(par, src, dst, []string{"leaf-01", "spine-01", "leaf-02"}); !errors.Is(err, ErrPathCabling) || !strings.Contains(err.Error(), "2 cables join leaf-01 and spine-01") {
		t.Errorf("parallel cables: %v", err)
	}
}

// TestPinnedPathsNameTheUplink: with every test's path known, a lossy
// uplink is named alone; with ECMP hidden, the localiser can only name the
// leaf's uplinks as a group (issue 32: "hosts-paths" against "hosts").
func TestPinnedPathsNameTheUplink(t *testing.T) {
	topo := clos(t)
	var obs []localize.Observation
	var paths []PairPath
	for c := 1; c <= 4; c++ {
		for s := 5; s <= 8; s++ {
			// Each pair's label, hence its path, is its own: half go by each spine.
			spine := []string{"spine-01", "spine-02"}[(c+s)%2]
			back := []string{"spine-01", "spine-02"}[(c+s+1)%2]
			client, server := fmt.Sprintf("gpu-%02d", c), fmt.Sprintf("gpu-%02d", s)
			paths = append(paths, PairPath{Client: client, Server: server, There: known("leaf-01", spine, "leaf-02"), Back: known("leaf-02", back, "leaf-01")})
			o := localize.Observation{Client: client, Server: server, Gbps: 95}
			if spine == "spine-02" { // leaf-01:swp50 drops what it sends up
				o.Gbps, o.Loss = 3, true
			}
			obs = append(obs, o)
		}
	}
	for _, pair := range [][2]string{{"gpu-01", "gpu-02"}, {"gpu-03", "gpu-04"}, {"gpu-05", "gpu-06"}, {"gpu-07", "gpu-08"}} {
		obs = append(obs, localize.Observation{Client: pair[0], Server: pair[1], Gbps: 95})
	}
	analyse := func(routes *localize.Routes) []string {
		m, err := localize.NewRoutedModel(topo, routes, localize.Options{})
		if err != nil {
			t.Fatal(err)
		}
		l := localize.New(m, localize.Options{})
		if err := l.Add(obs...); err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, s := range l.Analyze().Suspects {
			out = append(out, s.Component)
		}
		return out
	}
	routes, notes := PathRoutes(topo, paths)
	if len(notes) != 0 {
		t.Fatalf("notes %q", notes)
	}
	got := analyse(routes)
	if len(got) != 1 || got[0] != "link:leaf-01:swp50" {
		t.Errorf("with pinned paths: suspects %v, want the one uplink link:leaf-01:swp50", got)
	}
	hidden := analyse(nil)
	t.Logf("suspects with pinned paths %v, without %v", got, hidden)
	if slices.Equal(hidden, got) {
		t.Errorf("without paths the suspects are the same (%v): the paths added nothing", hidden)
	}
}
