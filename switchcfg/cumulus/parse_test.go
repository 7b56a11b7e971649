package cumulus

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/internal/testutil"
	"github.com/fabricctl/fabricctl/switchcfg"
)

func readFixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func intentJSON(t testing.TB, si fabric.SwitchIntent) []byte {
	t.Helper()
	b, err := json.MarshalIndent(si, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(b, '\n')
}

// classByPrio returns the class with priority p, failing when absent.
func classByPrio(t *testing.T, si fabric.SwitchIntent, p int) fabric.SwitchClass {
	t.Helper()
	for _, c := range si.Classes {
		if c.Priority == p {
			return c
		}
	}
	t.Fatalf("no class with priority %d in %+v", p, si.Classes)
	return fabric.SwitchClass{}
}

func TestParseFixturesGolden(t *testing.T) {
	cases := map[string]switchcfg.Readback{
		"parse-config-show-json.golden": {CmdConfigShow: readFixture(t, "config-show.json")},
		"parse-config-show-yaml.golden": {CmdConfigShowYAML: readFixture(t, "config-show.yaml")},
		"parse-show-qos-roce.golden":    {CmdShowRoCE: readFixture(t, "show-qos-roce.txt")},
		"parse-qos-features.golden":     {CmdQoSFeatures: readFixture(t, "qos_features.conf")},
	}
	for name, rb := range cases {
		t.Run(name, func(t *testing.T) {
			si, err := New().Parse(rb)
			if err != nil {
				t.Fatal(err)
			}
			testutil.Golden(t, name, intentJSON(t, si))
		})
	}
}

// TestParseConfigShowJSON checks the JSON fixture by hand.
func TestParseConfigShowJSON(t *testing.T) {
	si, err := New().Parse(switchcfg.Readback{CmdConfigShow: readFixture(t, "config-show.json")})
	if err != nil {
		t.Fatal(err)
	}
	if si.Trust != "dscp" || si.MTU != 9000 || strings.Join(si.Ports, ",") != "swp1,swp2,swp3" {
		t.Errorf("trust %q mtu %d ports %v", si.Trust, si.MTU, si.Ports)
	}
	if !equalInts(si.PFC.Priorities, []int{4}) || si.PFC.CableLengthMeters != 20 {
		t.Errorf("pfc %+v", si.PFC)
	}
	if wd := si.PFC.Watchdog; wd == nil || !wd.Enabled || wd.PollIntervalMs != 200 || wd.DetectionTimeMs != 800 {
		t.Errorf("watchdog %+v", wd)
	}
	roce := classByPrio(t, si, 4)
	// DSCP 32-39 by default, plus 24 and 26 moved there.
	if got := switchcfg.FormatIntSet(roce.DSCP); got != "24,26,32-39" || roce.TrafficClass != 4 || !roce.Lossless || roce.BandwidthPercent != 60 {
		t.Errorf("priority 4 class %+v (dscp %s)", roce, got)
	}
	if roce.ECN == nil || *roce.ECN != (fabric.SwitchECN{MinBytes: 200000, MaxBytes: 2000000, MaxMarkProbability: 50}) {
		t.Errorf("priority 4 ECN %+v", roce.ECN)
	}
	if c := classByPrio(t, si, 6); !c.Strict || switchcfg.FormatIntSet(c.DSCP) != "46,48-55" {
		t.Errorf("priority 6 class %+v", c)
	}
	if c := classByPrio(t, si, 0); c.ECN != nil || c.BandwidthPercent != 12 {
		t.Errorf("priority 0 class %+v: TC0's default ECN is disabled, DWRR 12%% is the default", c)
	}
	if c := classByPrio(t, si, 3); switchcfg.FormatIntSet(c.DSCP) != "25,27-31" {
		t.Errorf("priority 3 keeps the rest of its default DSCP: %s", switchcfg.FormatIntSet(c.DSCP))
	}
}

func TestParseConfigShowYAMLIsTheRecipe(t *testing.T) {
	si, err := New().Parse(switchcfg.Readback{CmdConfigShowYAML: readFixture(t, "config-show.yaml")})
	if err != nil {
		t.Fatal(err)
	}
	want := recipeIntent("lossless")
	want.PFC.CableLengthMeters = 30 // overridden after the recipe
	if diffs := switchcfg.Compare(want, si); len(diffs) != 0 {
		t.Fatalf("diffs %v", diffs)
	}
	if si.PFC.CableLengthMeters != 30 || strings.Join(si.Ports, ",") != "swp5,swp6" {
		t.Errorf("cable %d ports %v", si.PFC.CableLengthMeters, si.Ports)
	}
}

func TestParseShowQoSRoCEFixture(t *testing.T) {
	si, err := ParseShowRoCE(string(readFixture(t, "show-qos-roce.txt")))
	if err != nil {
		t.Fatal(err)
	}
	roce := classByPrio(t, si, 3)
	// 195.31 KB and 1.91 MB are binary units.
	if roce.ECN == nil || roce.ECN.MinBytes != 199997 || roce.ECN.MaxBytes != 2002780 || roce.ECN.MaxMarkProbability != 80 {
		t.Errorf("ECN %+v", roce.ECN)
	}
	if !roce.Lossless || roce.BandwidthPercent != 60 || si.PFC.CableLengthMeters != 40 || si.Trust != "dscp" {
		t.Errorf("class %+v pfc %+v trust %s", roce, si.PFC, si.Trust)
	}
	// The lossless recipe is the base: TC0 DWRR 50 %, SP1 on TC0; but TC0
	// is not in enabled-tc, so it does not mark.
	if c := classByPrio(t, si, 0); c.ECN != nil || c.BandwidthPercent != 50 {
		t.Errorf("priority 0: %+v", c)
	}
	if c := classByPrio(t, si, 1); c.TrafficClass != 0 {
		t.Errorf("priority 1: %+v", c)
	}
	if c := classByPrio(t, si, 6); !c.Strict || switchcfg.FormatIntSet(c.DSCP) != "46,48-55" {
		t.Errorf("'strict priority' (two words) is strict, DSCP 46 moved here: %+v", c)
	}
}

// TestParseShowQoSRoCEAbsentIsNotZero (issue 26, class 5): Cumulus 5.3
// prints no probability row. An unprinted ECN field is the RoCE mode's
// default (NVIDIA's lossless recipe marks with probability 100), never 0 —
// which our own render refuses; without a mode to take it from, the
// reading says it does not know.
func TestParseShowQoSRoCEAbsentIsNotZero(t *testing.T) {
	text := string(readFixture(t, "show-qos-roce.txt"))
	noProb := strings.Replace(text, "  probability       80\n", "", 1)
	if noProb == text {
		t.Fatal("fixture has no probability row")
	}
	si, err := ParseShowRoCE(noProb)
	if err != nil {
		t.Fatal(err)
	}
	if e := classByPrio(t, si, 3).ECN; e == nil || e.MaxMarkProbability != recipeECNProb || e.MinBytes != 199997 {
		t.Errorf("ECN without a probability row: %+v, want the recipe's probability %d", e, recipeECNProb)
	}
	noMode := strings.Replace(noProb, "mode                lossless                  Roce Mode\n", "", 1)
	si, err = ParseShowRoCE(noMode)
	if err != nil {
		t.Fatal(err)
	}
	if len(si.Unparsed) == 0 || !strings.Contains(si.Unparsed[0].Text, "probability") {
		t.Errorf("no mode, no probability: unparsed %+v, want the missing probability said", si.Unparsed)
	}
}

func TestParseQoSFeaturesFixture(t *testing.T) {
	si, err := ParseQoSFeatures(string(readFixture(t, "qos_features.conf")))
	if err != nil {
		t.Fatal(err)
	}
	if si.Trust != "dscp" || len(si.Classes) != 3 || !equalInts(si.PFC.Priorities, []int{3}) || si.PFC.CableLengthMeters != 7 {
		t.Fatalf("intent %+v", si)
	}
	if c := classByPrio(t, si, 3); c.ECN == nil || c.ECN.MinBytes != 120000 || c.BandwidthPercent != 70 {
		t.Errorf("RoCE class %+v", c)
	}
	if c := classByPrio(t, si, 0); c.ECN != nil || c.BandwidthPercent != 30 {
		t.Errorf("default class %+v", c)
	}
	if c := classByPrio(t, si, 6); !c.Strict {
		t.Errorf("bw_percent 0 is strict: %+v", c)
	}
	if strings.Join(si.Ports, ",") != "swp1,swp2,swp3,swp4,swp10" || si.PFC.Watchdog == nil || !si.PFC.Watchdog.Enabled {
		t.Errorf("ports %v watchdog %+v", si.Ports, si.PFC.Watchdog)
	}
}

func TestParseErrors(t *testing.T) {
	d := New()
	cases := map[string]switchcfg.Readback{
		"none of":                {"show version": []byte("x")},
		"decoding JSON":          {CmdConfigShow: []byte(`[{"set": {`)},
		"empty document":         {CmdConfigShow: []byte("  ")},
		"document 0 is not":      {CmdConfigShow: []byte(`["x"]`)},
		"qos.mapping.dscp.99":    {CmdConfigShow: []byte(`{"qos":{"mapping":{"default-global":{"dscp":{"99":{"switch-priority":1}}}}}}`)},
		"switch-priority":        {CmdConfigShow: []byte(`{"qos":{"mapping":{"default-global":{"dscp":{"9":{"switch-priority":8}}}}}}`)},
		"trust":                  {CmdConfigShow: []byte(`{"qos":{"mapping":{"default-global":{"trust":"l4"}}}}`)},
		"link.mtu":               {CmdConfigShow: []byte(`{"interface":{"swp1":{"link":{"mtu":"big"}}}}`)},
		"no nv show qos roce":    {CmdShowRoCE: []byte("\n\n")},
		"size":                   {CmdShowRoCE: []byte("congestion-control\n  min-threshold     lots KB\n")},
		"no qos_features.conf":   {CmdQoSFeatures: []byte("# only comments\n")},
		"line 2: pfc.g.cos_list": {CmdQoSFeatures: []byte("pfc.port_group_list = [g]\npfc.g.cos_list = [9]\n")},
	}
	for want, rb := range cases {
		_, err := d.Parse(rb)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v", want, err)
		}
	}
	if _, err := d.Parse(switchcfg.Readback{CmdConfigShow: []byte(`{"qos":{"mapping":{"default-global":{"trust":"l4"}}}}`)}); !errors.Is(err, ErrSyntax) {
		t.Errorf("not ErrSyntax: %v", err)
	}
}

func TestCommandsGrammar(t *testing.T) {
	tr, err := ParseCommands(`
cumulus@switch:mgmt:~$ nv set qos roce
cumulus@switch:~$ nv set qos mapping default-global dscp 0-2,5 switch-priority 4
$ sudo nv set interface swp1-2,swp4 link mtu 9000
nv set system hostname leaf
nv unset qos mapping default-global dscp 1
this line is output and ignored: nv set qos pfc default-global switch-priority 7
`)
	if err != nil {
		t.Fatal(err)
	}
	if tr.node("qos", "roce") == nil {
		t.Error("bare nv set qos roce must create qos.roce")
	}
	dscp := tr.node("qos", "mapping", "default-global", "dscp")
	if len(dscp) != 3 || text(dscp["5"].(map[string]any)["switch-priority"]) != "4" || dscp["1"] != nil {
		t.Errorf("dscp %v", dscp)
	}
	if text(tr.node("interface", "swp4", "link")["mtu"]) != "9000" || tr.node("interface", "swp3") != nil {
		t.Errorf("interfaces %v", tr.node("interface"))
	}
	if text(tr.node("system")["hostname"]) != "leaf" {
		t.Errorf("generic leaf: %v", tr.node("system"))
	}
	if tr.node("qos", "pfc") != nil {
		t.Error("a line not starting with a prompt or nv is output")
	}
	for _, bad := range []string{"nv set qos mapping default-global dscp 64 switch-priority 1", "nv set qos pfc default-global cable-length",
		"nv set interface swp9-1 link mtu 9000", "nv set qos egress-scheduler default-global traffic-class , mode strict"} {
		if _, err := ParseCommands(bad); err == nil || !strings.Contains(err.Error(), "line 1") {
			t.Errorf("%q: got %v", bad, err)
		}
	}
}

// TestQoSFeaturesReleases (issue 26, corpus): the ECN a file does not state
// is its release's default — Cumulus 5.x marks queue 0, a 3.x/4.x
// traffic.conf nothing — and a default profile that names its queues
// replaces queue 0; keys the reader does not take are listed.
func TestQoSFeaturesReleases(t *testing.T) {
	ecnOn := func(text string) (string, []string) {
		t.Helper()
		si, err := ParseQoSFeatures(text)
		if err != nil {
			t.Fatal(err)
		}
		var on []int
		for _, c := range si.Classes {
			if c.ECN != nil {
				on = append(on, c.Priority)
			}
		}
		var un []string
		for _, u := range si.Unparsed {
			un = append(un, u.Text)
		}
		return fmt.Sprint(on), un
	}
	for _, tc := range []struct{ text, ecn, unparsed string }{
		{"traffic.packet_priority_source_set = [dscp]\ntraffic.priority_group_list = [bulk]\npriority_group.bulk.cos_list = [0,1,2,3,4,5,6,7]\n", "[]",
			"[priority_group.bulk.cos_list = [0,1,2,3,4,5,6,7]]"}, // 3.x/4.x scheduling groups are not read
		{"traffic.packet_priority_source_set = [dscp]\n", "[0]", "[]"},
		{"default_ecn_red_conf.egress_queue_list = [4,5,7]\ndefault_ecn_red_conf.ecn_enable = true\n", "[4 5 7]", "[]"},
		{"traffic.packet_priority_source_set = [dscp]\nmy-red-profile.egress_queue_list = [1,2]\nsource.port_group_list = [g]\n", "[0]",
			"[my-red-profile.egress_queue_list = [1,2] source.port_group_list = [g]]"},
		{"traffic.packet_priority_source_set = [dscp]\npriority_group.bulk.weight = 16\nhash_config.sip = true\npfc.g.xoff_size = 18000\n", "[]", "[priority_group.bulk.weight = 16]"},
	} {
		ecn, un := ecnOn(tc.text)
		if ecn != tc.ecn || fmt.Sprint(un) != tc.unparsed {
			t.Errorf("%q: ecn on %s unparsed %v, want %s %s", tc.text, ecn, un, tc.ecn, tc.unparsed)
		}
	}
}
