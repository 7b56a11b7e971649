package report

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/checks"
	"github.com/fabricctl/fabricctl/checks/topology"
	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/internal/testutil"
	"github.com/google/go-cmp/cmp"
)

// clos4 is a small fabric: two spines, two leaves, four hosts per leaf.
func clos4() *topology.Topology {
	var nodes []topology.Node
	var links []topology.Link
	for _, s := range []string{"spine-1", "spine-2"} {
		nodes = append(nodes, topology.Node{Name: s, Role: topology.RoleSpine})
	}
	for l := 1; l <= 2; l++ {
		leaf := fmt.Sprintf("leaf-%02d", l)
		nodes = append(nodes, topology.Node{Name: leaf, Role: topology.RoleLeaf})
		for h := 1; h <= 4; h++ {
			host := fmt.Sprintf("gpu-%d%d", l, h)
			nodes = append(nodes, topology.Node{Name: host, Role: topology.RoleHost})
			links = append(links, topology.Link{A: fabric.Endpoint{Device: host, Port: "ens1f0np0"}, B: fabric.Endpoint{Device: leaf, Port: fmt.Sprintf("swp%d", h)}})
		}
		for s := 1; s <= 2; s++ {
			links = append(links, topology.Link{A: fabric.Endpoint{Device: leaf, Port: fmt.Sprintf("swp3%d", s)},
				B: fabric.Endpoint{Device: fmt.Sprintf("spine-%d", s), Port: fmt.Sprintf("swp%d", l)}})
		}
	}
	return topology.New(nodes, links)
}

// localizationFixture is the report fixture with a localisation: a cable
// named exactly, an uplink the tests cannot tell from its sibling, and a
// cabling finding.
func localizationFixture() *Report {
	r := fixture()
	r.Topology = clos4()
	r.Suspects = []checks.Suspect{
		{Rank: 1, SuspectRef: checks.SuspectRef{Kind: checks.SuspectCable, Component: "cable:gpu-12:ens1f0np0",
			Name: "cable gpu-12:ens1f0np0 <-> leaf-01:swp2"}, Ends: []string{"gpu-12:ens1f0np0", "leaf-01:swp2"},
			Confidence: 0.97, Summary: "cable gpu-12:ens1f0np0 <-> leaf-01:swp2: 4 of 4 tests through it were bad (0 slow, 4 lossy)",
			Evidence: []string{"round 1: lossy gpu-12→gpu-11 3.1 Gb/s with loss", "leaf-01:swp2: in_fcs_errors +18211 (receive errors: the cable or optics arriving here)"}},
		{Rank: 2, SuspectRef: checks.SuspectRef{Kind: checks.SuspectUplink, Component: "link:leaf-02:swp31",
			Name: "uplink leaf-02:swp31 <-> spine-1:swp2"}, Ends: []string{"leaf-02:swp31", "spine-1:swp2"},
			Confidence: 0.5, Summary: "one of the 2 uplinks of leaf leaf-02: 3 of 24 tests that may cross it were bad",
			Alternatives: []checks.SuspectRef{{Kind: checks.SuspectUplink, Component: "link:leaf-02:swp32", Name: "uplink leaf-02:swp32 <-> spine-2:swp2"}}},
	}
	r.Cabling = []topology.Finding{{Kind: topology.WrongPort, At: fabric.Endpoint{Device: "gpu-21", Port: "ens1f0np0"},
		Declared: &fabric.Endpoint{Device: "leaf-02", Port: "swp1"}, Discovered: &fabric.Endpoint{Device: "leaf-02", Port: "swp9"},
		Message: "gpu-21:ens1f0np0 is on leaf-02:swp9, declared leaf-02:swp1 (same switch, another port)"}}
	good, bad := 9.61, 3.05
	cable := checks.SuspectRef{Kind: checks.SuspectCable, Component: "cable:gpu-12:ens1f0np0", Name: "cable gpu-12:ens1f0np0 <-> leaf-01:swp2"}
	r.Retests = []RetestRound{{Round: 1, Splits: []string{"no suspect explains the bad test(s) gpu-12→gpu-21"}, Pairs: []Retest{
		{Pair: Pair{A: "gpu-11", B: "gpu-12", DeviceA: "mlx5_0", DeviceB: "mlx5_0", Test: "write_bw", Value: &bad, Unit: checks.UnitGbps,
			Status: checks.StatusFail, Class: checks.CounterEvidence, Summary: "out_of_sequence +1841"}, For: cable},
		{Pair: Pair{A: "gpu-21", B: "gpu-22", DeviceA: "mlx5_0", DeviceB: "mlx5_0", Test: "write_bw", Value: &good, Unit: checks.UnitGbps,
			Status: checks.StatusPass}, For: checks.SuspectRef{Kind: checks.SuspectCable, Component: "cable:gpu-21:ens1f0np0", Name: "cable gpu-21:ens1f0np0 <-> leaf-02:swp1"}},
	}}}
	r.RetestStop = "exact"
	return r
}

func TestLocalizationGolden(t *testing.T) {
	r := localizationFixture()
	testutil.Golden(t, "localisation.table.golden", render(t, WriteTable, r))
	testutil.Golden(t, "localisation.html.golden", render(t, WriteHTML, r))
	table := string(render(t, WriteTable, r))
	for _, want := range []string{
		"\nSUSPECTS\n1. CABLE  cable gpu-12:ens1f0np0 <-> leaf-01:swp2  (confidence 97%)\n",
		"   or one of: uplink leaf-02:swp32 <-> spine-2:swp2\n",
		"\nCABLING\nWRONG-PORT  gpu-21:ens1f0np0 is on leaf-02:swp9",
		"\nRE-TESTS (to localise; no verdict counts them; stopped: exact)\nround 1 to split: no suspect explains the bad test(s) gpu-12→gpu-21\n",
		"  FAIL  gpu-11/mlx5_0->gpu-12/mlx5_0  3.05 Gb/s  for cable gpu-12:ens1f0np0 <-> leaf-01:swp2: out_of_sequence +1841\n",
		"  PASS  gpu-21/mlx5_0->gpu-22/mlx5_0  9.61 Gb/s  for cable gpu-21:ens1f0np0 <-> leaf-02:swp1\n",
	} {
		if !strings.Contains(table, want) {
			t.Errorf("table lacks %q", want)
		}
	}
}

func TestLocalizationJSONRoundTrip(t *testing.T) {
	r := localizationFixture()
	out := render(t, WriteJSON, r)
	back, err := ReadJSON(bytes.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(r.Suspects, back.Suspects); d != "" {
		t.Errorf("suspects (-want +got):\n%s", d)
	}
	if d := cmp.Diff(r.Retests, back.Retests); d != "" || back.RetestStop != "exact" {
		t.Errorf("retests (-want +got):\n%s", d)
	}
	if !back.Retested("gpu-12", "gpu-11") || back.Retested("gpu-12", "gpu-21") {
		t.Error("Retested")
	}
	if d := cmp.Diff(r.Cabling, back.Cabling); d != "" {
		t.Errorf("cabling (-want +got):\n%s", d)
	}
	if d := cmp.Diff(r.Topology.Links, back.Topology.Links); d != "" {
		t.Errorf("topology links (-want +got):\n%s", d)
	}
	if again := render(t, WriteJSON, back); !bytes.Equal(out, again) {
		t.Error("writing the report read back differs")
	}
	// A report read back still draws: the topology is rebuilt.
	if html := string(render(t, WriteHTML, back)); !strings.Contains(html, `data-component="link:leaf-02:swp31"`) {
		t.Error("HTML of a report read back lacks the drawing")
	}
}

func TestLocalizationValidate(t *testing.T) {
	cases := map[string]func(r *Report){
		"unknown kind":       func(r *Report) { r.Suspects[0].Kind = "optic" },
		"rank out of order":  func(r *Report) { r.Suspects[1].Rank = 5 },
		"confidence above 1": func(r *Report) { r.Suspects[0].Confidence = 1.5 },
		"no component":       func(r *Report) { r.Suspects[0].Component = "" },
		"bad alternative":    func(r *Report) { r.Suspects[1].Alternatives[0].Kind = "" },
		"link to nowhere": func(r *Report) {
			r.Topology.Links = append(r.Topology.Links, topology.Link{A: fabric.Endpoint{Device: "gpu-99", Port: "eth0"}, B: fabric.Endpoint{Device: "leaf-01", Port: "swp9"}})
		},
		"finding without endpoint": func(r *Report) { r.Cabling[0].At = fabric.Endpoint{} },
		"re-test round 0":          func(r *Report) { r.Retests[0].Round = 0 },
		"re-test without host":     func(r *Report) { r.Retests[0].Pairs[1].B = "" },
		"re-test without status":   func(r *Report) { r.Retests[0].Pairs[0].Status = "" },
	}
	for name, spoil := range cases {
		r := localizationFixture()
		spoil(r)
		var b bytes.Buffer
		if err := WriteJSON(&b, r); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: %v, want ErrInvalid", name, err)
		}
	}
}

var markRE = regexp.MustCompile(`data-component="([^"]+)" data-mark="(suspect|alternative)"`)

// TestDrawingMarksSuspects: the drawing marks exactly the suspects' and
// their alternatives' elements: red for the cable named exactly (its host
// NIC square), amber for the uplink and the sibling it cannot be told from.
func TestDrawingMarksSuspects(t *testing.T) {
	html := string(render(t, WriteHTML, localizationFixture()))
	got := map[string]string{}
	for _, m := range markRE.FindAllStringSubmatch(html, -1) {
		got[m[1]] = m[2]
	}
	want := map[string]string{
		"nic:gpu-12:ens1f0np0 cable:gpu-12:ens1f0np0 port:leaf-01:swp2": "suspect",
		"link:leaf-02:swp31": "alternative",
		"link:leaf-02:swp32": "alternative",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("marked elements (-want +got):\n%s", d)
	}
	var nics []string
	for _, m := range regexp.MustCompile(`data-endpoint="([^"]+)"`).FindAllStringSubmatch(html, -1) {
		nics = append(nics, m[1])
	}
	if len(nics) != 8 || !slices.Contains(nics, "gpu-24:ens1f0np0") {
		t.Errorf("NIC squares %v, want the 8 hosts", nics)
	}
	if strings.Count(html, `class="uplink`) != 4 {
		t.Errorf("%d uplinks drawn, want 4", strings.Count(html, `class="uplink`))
	}
}

// TestNoLocalizationNoSection: a report without suspects, topology or
// findings has no localisation section and no SUSPECTS table section.
func TestNoLocalizationNoSection(t *testing.T) {
	r := fixture()
	if html := string(render(t, WriteHTML, r)); strings.Contains(html, `id="localisation"`) {
		t.Error("empty localisation section")
	}
	if table := string(render(t, WriteTable, r)); strings.Contains(table, "SUSPECTS") || strings.Contains(table, "CABLING") {
		t.Error("empty localisation table sections")
	}
}
