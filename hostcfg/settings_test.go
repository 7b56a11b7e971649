package hostcfg

import (
	"slices"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/fabric"
)

// TestSettingSpecsDeriveOrderShowAndDisruption: the apply order, the show
// list and the disruption notes all come from settingSpecs, as DESIGN.md
// §4.1 and the plan notes have them.
func TestSettingSpecsDeriveOrderShowAndDisruption(t *testing.T) {
	var order []string
	for _, s := range settingSpecs {
		order = append(order, s.name)
	}
	want := "mtu dcbx global-pause dscp-map trust ets pfc.delay pfc.enable ecn.np ecn.rp cnp.dscp cnp.priority " +
		"dcqcn.np. dcqcn.rp. roce.mode roce.tos ipoib. pkey."
	if got := strings.Join(order, " "); got != want {
		t.Errorf("apply order\n%s\nwant\n%s", got, want)
	}
	if got := strings.Join(allSettings, " "); got != "mtu dcbx global-pause dscp-map trust ets pfc.delay pfc.enable ecn.np ecn.rp cnp.dscp cnp.priority roce.mode roce.tos" {
		t.Errorf("host show lists %s", got)
	}
	for setting, disruptive := range map[string]bool{SettingPFCEnable: true, SettingMTU: true, SettingTrust: true,
		SettingETS: false, SettingPFCDelay: false, DCQCNSetting("rp", "rpg_ai_rate"): false, "colour": false} {
		if (disruption(setting) != "") != disruptive {
			t.Errorf("disruption(%q) = %q", setting, disruption(setting))
		}
	}
	for _, s := range settingSpecs {
		if s.bind == nil && s.name != prefixPKey {
			t.Errorf("%s has no backend", s.name)
		}
	}
}

// TestDesiredSettingsInApplyOrder: a full intent wants every managed
// setting once, in apply order; an intent without trust manages no QoS.
func TestDesiredSettingsInApplyOrder(t *testing.T) {
	in := fabric.InterfaceIntent{Name: "eth0", MTU: 9000, Trust: "dscp", DCBX: 0x09,
		PFC:   fabric.HostPFC{Priorities: []int{3}, Delay: 5},
		ECN:   fabric.HostECN{Priorities: []int{3}},
		DCQCN: fabric.HostDCQCN{Enabled: true, RP: map[string]int{"rpg_time_reset": 300, "rpg_ai_rate": 5}},
		RoCE:  fabric.HostRoCE{Mode: "RoCE v2", ToS: 106}}
	var got []string
	for _, d := range desiredSettings(in) {
		got = append(got, d.setting+"="+d.value)
	}
	if !slices.IsSortedFunc(desiredSettings(in), func(a, b desiredValue) int { return compareSettings(a.setting, b.setting) }) {
		t.Errorf("not in apply order: %v", got)
	}
	for _, want := range []string{"mtu=9000", "pfc.delay=5", "ecn.rp=3", "dcqcn.rp.rpg_ai_rate=5", "dcqcn.rp.rpg_time_reset=300", "roce.tos=106"} {
		if !slices.Contains(got, want) {
			t.Errorf("%s missing from %v", want, got)
		}
	}
	in.Trust, in.RoCE.Mode = "", ""
	if got := desiredSettings(in); len(got) != 1 || got[0].setting != SettingMTU {
		t.Errorf("without trust and RoCE mode only the MTU is managed: %v", got)
	}
}

// TestDisruptionOfValues: what interrupts traffic on a host, value by
// value: a DSCP map change only when a DSCP moves to or from a lossless
// priority; pfc_en and the MTU flap the link, trust does not.
func TestDisruptionOfValues(t *testing.T) {
	const lossless3 = 1 << 3
	for _, tc := range []struct {
		setting, old, new string
		lossless          uint8
		disruptive, flaps bool
	}{
		{SettingDSCPMap, "0-25:0 26:3 27-63:0", "0-24:0 25:1 26:3 27-63:0", lossless3, false, false},
		{SettingDSCPMap, "0-25:0 26:3 27-63:0", "0-63:0", lossless3, true, false},
		{SettingDSCPMap, "0-63:0", "0-25:0 26:3 27-63:0", lossless3, true, false},
		{SettingDSCPMap, "none", "0-25:0 26:3 27-63:0", lossless3, true, false},
		{SettingDSCPMap, "none", "0-25:0 26:3 27-63:0", 0, false, false},
		{SettingPFCEnable, "none", "3", lossless3, true, true},
		{SettingMTU, "1500", "9000", 0, true, true},
		{SettingTrust, "pcp", "dscp", 0, true, false},
		{SettingETS, "prio-tc=0,0,0,0,0,0,0,0", "prio-tc=0,0,0,3,0,0,0,0", lossless3, false, false},
		{SettingPFCDelay, "0", "5", lossless3, false, false},
		{SettingECNNP, "none", "3", lossless3, false, false},
		{DCQCNSetting("rp", "rpg_ai_rate"), "5", "10", lossless3, false, false},
	} {
		why, flaps := disruptionOf(tc.setting, tc.old, tc.new, tc.lossless)
		if (why != "") != tc.disruptive || flaps != tc.flaps {
			t.Errorf("%s %s → %s (lossless %08b): %q flaps %v, want disruptive %v flaps %v",
				tc.setting, tc.old, tc.new, tc.lossless, why, flaps, tc.disruptive, tc.flaps)
		}
	}
}
