package sonic

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/switchcfg"
)

// TestDecodeShapes (issue 26, corpus): every shape SONiC's own tools print
// a CONFIG_DB in reads as the same database.
func TestDecodeShapes(t *testing.T) {
	want := `{"PORT":{"Ethernet0":{"mtu":"9100"}},"PORT_QOS_MAP":{"Ethernet0":{"pfc_enable":"3,4"}}}`
	for name, doc := range map[string]string{
		"tables":     want,
		"flat keys":  `{"PORT|Ethernet0":{"mtu":"9100"},"PORT_QOS_MAP|Ethernet0":{"pfc_enable":"3,4"}}`,
		"db dump":    `{"PORT|Ethernet0":{"type":"hash","value":{"mtu":"9100"}},"PORT_QOS_MAP|Ethernet0":{"type":"hash","value":{"pfc_enable":"3,4"}}}`,
		"configlet":  `[{"PORT":{"Ethernet0":{"mtu":"9100"}}},{"PORT_QOS_MAP":{"Ethernet0":{"pfc_enable":"3,4"}}}]`,
		"multi-asic": `{"localhost":{"PORT":{"Ethernet0":{"mtu":"9100"}}},"asic0":{"PORT_QOS_MAP":{"Ethernet0":{"pfc_enable":"3,4"}}}}`,
		"a fragment": `"PORT":{"Ethernet0":{"mtu":"9100"}},"PORT_QOS_MAP":{"Ethernet0":{"pfc_enable":"3,4"}}`,
	} {
		db, err := DecodeConfigDB([]byte(doc))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if got := fmt.Sprint(db); got != fmt.Sprint(mustDecode(t, want)) {
			t.Errorf("%s: %s", name, got)
		}
	}
	// Keys in capitals that are no CONFIG_DB table (YANG test vectors).
	if _, err := DecodeConfigDB([]byte(`{"DSCP_TO_TC_MAP_CREATE":{"sonic-dscp-tc-map:sonic-dscp-tc-map":{}}}`)); !errors.Is(err, switchcfg.ErrNotThisFormat) {
		t.Errorf("YANG test vectors: %v", err)
	}
}

func mustDecode(t *testing.T, doc string) ConfigDB {
	t.Helper()
	db, err := DecodeConfigDB([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	return db
}

// TestGlobalQoSMap: PORT_QOS_MAP|global's dscp_to_tc_map is the switch's
// own map (SAI switch attribute), which classifies on every port that has
// no map of its own.
func TestGlobalQoSMap(t *testing.T) {
	db := mustDecode(t, `{"DSCP_TO_TC_MAP":{"AZURE":{"26":"3","0":"0"}},
		"PORT_QOS_MAP":{"global":{"dscp_to_tc_map":"AZURE"},"Ethernet0":{"pfc_enable":"3"}}}`)
	si, err := ParseConfigDB(db)
	if err != nil {
		t.Fatal(err)
	}
	if si.Trust != "dscp" || fmt.Sprint(si.Ports) != "[Ethernet0]" || fmt.Sprint(si.PFC.Priorities) != "[3]" {
		t.Errorf("trust %q ports %v pfc %v", si.Trust, si.Ports, si.PFC.Priorities)
	}
	// No port at all: the switch's map still reads.
	db = mustDecode(t, `{"DSCP_TO_TC_MAP":{"AZURE":{"26":"3"}},"PORT_QOS_MAP":{"global":{"dscp_to_tc_map":"AZURE"}}}`)
	if si, _ = ParseConfigDB(db); si.Trust != "dscp" || len(si.Classes) == 0 {
		t.Errorf("global only: trust %q classes %+v", si.Trust, si.Classes)
	}
}

// TestPortsWithoutQoS: a port of the PORT table without any PORT_QOS_MAP
// entry is a port without QoS, not a port that is not there: it is read
// (its own group, or the switch's settings when most ports have none).
func TestPortsWithoutQoS(t *testing.T) {
	db := mustDecode(t, `{"PORT":{"Ethernet0":{"mtu":"9100"},"Ethernet4":{"mtu":"9100"},"Ethernet8":{"mtu":"9100"}},
		"PORT_QOS_MAP":{"Ethernet0":{"pfc_enable":"3,4"}}}`)
	si, err := ParseConfigDB(db)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(si.Ports) != "[Ethernet0 Ethernet4 Ethernet8]" || len(si.PFC.Priorities) != 0 || si.MTU != 9100 ||
		len(si.PortGroups) != 1 || fmt.Sprint(si.PortGroups[0].Ports) != "[Ethernet0]" || fmt.Sprint(si.PortGroups[0].PFC.Priorities) != "[3 4]" {
		t.Errorf("ports %v pfc %v mtu %d groups %+v", si.Ports, si.PFC.Priorities, si.MTU, si.PortGroups)
	}
}

// TestWatchdogWithoutSwEnable: a PFC_WD entry without pfcwd_sw_enable
// watched the PFC priorities before CONFIG_DB version 3_0_4 (sonic-utilities
// db_migrator: "by default, PFC software watchdog is enabled on all pfc
// enabled queues") and none after; without VERSIONS it is unknown, and said.
func TestWatchdogWithoutSwEnable(t *testing.T) {
	base := `"PORT_QOS_MAP":{"Ethernet0":{"pfc_enable":"3,4"}},"PFC_WD":{"Ethernet0":{"action":"drop","detection_time":"200","restoration_time":"200"}}`
	for version, want := range map[string]string{
		`"VERSIONS":{"DATABASE":{"VERSION":"version_1_0_3"}},`:     "enabled",
		`"VERSIONS":{"DATABASE":{"VERSION":"version_4_0_1"}},`:     "disabled",
		`"VERSIONS":{"DATABASE":{"VERSION":"version_202405_01"}},`: "disabled",
		``: "unknown",
	} {
		si, err := ParseConfigDB(mustDecode(t, "{"+version+base+"}"))
		if err != nil {
			t.Fatal(err)
		}
		got := "unknown"
		if w := si.PFC.Watchdog; w != nil && w.Enabled {
			got = "enabled"
		} else if w != nil {
			got = "disabled"
		}
		said := slices_containsText(si.Unparsed, "PFC_WD")
		if got != want || (want == "unknown") != said {
			t.Errorf("%q: watchdog %s (unparsed %+v), want %s", version, got, si.Unparsed, want)
		}
	}
}

// TestUnknownPortQoSFields: PORT_QOS_MAP fields the reader does not take
// (remarking maps, a port scheduler, misspellings) are listed, once per
// field and value, with their ports.
func TestUnknownPortQoSFields(t *testing.T) {
	db := mustDecode(t, `{"PORT_QOS_MAP":{"Ethernet0":{"pfc_enable":"3,4","pfc_wd_sw_enable":"3,4","tc_to_dscp_map":"R"},
		"Ethernet4":{"pfc_enable":"3,4","pfc_wd_sw_enable":"3,4"}}}`)
	si, err := ParseConfigDB(db)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, u := range si.Unparsed {
		got = append(got, u.Text)
	}
	want := `[PORT_QOS_MAP pfc_wd_sw_enable "3,4" on Ethernet0,Ethernet4 PORT_QOS_MAP tc_to_dscp_map "R" on Ethernet0]`
	if fmt.Sprint(got) != want {
		t.Errorf("unparsed\n got %v\nwant %s", got, want)
	}
}

func slices_containsText(us []fabric.Unparsed, sub string) bool {
	for _, u := range us {
		if strings.Contains(u.Text, sub) {
			return true
		}
	}
	return false
}

// TestChassisKeys (issue 26, class 2): a VOQ line card keys QUEUE and
// BUFFER_QUEUE by system port, "<linecard>|<asic>|EthernetN|q". Only the
// local line card's ports are ports: its own name comes from
// DEVICE_METADATA (hostname, asic_name) or, in a capture without it, is
// the only line card the keys name; with several and no name, the
// reading says which entries it could not place.
func TestChassisKeys(t *testing.T) {
	tables := `"WRED_PROFILE":{"L":{"ecn":"ecn_all","green_min_threshold":"100","green_max_threshold":"200"}},
		"DSCP_TO_TC_MAP":{"M":{"26":"3"}},
		"PORT_QOS_MAP":{"Ethernet0":{"dscp_to_tc_map":"M","pfc_enable":"3"}},`
	one := `{` + tables + `"QUEUE":{"lc1|Asic0|Ethernet0|3":{"wred_profile":"L"}}}`
	si, err := ParseConfigDB(mustDecode(t, one))
	if err != nil {
		t.Fatal(err)
	}
	if c := byPriority(si.Classes)[3]; c.ECN == nil || len(si.Unparsed) > 0 {
		t.Errorf("one line card: class 3 %+v unparsed %+v", c, si.Unparsed)
	}
	two := `{` + tables + `"QUEUE":{"lc1|asic0|Ethernet0|3":{"wred_profile":"L"},"lc2|asic0|Ethernet0|3":{}}}`
	si, _ = ParseConfigDB(mustDecode(t, two))
	if c := byPriority(si.Classes)[3]; c.ECN != nil || len(si.Unparsed) != 1 || !strings.Contains(si.Unparsed[0].Text, "lc1|asic0") {
		t.Errorf("two line cards, no name: class 3 %+v unparsed %+v", c, si.Unparsed)
	}
	named := `{"DEVICE_METADATA":{"localhost":{"hostname":"lc2","asic_name":"asic0"}},` + two[1:]
	si, _ = ParseConfigDB(mustDecode(t, named))
	if c := byPriority(si.Classes)[3]; c.ECN != nil || len(si.Unparsed) > 0 {
		t.Errorf("named lc2 (no WRED on its queue): class 3 %+v unparsed %+v", c, si.Unparsed)
	}
}
