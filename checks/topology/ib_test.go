package topology

import (
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/fabric"
)

func TestDeclaredIB(t *testing.T) {
	f, err := fabric.Load("../ibfabric/testdata/demo.yaml", fabric.Options{})
	if err != nil {
		t.Fatal(err)
	}
	d := DeclaredIB(f)
	if len(d.Links) != 7 || d.Role("leaf-01") != RoleLeaf || d.Role("spine-01") != RoleSpine || d.Role("sm-01") != RoleHost {
		t.Fatalf("declared IB topology: %d links, roles leaf-01 %s spine-01 %s sm-01 %s", len(d.Links), d.Role("leaf-01"), d.Role("spine-01"), d.Role("sm-01"))
	}
	if l := d.LinksOf("lab-h1"); len(l) != 1 || l[0].String() != "lab-h1:1 <-> leaf-01:1" || l[0].Kind != Access {
		t.Errorf("lab-h1's cable: %v", l)
	}
	f.Spec.InfiniBand = nil
	if DeclaredIB(f) != nil {
		t.Error("a fabric without spec.infiniband has no IB topology")
	}
}

// TestCompareFromIB: a missing cable speaks of ibnetdiscover, not LLDP.
func TestCompareFromIB(t *testing.T) {
	nodes := []Node{{Name: "h1", Role: RoleHost}, {Name: "leaf-01"}}
	declared := New(nodes, []Link{{A: fabric.Endpoint{Device: "h1", Port: "1"}, B: fabric.Endpoint{Device: "leaf-01", Port: "1"}}})
	fs := CompareFrom(IBNetDiscover, declared, New(nodes, nil), []string{"h1", "leaf-01"})
	if len(fs) != 1 || fs[0].Kind != Missing || !strings.Contains(fs[0].Message, "ibnetdiscover found no cable") {
		t.Fatalf("%+v", fs)
	}
	fs = Compare(declared, New(nodes, nil), []string{"h1"})
	if len(fs) != 1 || !strings.Contains(fs[0].Message, "no LLDP neighbour on h1:1") {
		t.Fatalf("%+v", fs)
	}
}
