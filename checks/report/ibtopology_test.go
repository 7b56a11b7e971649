package report

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/fabricctl/fabricctl/checks"
	"github.com/fabricctl/fabricctl/checks/topology"
	"github.com/fabricctl/fabricctl/fabric"
)

// ibFixture is an ib suite report on a small declared IB fabric: one cable
// degraded, one host cable with symbol errors, the rest healthy.
func ibFixture(hosts int) *Report {
	ep := func(d, p string) fabric.Endpoint { return fabric.Endpoint{Device: d, Port: p} }
	nodes := []topology.Node{{Name: "leaf-01"}, {Name: "spine-01"}}
	links := []topology.Link{{A: ep("leaf-01", "7"), B: ep("spine-01", "1")}}
	for i := 1; i <= hosts; i++ {
		h := fmt.Sprintf("ib-h%d", i)
		nodes = append(nodes, topology.Node{Name: h, Role: topology.RoleHost})
		links = append(links, topology.Link{A: ep(h, "1"), B: ep("leaf-01", fmt.Sprint(i))})
	}
	r := New("ib-lab", time.Date(2026, 12, 6, 4, 0, 0, 0, time.UTC), SuiteIB)
	r.Topology = topology.New(nodes, links)
	r.Add(checks.Result{ID: "ib/link", Target: "leaf-01:7 <-> spine-01:1", Status: checks.StatusFail, Class: checks.LowBandwidth,
		Summary: "degraded: leaf-01:7 trained 1X EDR, spine-01:1 trained 1X EDR, declared 4X EDR"},
		checks.Result{ID: "ib/counters", Target: "ib-h2:1 <-> leaf-01:2", Status: checks.StatusFail, Class: checks.CounterEvidence,
			Summary: "leaf-01:2: SymbolErrorCounter 57"},
		checks.Result{ID: "ib/link", Target: "ib-h1:1 <-> leaf-01:1", Status: checks.StatusPass, Summary: "Active/LinkUp at 4X EDR as declared"})
	r.Finished = r.Started.Add(time.Second)
	return r
}

func TestIBTopologyTable(t *testing.T) {
	var b bytes.Buffer
	if err := WriteTable(&b, ibFixture(2)); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, w := range []string{
		"INFINIBAND TOPOLOGY (as declared: 2 switches, 3 cables; 2 with a finding)",
		"  ib-h1:1 <-> leaf-01:1     ok",
		"  ib-h2:1 <-> leaf-01:2     FAIL  ib/counters: leaf-01:2: SymbolErrorCounter 57",
		"  leaf-01:7 <-> spine-01:1  FAIL  ib/link: degraded: leaf-01:7 trained 1X EDR",
	} {
		if !strings.Contains(out, w) {
			t.Errorf("table lacks %q:\n%s", w, out)
		}
	}
	// a big fabric lists its cables with findings and counts the others
	b.Reset()
	if err := WriteTable(&b, ibFixture(60)); err != nil {
		t.Fatal(err)
	}
	if out := b.String(); !strings.Contains(out, "… and 59 more cables, every one as declared and healthy") || strings.Contains(out, "ib-h9:1 <-> leaf-01:9") {
		t.Errorf("big fabric's table:\n%s", out)
	}
	// a report without the ib suite has no such section
	r := ibFixture(2)
	r.Results = nil
	b.Reset()
	if err := WriteTable(&b, r); err != nil || strings.Contains(b.String(), "INFINIBAND") {
		t.Errorf("%v\n%s", err, b.String())
	}
}

func TestIBTopologyHTMLAndJSON(t *testing.T) {
	var b bytes.Buffer
	if err := WriteHTML(&b, ibFixture(2)); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, w := range []string{"InfiniBand topology", "<th>Found</th>", `data-host="ib-h2" data-mark="suspect"`,
		"ib/counters: leaf-01:2: SymbolErrorCounter 57", "7 → spine-01:1 (FAIL: ib/link: degraded"} {
		if !strings.Contains(out, w) {
			t.Errorf("HTML lacks %q", w)
		}
	}
	b.Reset()
	if err := WriteJSON(&b, ibFixture(2)); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `"topology"`) || !strings.Contains(b.String(), `"ib/counters"`) {
		t.Errorf("JSON lacks the topology or the findings:\n%s", b.String())
	}
}
