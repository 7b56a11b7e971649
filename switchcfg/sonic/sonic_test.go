package sonic

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/internal/testutil"
	"github.com/fabricctl/fabricctl/switchcfg"
	"github.com/fabricctl/fabricctl/switchcfg/drivertest"
)

func readFixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// labSwitch resolves the repository's lab fabric and returns its SONiC switch.
func labSwitch(t *testing.T) fabric.SwitchIntent {
	t.Helper()
	f, err := fabric.Load(filepath.Join(testutil.RepoRoot(t), "profiles", "lab", "fabric.yaml"))
	if err != nil {
		t.Fatalf("loading the lab fabric: %v", err)
	}
	for _, s := range f.Resolve().Switches {
		if s.Platform == Platform {
			return s
		}
	}
	t.Fatalf("the lab fabric has no %s switch", Platform)
	return fabric.SwitchIntent{}
}

func profileIntent(t *testing.T, file, name string, ports ...string) fabric.SwitchIntent {
	t.Helper()
	f, err := fabric.Load(filepath.Join(testutil.RepoRoot(t), "profiles", file))
	if err != nil {
		t.Fatalf("loading %s: %v", file, err)
	}
	p := f.Profiles[name]
	if p == nil || p.Spec.Ethernet == nil {
		t.Fatalf("%s has no Ethernet profile %q", file, name)
	}
	si := fabric.SwitchIntent{APIVersion: fabric.APIVersion, Platform: Platform, Ports: ports}
	fabric.ResolveSwitchQoS(p.Spec.Ethernet, &si)
	return si
}

// queueShiftIntent puts lossless priority 3 on queue 4 (as Junos fabrics
// do), with PCP trust and a forwarding watchdog.
func queueShiftIntent() fabric.SwitchIntent {
	return fabric.SwitchIntent{Platform: Platform, Ports: []string{"Ethernet8", "Ethernet12"}, MTU: 9216, Trust: "pcp",
		Classes: []fabric.SwitchClass{
			{Name: "be", Priority: 0, TrafficClass: 0, Queue: 0, DSCP: []int{}, BandwidthPercent: 40},
			{Name: "rdma", Priority: 3, TrafficClass: 3, Queue: 4, DSCP: []int{}, Lossless: true, BandwidthPercent: 60,
				ECN: &fabric.SwitchECN{MinBytes: 200000, MaxBytes: 800000, MaxMarkProbability: 30}},
			{Name: "nc", Priority: 7, TrafficClass: 7, Queue: 7, DSCP: []int{}, Strict: true},
		},
		PFC: fabric.SwitchPFC{Priorities: []int{3}, CableLengthMeters: 300,
			Watchdog: &fabric.SwitchPFCWatchdog{Enabled: true, PollIntervalMs: 200, DetectionTimeMs: 400, RestorationTimeMs: 2000, Action: "forward"}},
	}
}

// TestRenderWritesTheWholeDSCPMap: every code point, 26 to the lossless class.
func TestRenderWritesTheWholeDSCPMap(t *testing.T) {
	db, err := Desired(labSwitch(t))
	if err != nil {
		t.Fatal(err)
	}
	m := db[tDSCPToTC][Name]
	if len(m) != 64 || m["26"] != "3" || m["48"] != "6" || m["0"] != "0" || m["24"] != "0" {
		t.Fatalf("DSCP map %v", m)
	}
	q := db.entry(tPortQoSMap, "Ethernet0")
	if q["pfc_enable"] != "3" || q["dscp_to_tc_map"] != Name {
		t.Errorf("PORT_QOS_MAP %v", q)
	}
	if w := db.entry(tWRED, "FABRICCTL_Q3"); w["ecn"] != "ecn_all" || w["green_min_threshold"] != "150000" || w["green_max_threshold"] != "1500000" {
		t.Errorf("WRED %v", w)
	}
	if db.entry(tQueue, "Ethernet0|6")["scheduler"] != schedulerStrict || db.entry(tQueue, "Ethernet0|0")["wred_profile"] != "" {
		t.Errorf("QUEUE %v", db[tQueue])
	}
	if wd := db.entry(tPFCWD, "Ethernet12"); wd["detection_time"] != "200" || wd["restoration_time"] != "400" || wd["action"] != "drop" {
		t.Errorf("PFC_WD %v", wd)
	}
	if db.entry(tCableLength, Name)["Ethernet4"] != "5m" || db.entry(tPort, "Ethernet8")["mtu"] != "9216" {
		t.Errorf("cable %v port %v", db[tCableLength], db[tPort])
	}
}

func intents(t *testing.T) map[string]fabric.SwitchIntent {
	return map[string]fabric.SwitchIntent{
		"lab":         labSwitch(t),
		"lossy-ecn":   profileIntent(t, "roce-lossy-ecn.yaml", "roce-lossy-ecn", "Ethernet0", "Ethernet4"),
		"queue-shift": queueShiftIntent(),
		"mellanox":    mellanoxIntent(t),
	}
}

// mellanoxIntent is the lab intent on a Spectrum switch, whose orchagent
// takes pfc_to_pg_map, with two lossless priorities and the watchdog off.
func mellanoxIntent(t *testing.T) fabric.SwitchIntent {
	si := labSwitch(t)
	si.Model = "Mellanox-SN4600C-C64"
	si.Classes = append(si.Classes, fabric.SwitchClass{Name: "storage", Priority: 4, TrafficClass: 4, Queue: 4,
		DSCP: []int{34}, Lossless: true, BandwidthPercent: 0})
	si.Classes[0].DSCP = slices.DeleteFunc(slices.Clone(si.Classes[0].DSCP), func(d int) bool { return d == 34 })
	si.PFC.Priorities = []int{3, 4}
	si.PFC.Watchdog = &fabric.SwitchPFCWatchdog{}
	return si
}

// TestConformance runs the driver kit: Info, ports, golden renderings,
// render → parse round trips through the CONFIG_DB read-back, refused
// intents, Observe and foreign configurations.
func TestConformance(t *testing.T) {
	tests := []drivertest.Reject{
		{"tc differs", func(si *fabric.SwitchIntent) { si.Classes[1].TrafficClass = 5; si.Classes[1].Queue = 5 }, true, "traffic class 5 differs from priority 3"},
		{"bad port", func(si *fabric.SwitchIntent) { si.Ports = append(si.Ports, "swp1") }, false, `port "swp1" is not a sonic port name`},
		{"wd action", func(si *fabric.SwitchIntent) { si.PFC.Watchdog.Action = "shutdown" }, true, `action "shutdown"`},
		{"wd restore", func(si *fabric.SwitchIntent) { si.PFC.Watchdog.RestorationTimeMs = 70000 }, true, "restoration time 70000 ms"},
		// sonic-pfcwd.yang: POLL_INTERVAL 100..1000, times >= POLL_INTERVAL.
		{"wd poll 3000", func(si *fabric.SwitchIntent) { si.PFC.Watchdog.PollIntervalMs = 3000 }, true, "poll interval 3000 ms outside 100..1000"},
		{"wd detection below poll", func(si *fabric.SwitchIntent) {
			si.PFC.Watchdog.PollIntervalMs, si.PFC.Watchdog.DetectionTimeMs = 500, 200
		}, true, "shorter than the 500 ms poll interval"},
		{"unknown model", func(si *fabric.SwitchIntent) { si.Model = "tomahawk-x" }, true, `unknown sonic model "tomahawk-x"`},
		{"mtu", func(si *fabric.SwitchIntent) { si.MTU = 1000 }, true, "MTU 1000"},
		{"trust", func(si *fabric.SwitchIntent) { si.Trust = "" }, true, `trust ""`},
		{"dscp shared", func(si *fabric.SwitchIntent) { si.Classes[2].DSCP = append(si.Classes[2].DSCP, 26) }, false, "DSCP 26 already in class"},
	}
	drivertest.Run(t, New(), drivertest.Spec{Register: Register, Goldens: drivertest.Goldens("render-%s.golden", intents(t)),
		Readback: func(_ testing.TB, cfg switchcfg.Config) switchcfg.Readback {
			return switchcfg.Readback{CmdRunningConfig: []byte(cfg.Text)}
		},
		Base: func() fabric.SwitchIntent { return labSwitch(t) }, Rejects: tests,
		GoodPorts: []string{"Ethernet0", "Ethernet124"},
		BadPorts:  []string{"Ethernet", "Ethernet01", "ethernet0", "Ethernet1/1", "swp1", "PortChannel1"},
	})
}

func TestParseDefaultFixture(t *testing.T) {
	si, err := New().Parse(switchcfg.Readback{CmdRunningConfig: readFixture(t, "running-config-default.json")})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.MarshalIndent(si, "", "  ")
	testutil.Golden(t, "parse-running-config-default.golden", append(b, '\n'))

	// Hand-checked: two bound ports, lossless 3,4, DSCP 26 in lossy TC 1;
	// the two ports without PORT_QOS_MAP are a group without QoS.
	if strings.Join(si.Ports, ",") != "Ethernet0,Ethernet4,Ethernet8,Ethernet12" || si.Trust != "dscp" || si.MTU != 9100 ||
		len(si.PortGroups) != 1 || fmt.Sprint(si.PortGroups[0].Ports) != "[Ethernet8 Ethernet12]" || len(si.PortGroups[0].PFC.Priorities) != 0 {
		t.Errorf("ports %v trust %s mtu %d groups %+v", si.Ports, si.Trust, si.MTU, si.PortGroups)
	}
	if switchcfg.FormatIntSet(si.PFC.Priorities) != "3-4" || si.PFC.CableLengthMeters != 40 {
		t.Errorf("pfc %+v", si.PFC)
	}
	byPrio := map[int]fabric.SwitchClass{}
	for _, c := range si.Classes {
		byPrio[c.Priority] = c
	}
	if c := byPrio[1]; c.Lossless || !contains(c.DSCP, 26) || c.BandwidthPercent != 20 || c.ECN != nil {
		t.Errorf("TC1 %+v", c)
	}
	if c := byPrio[3]; !c.Lossless || switchcfg.FormatIntSet(c.DSCP) != "3" || c.BandwidthPercent != 30 ||
		c.ECN == nil || *c.ECN != (fabric.SwitchECN{MinBytes: 500000, MaxBytes: 2000000, MaxMarkProbability: 10}) {
		t.Errorf("TC3 %+v", c)
	}
	if wd := si.PFC.Watchdog; !wd.Enabled || wd.PollIntervalMs != 200 || wd.DetectionTimeMs != 400 || wd.Action != "drop" {
		t.Errorf("watchdog %+v", wd)
	}
	// The stock-map case, as drift against the lab intent.
	lab := labSwitch(t)
	var stock bool
	for _, d := range switchcfg.Compare(lab, si) {
		stock = stock || (d.Field == "classes[roce].dscp[26]" && d.Got == "lossy (priority 1)")
	}
	if !stock {
		t.Errorf("DSCP 26 in lossy TC 1 not reported: %v", switchcfg.Compare(lab, si))
	}
}

func TestParseShowPFCWDOverrides(t *testing.T) {
	si, err := New().Parse(switchcfg.Readback{
		CmdRunningConfig: readFixture(t, "running-config-default.json"),
		CmdShowPFCWD:     readFixture(t, "show-pfcwd.txt"),
	})
	if err != nil {
		t.Fatal(err)
	}
	if wd := si.PFC.Watchdog; !wd.Enabled || wd.Action != "forward" || wd.DetectionTimeMs != 300 || wd.RestorationTimeMs != 900 || wd.PollIntervalMs != 250 {
		t.Errorf("watchdog %+v", wd)
	}
}

func TestParseErrors(t *testing.T) {
	cases := map[string]switchcfg.Readback{
		"missing":                 {"show version": nil},
		"decoding JSON":           {CmdRunningConfig: []byte("{")},
		"empty document":          {CmdRunningConfig: []byte("")},
		"table PORT_QOS_MAP":      {CmdRunningConfig: []byte(`{"PORT_QOS_MAP": []}`)},
		"pfc_enable":              {CmdRunningConfig: []byte(`{"PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3,9"}}}`)},
		`DSCP_TO_TC_MAP|M entry`:  {CmdRunningConfig: []byte(`{"PORT_QOS_MAP": {"Ethernet0": {"dscp_to_tc_map": "M"}}, "DSCP_TO_TC_MAP": {"M": {"64": "1"}}}`)},
		"green_min_threshold":     {CmdRunningConfig: []byte(`{"PORT_QOS_MAP": {"Ethernet0": {"dscp_to_tc_map": "M"}}, "DSCP_TO_TC_MAP": {"M": {"1": "0"}}, "QUEUE": {"Ethernet0|0": {"wred_profile": "W"}}, "WRED_PROFILE": {"W": {"ecn": "ecn_all", "green_min_threshold": "x"}}}`)},
		"no show pfcwd config":    {CmdRunningConfig: []byte(`{"DEVICE_METADATA": {}}`), CmdShowPFCWD: []byte("nothing")},
		"line 3: time":            {CmdRunningConfig: []byte(`{"DEVICE_METADATA": {}}`), CmdShowPFCWD: []byte("PORT ACTION DETECTION RESTORATION\n---\nEthernet0 drop soon 200\n")},
		`"swp1" is not a port`:    {CmdRunningConfig: []byte(`{"DEVICE_METADATA": {}}`), CmdShowPFCWD: []byte("PORT ACTION\nswp1 drop 200 200\n")},
		"field pfc_enable: unexp": {CmdRunningConfig: []byte(`{"PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": {"a": 1}}}}`)},
	}
	for want, rb := range cases {
		if _, err := New().Parse(rb); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v", want, err)
		}
	}
}

func contains(set []int, v int) bool {
	for _, e := range set {
		if e == v {
			return true
		}
	}
	return false
}

// TestRenderPFCToPGByASIC: only Mellanox and Barefoot get the PFC priority →
// priority group map (qos_config.j2's pfc_to_pg_map_supported_asics); a
// watchdog disables by an empty pfcwd_sw_enable, enables with the PFC
// priorities, and is not written at all when the intent has none.
func TestRenderPFCToPGByASIC(t *testing.T) {
	mlx, err := Desired(mellanoxIntent(t))
	if err != nil {
		t.Fatal(err)
	}
	if mlx[tPortQoSMap]["Ethernet0"]["pfc_to_pg_map"] != Name || mlx[tPFCToPG][Name]["4"] != "4" || mlx[tPortQoSMap]["Ethernet0"]["pfc_enable"] != "3,4" {
		t.Errorf("mellanox: %v %v", mlx[tPortQoSMap]["Ethernet0"], mlx[tPFCToPG])
	}
	if v, ok := mlx[tPortQoSMap]["Ethernet0"][fPFCWDSwEnable]; !ok || v != "" {
		t.Errorf("disabled watchdog: pfcwd_sw_enable %q %v", v, ok)
	}
	bcm, _ := Desired(labSwitch(t))
	if _, ok := bcm[tPortQoSMap]["Ethernet0"]["pfc_to_pg_map"]; ok || bcm[tPFCToPG] != nil {
		t.Errorf("broadcom has pfc_to_pg_map: %v", bcm[tPortQoSMap]["Ethernet0"])
	}
	if bcm[tPortQoSMap]["Ethernet0"][fPFCWDSwEnable] != "3" {
		t.Errorf("enabled watchdog: %v", bcm[tPortQoSMap]["Ethernet0"])
	}
	none := labSwitch(t)
	none.PFC.Watchdog = nil
	db, _ := Desired(none)
	if _, ok := db[tPortQoSMap]["Ethernet0"][fPFCWDSwEnable]; ok || db[tPFCWD] != nil {
		t.Errorf("no watchdog in the intent, but %v %v", db[tPortQoSMap]["Ethernet0"], db[tPFCWD])
	}
}

// FuzzRenderParseRender: render → parse → render is stable (drivertest.FuzzRoundTrip).
func FuzzRenderParseRender(f *testing.F) {
	drivertest.FuzzRoundTrip(f, New(), func(_ testing.TB, cfg switchcfg.Config) switchcfg.Readback {
		return switchcfg.Readback{CmdRunningConfig: []byte(cfg.Text)}
	})
}
