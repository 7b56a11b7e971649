package opensm

import (
	"testing"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/google/go-cmp/cmp"
)

// checkRoundTrip renders parsed partitions, parses the result and renders it
// again: the two renderings must be identical, and the second parse must be
// exactly Desired(parts) and mean the same as parts.
func checkRoundTrip(t *testing.T, parts []fabric.PartitionIntent) {
	t.Helper()
	sm := fabric.SubnetManagerIntent{Name: "sm-01", Profile: "corpus", Partitions: parts}
	r1, err := Render(sm, nil)
	if err != nil {
		t.Fatalf("render: %v", err)
	}
	p2, err := Parse(r1)
	if err != nil {
		t.Fatalf("parse of the rendering: %v\n%s", err, r1)
	}
	want, err := Desired(parts, nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, p2); diff != "" {
		t.Errorf("Parse(Render(x)) != Desired(x) (-want +got):\n%s", diff)
	}
	r2, err := Render(fabric.SubnetManagerIntent{Name: "sm-01", Profile: "corpus", Partitions: p2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r1 != r2 {
		t.Errorf("render→parse→render is not stable:\n%s\n---\n%s", r1, r2)
	}
	// Same meaning, except for a default partition Render adds.
	for _, d := range Compare(parts, p2) {
		if !(d.PKey == DefaultPKey && d.Field == "partition" && d.Got == "present") {
			t.Errorf("rendering changed the meaning: %v", d)
		}
	}
}

func TestRoundTripFixture(t *testing.T) {
	parts, err := Parse(readFixture(t, "tenants.conf"))
	if err != nil {
		t.Fatal(err)
	}
	checkRoundTrip(t, parts)
}
