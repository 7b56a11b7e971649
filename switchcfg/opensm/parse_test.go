package opensm

import (
	"encoding/json"
	"errors"
	"os"
	"testing"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/google/go-cmp/cmp"

	"github.com/fabricctl/fabricctl/internal/testutil"
)

func readFixture(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestParseGolden parses a hand-written file that exercises the whole
// grammar and compares the canonical result (partitions and extras) with
// testdata/tenants.parse.golden.
func TestParseGolden(t *testing.T) {
	f, err := ParseFile(readFixture(t, "tenants.conf"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	testutil.Golden(t, "tenants.parse.golden", append(got, '\n'))
}

// TestParseErrors checks that each kind of bad input gets its own located
// message, "LINE:COL: message", and wraps ErrSyntax.
func TestParseErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"Default=0x7fff: ALL=full;\r\n", "1:26: carriage return: OpenSM does not accept CRLF line endings"},
		{"A=0x1 : ALL=full;\x00", "1:18: NUL byte"},
		{"A=0x1, ipoib\n: ALL;", `1:1: no ':' after the partition definition "A=0x1, ipoib" (the header and its ':' must be on one line)`},
		{"# tenant\nA=0x1 :\n  ALL", "2:1: partition definition is not terminated with ';'"},
		{"A=0x1 : ALL;;", "1:13: empty partition definition before ';'"},
		{"A=0xZZ : ALL;", `1:3: bad pkey "0xZZ": not a number`},
		{"A=-1 : ALL;", `1:3: bad pkey "-1": not a number`},
		{"A = : ALL;", `1:4: bad pkey "": not a number`},
		{"A=0x8000 : ALL;", `1:3: pkey "0x8000" has no partition bits (only the low 15 bits count; OpenSM would generate a pkey)`},
		{"A=0x10000 : ALL;", `1:3: bad pkey "0x10000": does not fit in 16 bits`},
		{"A=0x1, IPoIB : ALL;", `1:8: unknown partition flag "IPoIB" (valid: ipoib, mtu, rate, sl, defmember, indx0, scope, Q_Key, TClass, FlowLabel)`},
		{"A=0x1, ipoib=1 : ALL;", "1:14: flag ipoib takes no value"},
		{"A=0x1, indx0=yes : ALL;", "1:14: flag indx0 takes no value"},
		{"A=0x1, mtu : ALL;", "1:8: flag mtu needs a value (mtu=…)"},
		{"A=0x1, mtu=6 : ALL;", "1:12: mtu=6 is not an IBTA MTU code (1=256 … 5=4096)"},
		{"A=0x1, mtu=4k : ALL;", `1:12: bad mtu value "4k": not a number`},
		{"A=0x1, rate=1 : ALL;", "1:13: rate=1 is not an IBTA rate code (e.g. 3=10, 16=100, 17=200, 21=400 Gb/s)"},
		{"A=0x1, sl=16 : ALL;", "1:11: sl=16 is out of range 0..15"},
		{"A=0x1, defmember=half : ALL;", `1:18: defmember "half" is not full, limited or both`},
		{"A=0x1, mtu=4 : ALL; A=0x1, mtu=5 : SELF;", "1:32: mtu=5 contradicts mtu=4 at 1:12 for the same partition"},
		{"A=0x1 : 0x12=fulll;", `1:14: membership "fulll" is not full, limited or both (OpenSM would assume limited)`},
		{"A=0x1 : 0x12=;", `1:14: membership "" is not full, limited or both (OpenSM would assume limited)`},
		{"A=0x1 : 0xZZ;", `1:9: bad port GUID "0xZZ": not a number`},
		{"A=0x1 : ALL SELF;", `1:9: bad port GUID "ALL SELF": not a number`},
		{"A=0x1 : 0x0;", `1:9: port GUID "0x0" is zero`},
		{"A=0x1 : 0x10000000000000000;", `1:9: bad port GUID "0x10000000000000000": does not fit in 64 bits`},
		{"A=0x1 : ALL, =full;", `1:14: membership "=full" without a port`},
		{"A=0x1 :\n  mgid=fe80::1;", `2:8: mgid "fe80::1" is not a multicast GID (ff…::…)`},
		{"A=0x1 :\n  mgid=ff12::1, ALL=full;", `2:17: unknown multicast group flag "ALL" (valid: mtu, rate, sl, scope, Q_Key, TClass, FlowLabel; an mgid entry takes the rest of its line)`},
		{"A=0x1 :\n  mgid=ff12::1,scope=16;", "2:22: scope=16 is out of range 1..15"},
	} {
		_, err := Parse(tc.in)
		if err == nil {
			t.Errorf("Parse(%q): no error, want %q", tc.in, tc.want)
			continue
		}
		if err.Error() != tc.want {
			t.Errorf("Parse(%q):\n got %q\nwant %q", tc.in, err.Error(), tc.want)
		}
		if !errors.Is(err, ErrSyntax) {
			t.Errorf("Parse(%q): error does not wrap ErrSyntax", tc.in)
		}
	}
}

// TestParseSemantics pins the OpenSM behaviours that decide membership.
func TestParseSemantics(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     []fabric.PartitionIntent
	}{
		{"15-bit pkeys and bare pkey", "0x8005 : 0x1=full ; x=0x0005 : 0x2=both ;", []fabric.PartitionIntent{
			{PKey: 5, ServiceLevel: -1, Members: []fabric.PartitionMember{{GUID: "0x0000000000000001", Membership: "full"}, {GUID: "0x0000000000000002", Membership: "both"}}},
		}},
		{"later entry for the same port wins", "p=0x5 : 0x1=full, 0x2, 0x1=limited ;", []fabric.PartitionIntent{
			{Name: "p", PKey: 5, ServiceLevel: -1, Members: []fabric.PartitionMember{{GUID: "0x0000000000000002", Membership: "limited"}, {GUID: "0x0000000000000001", Membership: "limited"}}},
		}},
		{"abbreviations", "p=0x5, ip, d=f : A, S=l, AL=b, 0x1=b, 0x2=f ;", []fabric.PartitionIntent{
			{Name: "p", PKey: 5, IPoIB: true, ServiceLevel: -1, DefaultMembership: "full", Members: []fabric.PartitionMember{{Special: "ALL", Membership: "both"}, {GUID: "0x0000000000000001", Membership: "both"}, {GUID: "0x0000000000000002", Membership: "full"}}},
		}},
		{"C numbers", "p=010 : 255=full, 0xFf=both ;", []fabric.PartitionIntent{
			{Name: "p", PKey: 8, ServiceLevel: -1, Members: []fabric.PartitionMember{{GUID: "0x00000000000000ff", Membership: "both"}}},
		}},
		{"name-only repeat merges into the pkey of that name", "p=0x5 : 0x1=full ; p : 0x2 ; Default : 0x3=full ;", []fabric.PartitionIntent{
			{Name: "p", PKey: 5, ServiceLevel: -1, Members: []fabric.PartitionMember{{GUID: "0x0000000000000001", Membership: "full"}, {GUID: "0x0000000000000002", Membership: "limited"}}},
			{Name: "Default", PKey: DefaultPKey, ServiceLevel: -1, Members: []fabric.PartitionMember{{GUID: "0x0000000000000003", Membership: "full"}}},
		}},
		{"last definition sets sl", "p=0x5, sl=3 : 0x1 ; p=0x5 : 0x2 ; q=0x6 : 0x1 ; q=0x6, sl=2 : ;", []fabric.PartitionIntent{
			{Name: "p", PKey: 5, ServiceLevel: -1, Members: []fabric.PartitionMember{{GUID: "0x0000000000000001", Membership: "limited"}, {GUID: "0x0000000000000002", Membership: "limited"}}},
			{Name: "q", PKey: 6, ServiceLevel: 2, Members: []fabric.PartitionMember{{GUID: "0x0000000000000001", Membership: "limited"}}},
		}},
		{"empty member list, trailing commas, empty flag", "p=0x5,, ipoib, : ; q=0x6 : 0x1,\n 0x2, ;", []fabric.PartitionIntent{
			{Name: "p", PKey: 5, IPoIB: true, ServiceLevel: -1, Members: []fabric.PartitionMember{}},
			{Name: "q", PKey: 6, ServiceLevel: -1, Members: []fabric.PartitionMember{{GUID: "0x0000000000000001", Membership: "limited"}, {GUID: "0x0000000000000002", Membership: "limited"}}},
		}},
		{"newline separates members", "p=0x5 :\n 0x1=full\n 0x2\n ;", []fabric.PartitionIntent{
			{Name: "p", PKey: 5, ServiceLevel: -1, Members: []fabric.PartitionMember{{GUID: "0x0000000000000001", Membership: "full"}, {GUID: "0x0000000000000002", Membership: "limited"}}},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Parse(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Parse(%q) mismatch (-want +got):\n%s", tc.in, diff)
			}
		})
	}
}
