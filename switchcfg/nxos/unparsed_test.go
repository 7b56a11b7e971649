package nxos

import (
	"fmt"
	"testing"

	"github.com/fabricctl/fabricctl/switchcfg"
)

// TestUnparsedNXOS (issue 26, item 2): top-level QoS statements the reader
// does not take — a user-defined network-qos class-map (NX-OS 3000/5000),
// an interface range, an unknown PFC global — are listed with their line,
// not skipped in silence.
func TestUnparsedNXOS(t *testing.T) {
	cfg := `hostname leaf
class-map type network-qos ROCE
  match qos-group 3
policy-map type network-qos NQ
  class type network-qos ROCE
    pause no-drop
    mtu 9216
interface Ethernet1/1-16
  priority-flow-control mode on
priority-flow-control watch-dog internal-interface-multiplier 2
interface Ethernet1/17
  priority-flow-control mode on
`
	si, err := New().Parse(switchcfg.Readback{ReadbackRunningConfig: []byte(cfg)})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, u := range si.Unparsed {
		got = append(got, fmt.Sprintf("%d:%s", u.Line, u.Text))
	}
	want := []string{"2:class-map type network-qos ROCE", "8:interface Ethernet1/1-16", "10:priority-flow-control watch-dog internal-interface-multiplier 2"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("unparsed\n got %v\nwant %v", got, want)
	}
}
