package opensm

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/internal/testutil"
	"github.com/google/go-cmp/cmp"
)

// labIntent is shaped like what fabric.Resolve produces for the DESIGN.md
// profile: a storage partition with a host selector and a raw GUID.
func labIntent() (fabric.SubnetManagerIntent, map[string][]string) {
	sm := fabric.SubnetManagerIntent{
		APIVersion: fabric.APIVersion, Name: "sm-01", Kind: "opensm", Address: "10.0.2.1",
		Profile: "ib-tenants", PartitionsFile: "/etc/opensm/partitions.conf",
		Partitions: []fabric.PartitionIntent{
			{Name: "tenant-b", PKey: 0x0003, ServiceLevel: -1, DefaultMembership: "full",
				Members: []fabric.PartitionMember{{Host: "gpu-02"}, {Special: "SELF", Membership: "full"}}},
			{Name: "storage", PKey: 0x0002, IPoIB: true, MTU: 4096, Rate: 200, ServiceLevel: 0, DefaultMembership: "limited",
				Members: []fabric.PartitionMember{
					{Host: "stor-01", Membership: "full"},
					{GUID: "0x0002c903000e0b72", Membership: "limited"},
					{Host: "gpu-01"},
				}},
		},
	}
	guids := map[string][]string{
		"stor-01": {"0x0002c90300a1b2f1", "0002:c903:00a1:b2f0"},
		"gpu-01":  {"0x0002C90300A1B210"},
		"gpu-02":  {"0x0002c90300a1b220", "0x0002c90300a1b221"},
	}
	return sm, guids
}

func TestRenderGolden(t *testing.T) {
	sm, guids := labIntent()
	got, err := Render(sm, guids)
	if err != nil {
		t.Fatal(err)
	}
	testutil.Golden(t, "lab.render.golden", []byte(got))
	// The rendering reads back as exactly the desired table.
	want, err := Desired(sm.Partitions, guids)
	if err != nil {
		t.Fatal(err)
	}
	parsed, err := Parse(got)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, parsed); diff != "" {
		t.Errorf("Parse(Render) != Desired (-want +got):\n%s", diff)
	}
	checkRoundTrip(t, parsed)
}

// TestRenderDeterministic: the order of partitions, members and GUIDs in the
// intent does not change the output.
func TestRenderDeterministic(t *testing.T) {
	sm, guids := labIntent()
	a, err := Render(sm, guids)
	if err != nil {
		t.Fatal(err)
	}
	sm.Partitions[0], sm.Partitions[1] = sm.Partitions[1], sm.Partitions[0]
	m := sm.Partitions[0].Members
	m[0], m[2] = m[2], m[0]
	guids["stor-01"][0], guids["stor-01"][1] = guids["stor-01"][1], guids["stor-01"][0]
	b, err := Render(sm, guids)
	if err != nil {
		t.Fatal(err)
	}
	if a != b {
		t.Errorf("output depends on input order:\n%s\n---\n%s", a, b)
	}
}

func TestRenderKeepsDefinedDefault(t *testing.T) {
	sm := fabric.SubnetManagerIntent{Name: "sm", Partitions: []fabric.PartitionIntent{
		{Name: "mgmt", PKey: 0x7fff, ServiceLevel: -1, Members: []fabric.PartitionMember{{Special: "ALL", Membership: "limited"}, {Special: "SELF", Membership: "full"}}},
	}}
	got, err := Render(sm, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(got, "=0x7fff"); n != 1 {
		t.Fatalf("want one 0x7fff definition, got %d:\n%s", n, got)
	}
	if !strings.Contains(got, "mgmt=0x7fff :\n\tALL=limited,\n\tSELF=full ;\n") {
		t.Errorf("intent's default partition not rendered as given:\n%s", got)
	}
}

func TestRenderErrors(t *testing.T) {
	p := func(mod func(*fabric.PartitionIntent)) fabric.PartitionIntent {
		x := fabric.PartitionIntent{Name: "storage", PKey: 2, ServiceLevel: -1, Members: []fabric.PartitionMember{{GUID: "0x1", Membership: "full"}}}
		mod(&x)
		return x
	}
	for _, tc := range []struct {
		name  string
		parts []fabric.PartitionIntent
		want  string
	}{
		{"host without GUIDs", []fabric.PartitionIntent{p(func(x *fabric.PartitionIntent) {
			x.Members = []fabric.PartitionMember{{Host: "gpu-09", Membership: "full"}}
		})}, `partition "storage": host "gpu-09": no known port GUIDs (discover the host's port GUIDs first)`},
		{"full-member bit", []fabric.PartitionIntent{p(func(x *fabric.PartitionIntent) { x.PKey = 0x8002 })},
			`partition "storage": pkey 0x8002 has the full-member bit 0x8000 set; write 0x0002`},
		{"duplicate pkey", []fabric.PartitionIntent{p(func(*fabric.PartitionIntent) {}), p(func(x *fabric.PartitionIntent) { x.Name = "other" })},
			`partition "other": pkey 0x0002 already used by partition "storage"`},
		{"bad name", []fabric.PartitionIntent{p(func(x *fabric.PartitionIntent) { x.Name = "a:b" })},
			`partition "a:b": name "a:b" contains one of , : ; = # or a line break, which partitions.conf cannot hold`},
		{"no pkey, digit name", []fabric.PartitionIntent{p(func(x *fabric.PartitionIntent) { x.PKey, x.Name = 0, "1st" })},
			`partition "1st": name "1st" starts with a digit, so without a pkey OpenSM would read it as one`},
		{"no pkey, name of another", []fabric.PartitionIntent{p(func(*fabric.PartitionIntent) {}), p(func(x *fabric.PartitionIntent) { x.PKey = 0 })},
			`partition "storage": has no pkey and shares its name with pkey 0x0002, so OpenSM would merge them`},
		{"mtu without ipoib", []fabric.PartitionIntent{p(func(x *fabric.PartitionIntent) { x.MTU = 4096 })},
			`partition "storage": ` + ErrNoIPoIB},
		{"MTU", []fabric.PartitionIntent{p(func(x *fabric.PartitionIntent) { x.MTU = 9000 })},
			`partition "storage": mtu 9000 is not an InfiniBand MTU (256, 512, 1024, 2048 or 4096)`},
		{"MTU code mismatch", []fabric.PartitionIntent{p(func(x *fabric.PartitionIntent) { x.MTU, x.MTUCode = 2048, 5 })},
			`partition "storage": mtu 2048 disagrees with mtuCode 5 (4096 bytes)`},
		{"rate", []fabric.PartitionIntent{p(func(x *fabric.PartitionIntent) { x.Rate = 7 })},
			`partition "storage": rate 7 Gb/s has no IBTA rate code`},
		{"sl", []fabric.PartitionIntent{p(func(x *fabric.PartitionIntent) { x.ServiceLevel = 16 })},
			`partition "storage": serviceLevel 16 is out of range 0..15`},
		{"membership", []fabric.PartitionIntent{p(func(x *fabric.PartitionIntent) { x.Members[0].Membership = "owner" })},
			`partition "storage": members[0]: membership "owner" is not full, limited or both`},
		{"two kinds", []fabric.PartitionIntent{p(func(x *fabric.PartitionIntent) { x.Members[0].Special = "ALL" })},
			`partition "storage": members[0]: exactly one of guid, host and special must be set`},
		{"special", []fabric.PartitionIntent{p(func(x *fabric.PartitionIntent) { x.Members[0] = fabric.PartitionMember{Special: "EVERYONE"} })},
			`partition "storage": members[0]: special "EVERYONE" is not one of ALL, ALL_CAS, ALL_SWITCHES, ALL_ROUTERS, SELF`},
		{"conflict", []fabric.PartitionIntent{p(func(x *fabric.PartitionIntent) {
			x.Members = append(x.Members, fabric.PartitionMember{GUID: "0x0000000000000001", Membership: "limited"})
		})}, `partition "storage": member 0x0000000000000001 listed as both full and limited`},
		{"bad GUID", []fabric.PartitionIntent{p(func(x *fabric.PartitionIntent) { x.Members[0].GUID = "0xnope" })},
			`partition "storage": members[0]: bad port GUID "0xnope"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Render(fabric.SubnetManagerIntent{Name: "sm-01", Partitions: tc.parts}, nil)
			want := "rendering partitions.conf for sm-01: " + tc.want
			if err == nil || err.Error() != want {
				t.Fatalf("got  %v\nwant %s", err, want)
			}
		})
	}
	_, err := Render(fabric.SubnetManagerIntent{Partitions: []fabric.PartitionIntent{{Name: "x", PKey: 5, Members: []fabric.PartitionMember{{Host: "h"}}}}}, nil)
	if !errors.Is(err, ErrNoGUIDs) {
		t.Errorf("missing GUIDs error %v does not wrap ErrNoGUIDs", err)
	}
}

// TestRenderPreviewUnknownGUIDs (issue 14): `fabricctl render` of a fabric
// whose hosts' port GUIDs are not known yet renders every partition, with
// those hosts as comment lines to be discovered at plan time; Render, which
// Push writes, still refuses them.
func TestRenderPreviewUnknownGUIDs(t *testing.T) {
	sm, guids := labIntent()
	delete(guids, "gpu-02")
	got, err := RenderPreview(sm, guids)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(got, "# tenant-b: host gpu-02 (full) is not listed yet: its port GUIDs are discovered at plan time\ntenant-b=0x0003, defmember=full : SELF=full ;\n") {
		t.Errorf("preview:\n%s", got)
	}
	parts, err := Parse(got)
	if err != nil {
		t.Fatalf("OpenSM could not read the preview: %v", err)
	}
	if len(parts) != 2 || len(parts[1].Members) != 1 || parts[1].Members[0].Special != "SELF" {
		t.Errorf("preview reads as %+v", parts)
	}
	if _, err := Render(sm, guids); !errors.Is(err, ErrNoGUIDs) {
		t.Errorf("Render without GUIDs: %v", err)
	}
	// Nothing known at all: still every partition.
	if got, err := RenderPreview(sm, nil); err != nil || strings.Count(got, "discovered at plan time") != 3 {
		t.Errorf("%v\n%s", err, got)
	}
}

// TestNoBlanketDefaultPartition (issue 14): fabricctl writes no
// "Default=0x7fff … ALL=full" rule, so OpenSM's own (ALL=limited,
// SELF=full) applies and partitions isolate.
func TestNoBlanketDefaultPartition(t *testing.T) {
	sm, guids := labIntent()
	got, err := Render(sm, guids)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(got, "0x7fff") || strings.Contains(got, "ALL=full") {
		t.Errorf("a blanket default partition:\n%s", got)
	}
	if d := DefaultPartition(); d.Members[0].Membership != "limited" || d.Members[1].Special != "SELF" {
		t.Errorf("DefaultPartition %+v", d)
	}
}

// TestRenderPreviewTerminatesEveryStatement (issue 25): with no port GUID
// known, the preview wrote a partition's closing ';' at the end of a comment
// line, where OpenSM's parser (comments are cut at '#' before ';' is looked
// for) never sees it: the next partition's header became a "bad PortGUID"
// and OpenSM fell back to its default configuration, every port a full
// member of 0x7fff. Every statement must end outside a comment, and the
// file must read back as every partition of the intent.
func TestRenderPreviewTerminatesEveryStatement(t *testing.T) {
	sm, _ := labIntent()
	// A partition whose only member is a host, followed by others.
	sm.Partitions = append(sm.Partitions, fabric.PartitionIntent{Name: "tenant-a", PKey: 0x0001, ServiceLevel: -1,
		Members: []fabric.PartitionMember{{Host: "gpu-03", Membership: "full"}}})
	got, err := RenderPreview(sm, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, line := range strings.Split(got, "\n") {
		if c, _, ok := strings.Cut(line, "#"); ok && strings.Contains(line[len(c):], ";") {
			t.Errorf("line %d: ';' inside a comment: %q", i+1, line)
		}
	}
	parts, err := Parse(got)
	if err != nil {
		t.Fatalf("OpenSM could not read the preview: %v\n%s", err, got)
	}
	want, err := Desired(withoutHosts(sm.Partitions), nil)
	if err != nil {
		t.Fatal(err)
	}
	if d := Compare(want, parts); len(d) != 0 {
		t.Errorf("preview reads as %+v, differences %v\n%s", parts, d, got)
	}
	if err := CheckRendered(got, want); err != nil {
		t.Errorf("CheckRendered: %v", err)
	}
}

func withoutHosts(parts []fabric.PartitionIntent) []fabric.PartitionIntent {
	out := make([]fabric.PartitionIntent, len(parts))
	for i, p := range parts {
		p.Members = slices.DeleteFunc(slices.Clone(p.Members), func(m fabric.PartitionMember) bool { return m.Host != "" })
		out[i] = p
	}
	return out
}
