package eos

import (
	"fmt"
	"testing"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/switchcfg"
)

// TestPortGroupsEOS (issue 26, item 1): an EOS config with no-drop on one
// port only read nothing at all; a reading keeps every port now. Written
// before running: three lossy ports (the most) are the switch's settings,
// PFC none; Ethernet4 is a group with PFC 3, class 3 lossless.
func TestPortGroupsEOS(t *testing.T) {
	cfg := `hostname leaf
qos map dscp 26 to traffic-class 3
interface Ethernet1
   qos trust dscp
interface Ethernet2
   qos trust dscp
interface Ethernet3
   qos trust dscp
interface Ethernet4
   qos trust dscp
   priority-flow-control on
   priority-flow-control priority 3 no-drop
`
	got, err := switchcfg.ParseCapture(New(), []byte(cfg), fabric.SwitchIntent{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.PFC.Priorities) != 0 || got.Trust != "dscp" || fmt.Sprint(got.Ports) != "[Ethernet1 Ethernet2 Ethernet3 Ethernet4]" {
		t.Errorf("switch-wide: trust %q PFC %v ports %v", got.Trust, got.PFC.Priorities, got.Ports)
	}
	if len(got.PortGroups) != 1 {
		t.Fatalf("port groups %+v", got.PortGroups)
	}
	g := got.PortGroups[0]
	var lossless bool
	for _, c := range g.Classes {
		lossless = lossless || (c.Priority == 3 && c.Lossless)
	}
	if fmt.Sprint(g.Ports) != "[Ethernet4]" || fmt.Sprint(g.PFC.Priorities) != "[3]" || !lossless {
		t.Errorf("group %+v", g)
	}
	// Declared ports without QoS are a group of their own, not a blur.
	want := fabric.SwitchIntent{Ports: []string{"Ethernet4", "Ethernet9"}}
	got, err = switchcfg.ParseCapture(New(), []byte(cfg), want)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got.PFC.Priorities) != "[3]" || len(got.PortGroups) != 1 || fmt.Sprint(got.PortGroups[0].Ports) != "[Ethernet9]" || got.PortGroups[0].Trust != "" {
		t.Errorf("declared Ethernet4 and Ethernet9: PFC %v groups %+v", got.PFC.Priorities, got.PortGroups)
	}
}

// TestUnparsedEOS (issue 26, item 2): QoS lines the reader recognises as
// QoS but does not read are listed with their line and a reason; the
// defaults `show running-config all` prints are read, not listed.
func TestUnparsedEOS(t *testing.T) {
	cfg := `hostname leaf
qos rewrite dscp
platform trident mmu queue profile P
interface Ethernet1-4
   qos trust dscp
interface Ethernet5
   qos trust dscp
   qos cos 0
   service-policy type qos input PM
   priority-flow-control priority 3 drop-precedence 1
   uc-tx-queue 3
      no random-detect ecn
      shape rate 40 percent
`
	si, err := New().Parse(readback(cfg))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, u := range si.Unparsed {
		got = append(got, fmt.Sprintf("%d:%s", u.Line, u.Text))
	}
	// `interface Ethernet1-4` is read since ranges are (TestParseInterfaceRanges).
	want := []string{"2:qos rewrite dscp", "3:platform trident mmu queue profile P",
		"9:service-policy type qos input PM", "10:priority-flow-control priority 3 drop-precedence 1", "13:shape rate 40 percent",
		"0:qos trust dscp without any qos map dscp line"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("unparsed\n got %v\nwant %v", got, want)
	}
}
