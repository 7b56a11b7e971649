package opensm

import (
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/internal/testutil"
	"github.com/google/go-cmp/cmp"
)

func guidMembers(membership string, guids ...string) []fabric.PartitionMember {
	out := make([]fabric.PartitionMember, len(guids))
	for i, g := range guids {
		v, err := ParseGUID(g)
		if err != nil {
			panic(err)
		}
		out[i] = fabric.PartitionMember{GUID: FormatGUID(v), Membership: membership}
	}
	return out
}

func special(name, membership string) fabric.PartitionMember {
	return fabric.PartitionMember{Special: name, Membership: membership}
}

// docExamples is what the "Examples:" section of OpenSM's
// doc/partition-config.txt means, worked out by hand from the text and from
// osm_prtn_config.c: the three Default rules merge (the last, "ALL=full",
// replaces the earlier ALL/ALL_SWITCHES/SELF entries), YetAnotherOne's ALL
// replaces its SELF, ShareIO's five definitions merge with each one's own
// defmember (the doc's comments say 0x123453/54 and 0x123456/57 are limited),
// NewPartition has no pkey, and "limi" abbreviates limited.
var docExamples = []fabric.PartitionIntent{
	{Name: "Default", PKey: 0x7fff, IPoIB: true, ServiceLevel: -1, Members: []fabric.PartitionMember{special("ALL", "full")}},
	{Name: "NewPartition", IPoIB: true, ServiceLevel: -1, Members: append(guidMembers("full", "0x123456"), guidMembers("limited", "0x3456789034", "0x2134af2306")...)},
	{Name: "YetAnotherOne", PKey: 0x300, ServiceLevel: -1, Members: []fabric.PartitionMember{special("ALL", "limited")}},
	{Name: "ShareIO", PKey: 0x80, ServiceLevel: -1, DefaultMembership: "full", Members: concat(
		guidMembers("full", "0x123451", "0x123452"),
		guidMembers("limited", "0x123453", "0x123454"),
		guidMembers("full", "0x123455"),
		guidMembers("limited", "0x123456", "0x123457"),
		guidMembers("full", "0x123458", "0x123459", "0x12345a", "0x12345b"),
		guidMembers("limited", "0x12345c"),
		guidMembers("full", "0x12345d"),
	)},
}

func concat(lists ...[]fabric.PartitionMember) []fabric.PartitionMember {
	var out []fabric.PartitionMember
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

// TestCorpusHosts parses the three real partitions.conf files of the corpus
// and compares them with the partitions read by hand.
func TestCorpusHosts(t *testing.T) {
	fuel := func(name string, pkey uint16, who fabric.PartitionMember) fabric.PartitionIntent {
		return fabric.PartitionIntent{Name: name, PKey: pkey, IPoIB: true, ServiceLevel: 0, DefaultMembership: "full", Members: []fabric.PartitionMember{who}}
	}
	bent := func(name string, pkey uint16) fabric.PartitionIntent {
		return fabric.PartitionIntent{Name: name, PKey: pkey, IPoIB: true, ServiceLevel: -1, Members: []fabric.PartitionMember{special("ALL", "full"), special("SELF", "full")}}
	}
	for _, tc := range []struct {
		file       string
		want       []fabric.PartitionIntent
		wantExtras int
	}{
		// Default=0xffff is the 0x7fff default partition; 0x8001.. are 0x0001..;
		// "ipoib=0x9000" is a partition *named* ipoib with pkey 0x1000.
		{"opensm-partitions-bentwire-ib-pkey-setup.conf", []fabric.PartitionIntent{
			bent("Default", 0x7fff), bent("DMZ", 0x0001), bent("private0", 0x0002), bent("private1", 0x0003), bent("ipoib", 0x1000),
		}, 0},
		// UFM's user extension file: vlan1..3 on every CA, the rest on the SM port only.
		{"opensm-partitions-fuel-plugin-mellanox-ufm.conf", []fabric.PartitionIntent{
			fuel("vlan1", 1, special("ALL_CAS", "full")), fuel("vlan2", 2, special("ALL_CAS", "full")), fuel("vlan3", 3, special("ALL_CAS", "full")),
			fuel("vlan4", 4, special("SELF", "full")), fuel("vlan5", 5, special("SELF", "full")), fuel("vlan6", 6, special("SELF", "full")),
			fuel("vlan7", 7, special("SELF", "full")), fuel("vlan8", 8, special("SELF", "full")), fuel("vlan9", 9, special("SELF", "full")),
			fuel("vlan20", 0x14, special("SELF", "full")),
		}, 0},
		// The five mgid lines of the last Default rule are extras.
		{"opensm-partitions-opensm-doc-examples.conf", docExamples, 5},
	} {
		t.Run(tc.file, func(t *testing.T) {
			text := string(testutil.CorpusFile(t, "hosts", tc.file).Raw)
			f, err := ParseFile(text)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, f.Partitions); diff != "" {
				t.Errorf("partitions mismatch (-want +got):\n%s", diff)
			}
			if len(f.Extras) != tc.wantExtras {
				t.Errorf("got %d extras, want %d: %+v", len(f.Extras), tc.wantExtras, f.Extras)
			}
			checkRoundTrip(t, f.Partitions)
		})
	}
}

// TestCorpusGrammarDoc reads OpenSM's doc/partition-config.txt as published
// (prose, not a partitions.conf): its Examples section must mean docExamples,
// and the single rules quoted in the prose must parse to what the prose says.
func TestCorpusGrammarDoc(t *testing.T) {
	text := string(testutil.CorpusFile(t, "switches", "infiniband-opensm-partitions-conf.txt").Raw)
	_, doc, ok := strings.Cut(text, "# ----- BEGIN VERBATIM -----\n")
	if !ok {
		t.Fatal("no BEGIN VERBATIM marker")
	}
	_, examples, ok := strings.Cut(doc, "\nExamples:\n--------\n")
	if !ok {
		t.Fatal("no Examples section")
	}
	examples, _, ok = strings.Cut(examples, "\nNote:\n----\n")
	if !ok {
		t.Fatal("no Note section after the examples")
	}
	f, err := ParseFile(examples)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(docExamples, f.Partitions); diff != "" {
		t.Errorf("examples mismatch (-want +got):\n%s", diff)
	}
	checkRoundTrip(t, f.Partitions)

	// The rules quoted in the prose.
	rules := map[string][]fabric.PartitionMember{}
	for _, line := range strings.Split(doc, "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "Default=0x7fff") && strings.HasSuffix(line, ";") {
			got, err := Parse(line)
			if err != nil {
				t.Fatalf("%q: %v", line, err)
			}
			rules[line] = got[0].Members
			if line == "Default=0x7fff : ALL=limited, SELF=full ;" {
				// DefaultPartition is OpenSM's rule for a file without one,
				// which fabricctl relies on (it writes none).
				if d := Compare([]fabric.PartitionIntent{DefaultPartition()}, got); len(d) != 0 {
					t.Errorf("DefaultPartition differs from the doc's rule: %v", d)
				}
			}
		}
	}
	want := map[string][]fabric.PartitionMember{
		// "In the case of no rule for the Default partition"
		"Default=0x7fff : ALL=limited, SELF=full ;": {special("ALL", "limited"), special("SELF", "full")},
		// "In the case of no partition configuration file"
		"Default=0x7fff : ALL=full ;": {special("ALL", "full")},
		// "how OpenSM used to run prior to the partition manager"
		"Default=0x7fff,ipoib:ALL=full;": {special("ALL", "full")},
		// the first two examples, each on its own
		"Default=0x7fff : ALL, SELF=full ;":                    {special("ALL", "limited"), special("SELF", "full")},
		"Default=0x7fff : ALL, ALL_SWITCHES=full, SELF=full ;": {special("ALL", "limited"), special("ALL_SWITCHES", "full"), special("SELF", "full")},
	}
	if diff := cmp.Diff(want, rules); diff != "" {
		t.Errorf("quoted rules mismatch (-want +got):\n%s", diff)
	}
}
