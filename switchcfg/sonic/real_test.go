package sonic

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/fabric"
)

func realDB(t *testing.T, files ...string) ConfigDB {
	t.Helper()
	db := ConfigDB{}
	for _, f := range files {
		b, err := os.ReadFile("testdata/real/" + f)
		if err != nil {
			t.Fatal(err)
		}
		part, err := DecodeConfigDB(b)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		db.Merge(part)
	}
	return db
}

func byPriority(classes []fabric.SwitchClass) map[int]fabric.SwitchClass {
	out := map[int]fabric.SwitchClass{}
	for _, c := range classes {
		out[c.Priority] = c
	}
	return out
}

// TestRealDualToR reads SONiC's own dual-ToR templates (testdata/real) as a
// careful engineer reads them (issue 14: the map to traffic class 8 failed
// the parse, and one port stood for all): the 24 downlinks trust DSCP with
// PFC on 3 and 4, lossless in the buffers too, ECN 1–2 MiB at 5 %, 5 m of
// cable; the 8 uplinks add lossless queues 2 and 6; read together, the
// ports disagree on PFC and on the maps, so those read as absent rather
// than as the first port's.
func TestRealDualToR(t *testing.T) {
	db := realDB(t, "qos-arista7050cx3-dualtor.json", "buffer-arista7050cx3-dualtor.json")
	uplinks := []string{"Ethernet24", "Ethernet28", "Ethernet32", "Ethernet36", "Ethernet88", "Ethernet92", "Ethernet96", "Ethernet100"}
	var downlinks []string
	for p := range db[tPortQoSMap] {
		if p != "global" && !slices.Contains(uplinks, p) {
			downlinks = append(downlinks, p)
		}
	}
	down, err := ParseConfigDBPorts(db, downlinks)
	if err != nil {
		t.Fatal(err)
	}
	if len(down.Ports) != 24 || down.Trust != "dscp" || fmt.Sprint(down.PFC.Priorities) != "[3 4]" || down.PFC.CableLengthMeters != 5 {
		t.Errorf("downlinks: ports %d trust %q PFC %+v", len(down.Ports), down.Trust, down.PFC)
	}
	c := byPriority(down.Classes)
	ecn := fabric.SwitchECN{MinBytes: 1048576, MaxBytes: 2097152, MaxMarkProbability: 5}
	for _, p := range []int{3, 4} {
		if !c[p].Lossless || c[p].ECN == nil || *c[p].ECN != ecn || c[p].BandwidthPercent != 15 || fmt.Sprint(c[p].DSCP) != fmt.Sprint([]int{p}) {
			t.Errorf("downlink class %d %+v", p, c[p])
		}
	}
	if c[1].Lossless || !slices.Contains(c[1].DSCP, 26) || slices.Contains(c[1].DSCP, 33) || c[7].DSCP[0] != 48 {
		t.Errorf("downlink classes 1 %+v, 7 %+v", c[1], c[7])
	}
	// The watchdog is armed on 3,4 (pfcwd_sw_enable) but this document has
	// no PFC_WD table at all (SONiC starts it at run time): whether it runs
	// is unknown — absent, not "disabled" (issue 26, class 5) — and the
	// reading says so.
	if wd := down.PFC.Watchdog; wd != nil {
		t.Errorf("downlink watchdog %+v, want absent", wd)
	}
	if !slices.ContainsFunc(down.Unparsed, func(u fabric.Unparsed) bool { return strings.Contains(u.Text, "pfcwd_sw_enable") }) {
		t.Errorf("downlink unparsed %+v, want the unknown watchdog said", down.Unparsed)
	}

	up, err := ParseConfigDBPorts(db, uplinks)
	if err != nil {
		t.Fatal(err)
	}
	u := byPriority(up.Classes)
	if fmt.Sprint(up.PFC.Priorities) != "[2 3 4 6]" || !u[2].Lossless || !u[6].Lossless || !u[3].Lossless || u[1].Lossless {
		t.Errorf("uplinks: PFC %v classes %+v", up.PFC.Priorities, up.Classes)
	}

	all, err := ParseConfigDB(db)
	if err != nil {
		t.Fatal(err)
	}
	// Issue 26: the ports disagree, and each side is read, not dropped: the
	// downlinks (the most ports) are the switch's settings, the uplinks a
	// port group with their own.
	if len(all.Ports) != 32 || fmt.Sprint(all.PFC.Priorities) != "[3 4]" || !byPriority(all.Classes)[3].Lossless {
		t.Errorf("all ports: %d ports, PFC %v, classes %+v (want the downlinks' PFC 3,4)", len(all.Ports), all.PFC.Priorities, all.Classes)
	}
	if _, ok := byPriority(all.Classes)[2]; ok {
		t.Errorf("class 2, which only the uplinks have, read for the whole switch: %+v", all.Classes)
	}
	if len(all.PortGroups) != 1 || fmt.Sprint(all.PortGroups[0].Ports) != fmt.Sprint(uplinks) ||
		fmt.Sprint(all.PortGroups[0].PFC.Priorities) != "[2 3 4 6]" || !byPriority(all.PortGroups[0].Classes)[2].Lossless {
		t.Errorf("port groups %+v, want the uplinks %v with PFC 2,3,4,6", all.PortGroups, uplinks)
	}
	if fmt.Sprint(all.MajorityPorts()) != fmt.Sprint(down.Ports) {
		t.Errorf("majority ports %v, want the downlinks %v", all.MajorityPorts(), down.Ports)
	}
}

// TestRealOldReferenceFormat: a line card's CONFIG_DB in the pre-202012
// reference format ("[DSCP_TO_TC_MAP|AZURE]") reads as its maps say, not
// as no classes (issue 14).
func TestRealOldReferenceFormat(t *testing.T) {
	got, err := ParseConfigDB(realDB(t, "vlab-t2-01_config_db.json"))
	if err != nil {
		t.Fatal(err)
	}
	// 29 of its 32 ports have no PORT_QOS_MAP entry: they are the
	// switch's majority (no QoS), and the three with QoS are a group.
	if len(got.Ports) != 32 || len(got.PortGroups) != 1 || len(got.PFC.Priorities) != 0 || len(got.Classes) != 0 {
		t.Fatalf("ports %d groups %d PFC %v classes %d", len(got.Ports), len(got.PortGroups), got.PFC.Priorities, len(got.Classes))
	}
	got = got.Group(got.PortGroups[0])
	c := byPriority(got.Classes)
	if fmt.Sprint(got.Ports) != "[Ethernet0 Ethernet4 Ethernet8]" || got.Trust != "dscp" || fmt.Sprint(got.PFC.Priorities) != "[3 4]" {
		t.Fatalf("ports %v trust %q PFC %v", got.Ports, got.Trust, got.PFC.Priorities)
	}
	if len(got.Classes) < 5 || !c[3].Lossless || c[3].BandwidthPercent != 15 || c[3].ECN == nil || c[0].BandwidthPercent != 14 || !slices.Contains(c[1].DSCP, 26) {
		t.Errorf("classes %+v", got.Classes)
	}
}

// TestRealMultiASICPFCWD: multi-ASIC `show pfcwd config` lists backplane
// ports (Ethernet-BP0) beside the front panel; they are not front-panel
// ports and no error (issue 14).
func TestRealMultiASICPFCWD(t *testing.T) {
	text, err := os.ReadFile("testdata/real/show-pfcwd-config-multi-asic.txt")
	if err != nil {
		t.Fatal(err)
	}
	db, err := ParseShowPFCWD(string(text))
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(sortedKeys(db[tPFCWD])) != "[Ethernet0 Ethernet4 GLOBAL]" || db[tPFCWD][pfcwdGlobal][fPollInterval] != "199" ||
		db[tPFCWD]["Ethernet4"]["detection_time"] != "200" {
		t.Errorf("PFC_WD %v", db[tPFCWD])
	}
}

// TestWatchdogOfAWholeConfigDB: a whole CONFIG_DB (DEVICE_METADATA and
// all) without a PFC_WD table is a switch whose watchdog never started:
// disabled, a fact. Only a part of CONFIG_DB leaves it unknown.
func TestWatchdogOfAWholeConfigDB(t *testing.T) {
	db := ConfigDB{
		tMetadata:   {"localhost": {"hwsku": "Mellanox-SN2700"}},
		tPortQoSMap: {"Ethernet0": {"pfc_enable": "3,4", fPFCWDSwEnable: "3,4"}},
	}
	si, err := ParseConfigDB(db)
	if err != nil {
		t.Fatal(err)
	}
	if wd := si.PFC.Watchdog; wd == nil || wd.Enabled || len(si.Unparsed) > 0 {
		t.Errorf("whole CONFIG_DB: watchdog %+v unparsed %+v, want disabled", wd, si.Unparsed)
	}
	delete(db, tMetadata)
	if si, _ = ParseConfigDB(db); si.PFC.Watchdog != nil || len(si.Unparsed) != 1 {
		t.Errorf("part of CONFIG_DB: watchdog %+v unparsed %+v, want unknown and said", si.PFC.Watchdog, si.Unparsed)
	}
}
