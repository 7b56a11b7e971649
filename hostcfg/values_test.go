package hostcfg

import (
	"errors"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/hostcfg/ethtool"
)

func TestValueRoundTrips(t *testing.T) {
	for bits := range 256 {
		s := formatPrios(uint8(bits))
		got, err := parsePrios(s)
		if err != nil || got != uint8(bits) {
			t.Fatalf("parsePrios(formatPrios(%08b) = %q) = %08b, %v", bits, s, got, err)
		}
		s = formatDCBX(uint8(bits))
		m, err := parseDCBX(s)
		if err != nil || formatDCBX(m) != s || (bits&3 != 0 && m != uint8(bits)) {
			t.Fatalf("parseDCBX(formatDCBX(%#x) = %q) = %#x, %v", bits, s, m, err)
		}
	}
	for _, p := range []ethtool.Pause{{}, {RX: true}, {TX: true}, {RX: true, TX: true}, {Autoneg: true, RX: true, TX: true}} {
		got, err := parsePause(formatPause(p))
		if err != nil || got != p {
			t.Errorf("parsePause(formatPause(%+v)) = %+v, %v", p, got, err)
		}
	}
	e := etsValue{PrioTC: [8]uint8{0, 0, 0, 3, 0, 0, 6, 0}, TSA: [8]uint8{2, 0, 0, 2, 0, 0, 0, 255}, Bandwidth: [8]uint8{50, 0, 0, 50}}
	if got, err := parseETS(formatETS(e)); err != nil || got != e {
		t.Errorf("parseETS(formatETS(e)) = %+v, %v", got, err)
	}
	var m []fabric.DSCPEntry
	for d := range 64 {
		m = append(m, fabric.DSCPEntry{DSCP: uint8(d), Priority: map[int]uint8{26: 3, 48: 6}[d]})
	}
	if s := formatDSCPMap(m); s != "0-25:0 26:3 27-47:0 48:6 49-63:0" {
		t.Errorf("formatDSCPMap = %q", s)
	}
	got, err := parseDSCPMap(formatDSCPMap(m))
	if err != nil || formatDSCPMap(got) != formatDSCPMap(m) || len(got) != 64 {
		t.Errorf("parseDSCPMap round trip = %d entries, %v", len(got), err)
	}
	// Two priorities for one DSCP (the APP table allows it) stay visible.
	dup := []fabric.DSCPEntry{{DSCP: 26, Priority: 5}, {DSCP: 26, Priority: 3}}
	if s := formatDSCPMap(dup); s != "26:3 26:5" {
		t.Errorf("formatDSCPMap(dup) = %q", s)
	}
}

func TestValueParseErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
	}{
		{"prios", func() error { _, err := parsePrios("3,3"); return err }()},
		{"prios range", func() error { _, err := parsePrios("8"); return err }()},
		{"prios empty", func() error { _, err := parsePrios(""); return err }()},
		{"dcbx", func() error { _, err := parseDCBX("host,bogus"); return err }()},
		{"dcbx decimal", func() error { _, err := parseDCBX("9"); return err }()},
		{"pause", func() error { _, err := parsePause("rx,rx"); return err }()},
		{"dscp order", func() error { _, err := parseDSCPMap("48:6 26:3"); return err }()},
		{"dscp range", func() error { _, err := parseDSCPMap("0-64:0"); return err }()},
		{"dscp prio", func() error { _, err := parseDSCPMap("1:8"); return err }()},
		{"ets fields", func() error { _, err := parseETS("prio-tc=0,0,0,0,0,0,0,0"); return err }()},
		{"ets tc", func() error {
			_, err := parseETS("prio-tc=0,0,0,9,0,0,0,0 tsa=ets,ets,ets,ets,ets,ets,ets,ets bw=0,0,0,0,0,0,0,0")
			return err
		}()},
		{"int", func() error { _, err := parseInt("09", 0, 100); return err }()},
		{"int range", func() error { _, err := parseInt("101", 0, 100); return err }()},
	} {
		if !errors.Is(tc.err, ErrBadValue) {
			t.Errorf("%s: error %v, want ErrBadValue", tc.name, tc.err)
		}
	}
}

func TestDesiredSettingsGating(t *testing.T) {
	names := func(in fabric.InterfaceIntent) string {
		var out []string
		for _, d := range desiredSettings(in) {
			out = append(out, d.setting)
		}
		return strings.Join(out, " ")
	}
	if got := names(fabric.InterfaceIntent{Name: "x", MTU: 9000}); got != "mtu" {
		t.Errorf("MTU-only intent manages %q", got)
	}
	if got := names(fabric.InterfaceIntent{Name: "x", RoCE: fabric.HostRoCE{Mode: "RoCE v2", ToS: 106}}); got != "roce.mode roce.tos" {
		t.Errorf("RoCE-only intent manages %q", got)
	}
	full := fabric.InterfaceIntent{Name: "x", MTU: 9000, DCBX: 9, Trust: "dscp", PFC: fabric.HostPFC{Priorities: []int{3}, Delay: 5},
		DCQCN: fabric.HostDCQCN{Enabled: true, NP: map[string]int{"min_time_between_cnps": 0}, RP: map[string]int{"rpg_gd": 11}}}
	want := "mtu dcbx global-pause dscp-map trust ets pfc.delay pfc.enable ecn.np ecn.rp cnp.dscp cnp.priority " +
		"dcqcn.np.min_time_between_cnps dcqcn.rp.rpg_gd"
	if got := names(full); got != want {
		t.Errorf("full intent manages\n %q\nwant\n %q", got, want)
	}
	for _, d := range desiredSettings(full) {
		if d.setting == SettingPFCEnable && d.value != "3" {
			t.Errorf("pfc.enable from Priorities [3] = %q", d.value)
		}
	}
}

func TestSettingNames(t *testing.T) {
	if got := IPoIBSetting(0x0002); got != "ipoib.0x8002" {
		t.Errorf("IPoIBSetting = %s", got)
	}
	if got := PKeySetting(0x8abc); got != "pkey.0x0abc" {
		t.Errorf("PKeySetting = %s", got)
	}
	if k, err := parsePKeySetting("ipoib.0x8002", prefixIPoIB); err != nil || k != 0x8002 {
		t.Errorf("parsePKeySetting = %#x, %v", k, err)
	}
	for _, bad := range []string{"ipoib.8002", "ipoib.0xzzzz", "ipoib.0x80021"} {
		if _, err := parsePKeySetting(bad, prefixIPoIB); !errors.Is(err, ErrUnknownSetting) {
			t.Errorf("parsePKeySetting(%q) = %v", bad, err)
		}
	}
	if compareSettings(SettingDSCPMap, SettingTrust) >= 0 || compareSettings("dcqcn.rp.a", SettingRoCEMode) >= 0 ||
		compareSettings(SettingMTU, SettingDCBX) >= 0 {
		t.Error("apply order broken")
	}
}

// FuzzParseValue feeds arbitrary text to every value parser: none panics,
// and whatever parses is canonical (formats back to the same text).
func FuzzParseValue(f *testing.F) {
	for _, s := range []string{"none", "3", "3,4", "host,ieee", "firmware", "host,0x40", "off", "rx,tx", "autoneg,rx",
		"0-25:0 26:3 27-47:0 48:6 49-63:0", "26:3 26:5",
		"prio-tc=0,0,0,3,0,0,6,0 tsa=ets,strict,strict,ets,strict,strict,strict,strict bw=50,0,0,50,0,0,0,0", "9000"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if b, err := parsePrios(s); err == nil && formatPrios(b) != s {
			t.Errorf("prios %q → %q", s, formatPrios(b))
		}
		if m, err := parseDCBX(s); err == nil && formatDCBX(m) != s {
			t.Errorf("dcbx %q → %q", s, formatDCBX(m))
		}
		if p, err := parsePause(s); err == nil && formatPause(p) != s {
			t.Errorf("pause %q → %q", s, formatPause(p))
		}
		if es, err := parseDSCPMap(s); err == nil && formatDSCPMap(es) != s {
			t.Errorf("dscp map %q → %q", s, formatDSCPMap(es))
		}
		if e, err := parseETS(s); err == nil && formatETS(e) != s {
			t.Errorf("ets %q → %q", s, formatETS(e))
		}
	})
}
