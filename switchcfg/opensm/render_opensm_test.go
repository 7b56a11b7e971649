package opensm

import (
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/fabric"
)

// TestRenderRefusesNoPartitions (issue 29): a partitions.conf without a
// single definition is an error to OpenSM 3.3 (osm_prtn_config_parse_file
// succeeds only once a definition parsed): it logs "Partition
// configuration in error; retrying with default config" and makes every
// port a full member of 0x7fff (seen in lab/iblab's
// TestIBLabVendorCheckPartitions). Render wrote such a file, comments only,
// for an intent without partitions; it must refuse it instead.
func TestRenderRefusesNoPartitions(t *testing.T) {
	for _, parts := range [][]fabric.PartitionIntent{nil, {}} {
		got, err := Render(fabric.SubnetManagerIntent{Name: "sm-01", Partitions: parts}, nil)
		if err == nil || !strings.Contains(err.Error(), "no partition") {
			t.Errorf("Render without partitions: %v\n%s", err, got)
		}
	}
}

// TestRenderRefusesDefaultWithoutAll (issue 29): OpenSM makes every port a
// limited member of 0x7fff, and its own port a full one, before it reads
// the file; a definition of 0x7fff only adds to that. One that does not
// name ALL cannot leave the other ports out, as it reads (the real OpenSM
// kept them limited members, and the push's verification, which expects
// them absent, failed), so Render refuses it; with ALL it is kept.
func TestRenderRefusesDefaultWithoutAll(t *testing.T) {
	def := func(ms ...fabric.PartitionMember) fabric.SubnetManagerIntent {
		return fabric.SubnetManagerIntent{Name: "sm-01", Partitions: []fabric.PartitionIntent{
			{Name: "Default", PKey: DefaultPKey, ServiceLevel: -1, Members: ms}}}
	}
	guid := fabric.PartitionMember{GUID: "0x0002c90300001001", Membership: "full"}
	for _, sm := range []fabric.SubnetManagerIntent{
		def(guid),
		def(fabric.PartitionMember{Special: "SELF", Membership: "full"}, guid),
		def(fabric.PartitionMember{Special: "ALL_CAS", Membership: "full"}),
	} {
		got, err := Render(sm, nil)
		if err == nil || !strings.Contains(err.Error(), "special ALL") {
			t.Errorf("Render of %+v: %v\n%s", sm.Partitions[0].Members, err, got)
		}
	}
	if _, err := Render(def(fabric.PartitionMember{Special: "ALL", Membership: "limited"}, guid), nil); err != nil {
		t.Errorf("Render of 0x7fff with ALL: %v", err)
	}
}
