package nxos

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/switchcfg"
)

// TestUnparsedNXOS (issue 26, item 2): top-level QoS statements the reader
// does not take — an unknown PFC global, QoS on a port-channel, a
// network-qos class-map matching something other than a qos-group — are
// listed with their line, not skipped in silence.
func TestUnparsedNXOS(t *testing.T) {
	cfg := `hostname leaf
class-map type network-qos ROCE
  match cos 3
priority-flow-control watch-dog internal-interface-multiplier 2
interface port-channel10
  service-policy type qos input QOS
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
	want := []string{"3:match cos 3", "4:priority-flow-control watch-dog internal-interface-multiplier 2", "5:interface port-channel10"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("unparsed\n got %v\nwant %v", got, want)
	}
}

// TestUserDefinedClasses (issue 26, item 4): Nexus 3000/5000 name their
// network-qos and queuing classes (`class-map type network-qos RDMA-NQ /
// match qos-group 3`, `pause no-drop`, `mtu`; `class-map type queuing
// RDMA-Q`, `bandwidth percent`), and config mode writes `interface
// Ethernet 1/1-1/2`. Each is read as the system classes are.
func TestUserDefinedClasses(t *testing.T) {
	data, err := os.ReadFile("testdata/user-defined-classes.txt")
	if err != nil {
		t.Fatal(err)
	}
	si, err := New().Parse(switchcfg.Readback{ReadbackRunningConfig: data})
	if err != nil {
		t.Fatal(err)
	}
	if len(si.Unparsed) > 0 {
		t.Errorf("unparsed %+v", si.Unparsed)
	}
	if fmt.Sprint(si.Ports) != "[Ethernet1/1 Ethernet1/2]" || si.MTU != 9216 || si.Trust != "dscp" || fmt.Sprint(si.PFC.Priorities) != "[3]" {
		t.Fatalf("ports %v mtu %d trust %s pfc %v", si.Ports, si.MTU, si.Trust, si.PFC.Priorities)
	}
	// Without pfc-cos, DSCP-classified traffic names no priority to pause:
	// said, not guessed.
	plain := strings.Replace(string(data), "pause no-drop pfc-cos 3", "pause no-drop", 1)
	if got, _ := New().Parse(switchcfg.Readback{ReadbackRunningConfig: []byte(plain)}); len(got.Unparsed) != 1 || got.Unparsed[0].Text != "pause no-drop" {
		t.Errorf("pause no-drop without pfc-cos: unparsed %+v", got.Unparsed)
	}
	for _, c := range si.Classes {
		switch c.Priority {
		case 3:
			if !c.Lossless || c.BandwidthPercent != 50 || c.ECN == nil || c.ECN.MinBytes != 150*BytesPerKbyte || fmt.Sprint(c.DSCP) != "[26]" {
				t.Errorf("RDMA class %+v ecn %+v", c, c.ECN)
			}
		case 7:
			if c.Lossless || c.ECN != nil {
				t.Errorf("CNP class %+v", c)
			}
		}
	}
}

// TestInterfaceNames: every form NX-OS takes for an interface or a range.
func TestInterfaceNames(t *testing.T) {
	for in, want := range map[string]string{
		"Ethernet1/1":                "[Ethernet1/1]",
		"Ethernet 1/1":               "[Ethernet1/1]",
		"ethernet1/1-3":              "[Ethernet1/1 Ethernet1/2 Ethernet1/3]",
		"Ethernet 1/1 - 1/3":         "[Ethernet1/1 Ethernet1/2 Ethernet1/3]",
		"Eth1/1/1-2, Ethernet1/5":    "[Ethernet1/1/1 Ethernet1/1/2 Ethernet1/5]",
		"Ethernet1/3-1":              "[]",
		"Ethernet1/1-2/4":            "[]",
		"port-channel10":             "[]",
		"Ethernet1/1-99999999999999": "[]",
	} {
		got, ok := switchcfg.ExpandEthernetRange(strings.Fields(in), portRE.MatchString)
		if fmt.Sprint(got) != want && !(want == "[]" && !ok) {
			t.Errorf("%q: %v %v, want %s", in, got, ok, want)
		}
	}
}

// TestPauseCoSMalformed: a pause pfc-cos value that is no CoS is a located
// error, never a class read as pausing nothing.
func TestPauseCoSMalformed(t *testing.T) {
	cfg := "hostname leaf\npolicy-map type network-qos NQ\n  class type network-qos c-8q-nq3\n    pause pfc-cos 9\n"
	_, err := New().Parse(switchcfg.Readback{ReadbackRunningConfig: []byte(cfg)})
	if err == nil || !strings.Contains(err.Error(), "line 4") {
		t.Errorf("pause pfc-cos 9: %v, want an error naming line 4", err)
	}
}
