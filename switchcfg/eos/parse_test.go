package eos

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
	"github.com/google/go-cmp/cmp"
)

func readback(text string) switchcfg.Readback {
	return switchcfg.Readback{ReadbackRunningConfig: []byte(text)}
}

// asRunning turns rendered commands into what `show running-config` would
// show after them on a switch that had no QoS: the "no" resets vanish ("no
// priority" is a tx-queue setting, not a reset, and stays).
func asRunning(text string) switchcfg.Readback {
	var keep []string
	for _, l := range strings.Split(text, "\n") {
		if t := strings.TrimSpace(l); !strings.HasPrefix(t, "no ") || t == "no priority" {
			keep = append(keep, l)
		}
	}
	return readback(strings.Join(keep, "\n"))
}

func TestParseGolden(t *testing.T) {
	for _, name := range []string{"running-config-roce", "running-config-drift"} {
		t.Run(name, func(t *testing.T) {
			text, err := os.ReadFile(filepath.Join("testdata", name+".txt"))
			if err != nil {
				t.Fatal(err)
			}
			got, err := New().Parse(readback(string(text)))
			if err != nil {
				t.Fatal(err)
			}
			js, err := json.MarshalIndent(got, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			testutil.Golden(t, "parse_"+name+".golden", append(js, '\n'))
		})
	}
}

// TestParseFixtureMeaning asserts by hand what the golden files hold.
func TestParseFixtureMeaning(t *testing.T) {
	text, err := os.ReadFile("testdata/running-config-roce.txt")
	if err != nil {
		t.Fatal(err)
	}
	got, err := New().Parse(readback(string(text)))
	if err != nil {
		t.Fatal(err)
	}
	want := recipe()
	// Every Ethernet port, those without QoS too (issue 26: a port
	// without QoS is a fact, read in its own group by parseGrouped).
	want.Ports = []string{"Ethernet1/1", "Ethernet1/2", "Ethernet2/1", "Ethernet10/1"}
	want.Classes[0].BandwidthPercent, want.Classes[1].BandwidthPercent = 40, 60
	if diff := cmp.Diff(carried(want), got); diff != "" {
		t.Errorf("roce fixture (-want +got):\n%s", diff)
	}

	text, err = os.ReadFile("testdata/running-config-drift.txt")
	if err != nil {
		t.Fatal(err)
	}
	got, err = New().Parse(readback(string(text)))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.Ports, []string{"Ethernet1/1", "Ethernet1/2", "Ethernet2/1", "Ethernet2/2", "Ethernet10/1"}) {
		t.Errorf("ports %v", got.Ports)
	}
	if got.MTU != 0 || got.Trust != "" {
		t.Errorf("mixed MTU/trust read as %d/%q, want 0/\"\"", got.MTU, got.Trust)
	}
	if got.Classes[1].ECN != nil {
		t.Errorf("ECN differing between ports read as %+v", got.Classes[1].ECN)
	}
	if wd := got.PFC.Watchdog; wd == nil || wd.Enabled || wd.DetectionTimeMs != 200 {
		t.Errorf("watchdog off on one port read as %+v", wd)
	}
	if !slices.Equal(got.PFC.Priorities, []int{3}) || !got.Classes[1].Lossless {
		t.Errorf("PFC %v lossless=%v", got.PFC.Priorities, got.Classes[1].Lossless)
	}
}

// TestParseCorpus parses every Arista sample of the shared corpus into the
// intent checked by hand.
func TestParseCorpus(t *testing.T) {
	checks := map[string]func(t *testing.T, got fabric.SwitchIntent){
		"arista-eos-avd-qos-intended.txt": checkAVDQoS,
	}
	for _, f := range testutil.CorpusFiles(t, "switches", "arista-*") {
		name := f.Name
		t.Run(name, func(t *testing.T) {
			check, ok := checks[name]
			if !ok {
				t.Fatalf("no hand-checked expectation for corpus sample %s", name)
			}
			got, err := New().Parse(readback(f.Text()))
			if err != nil {
				t.Fatal(err)
			}
			check(t, got)
			// Whatever parses must render and read back the same, when EOS can express it.
			if cfg, err := New().Render(got); err == nil {
				again, err := New().Parse(asRunning(cfg.Text))
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(got, again); diff != "" {
					t.Errorf("parse→render→parse differs:\n%s", diff)
				}
			}
		})
	}
}

// checkAVDQoS: Arista AVD's QoS test config. Five Ethernet ports, three carry QoS
// (Ethernet1 through qos profile "test", Ethernet6 through "experiment",
// Ethernet7 through "qprof_testwithpolicy"); they disagree on trust (dscp,
// cos, unset) and MTU (only Ethernet1 sets 1500), so both read as empty.
// PFC is off everywhere (`priority-flow-control all off`, and the profile
// with PFC is applied to no port); the watchdog has global timers only.
func checkAVDQoS(t *testing.T, got fabric.SwitchIntent) {
	if want := []string{"Ethernet1", "Ethernet3", "Ethernet4", "Ethernet6", "Ethernet7"}; !slices.Equal(got.Ports, want) {
		t.Errorf("ports %v, want %v", got.Ports, want)
	}
	if got.MTU != 0 || got.Trust != "" {
		t.Errorf("MTU %d trust %q, want 0 and \"\" (ports disagree)", got.MTU, got.Trust)
	}
	if len(got.PFC.Priorities) != 0 {
		t.Errorf("PFC priorities %v, want none", got.PFC.Priorities)
	}
	wantWD := &fabric.SwitchPFCWatchdog{Enabled: false, PollIntervalMs: 10001, DetectionTimeMs: 50, RestorationTimeMs: 1220, Action: "forward"}
	if diff := cmp.Diff(wantWD, got.PFC.Watchdog); diff != "" {
		t.Errorf("watchdog (-want +got):\n%s", diff)
	}
	// Traffic classes 1..5 receive traffic: 1, 4, 5 from the dscp maps,
	// 2 and 3 from the cos maps (cos 3 is moved from tc 2 to tc 3 by the later line).
	var tcs []int
	byTC := map[int]fabric.SwitchClass{}
	for _, c := range got.Classes {
		tcs = append(tcs, c.TrafficClass)
		byTC[c.TrafficClass] = c
	}
	if !slices.Equal(tcs, []int{1, 2, 3, 4, 5}) {
		t.Fatalf("traffic classes %v, want 1..5", tcs)
	}
	if c := byTC[4]; !slices.Equal(c.DSCP, []int{18, 20, 22, 26, 28, 30, 34, 36, 38}) || c.Priority != 4 || c.Queue != 4 {
		t.Errorf("tc 4 = %+v", c)
	}
	if c := byTC[5]; !slices.Equal(c.DSCP, []int{46}) {
		t.Errorf("tc 5 dscp %v, want [46]", c.DSCP)
	}
	if c := byTC[1]; len(c.DSCP) != 44 || c.DSCP[0] != 8 || c.DSCP[43] != 63 || slices.Contains(c.DSCP, 26) {
		t.Errorf("tc 1 dscp %v", c.DSCP)
	}
	if c := byTC[2]; c.Priority != 2 || len(c.DSCP) != 0 || c.Queue != 2 {
		t.Errorf("tc 2 = %+v (cos 1 2 4 map to it)", c)
	}
	for _, c := range got.Classes {
		// tx-queue settings differ between the three ports' profiles.
		if c.Strict || c.BandwidthPercent != 0 || c.ECN != nil || c.Lossless {
			t.Errorf("tc %d: strict=%v bw=%d ecn=%v lossless=%v, want all unset", c.TrafficClass, c.Strict, c.BandwidthPercent, c.ECN, c.Lossless)
		}
	}
}

// TestParsePorts restricts the reading to the intent's ports: the drifted
// ports of the drift fixture stop counting, and a listed port without QoS
// makes every per-port setting read as missing.
func TestParsePorts(t *testing.T) {
	text, err := os.ReadFile("testdata/running-config-drift.txt")
	if err != nil {
		t.Fatal(err)
	}
	ports := []string{"Ethernet1/2", "Ethernet1/1"}
	got, err := New().ParsePorts(readback(string(text)), ports)
	if err != nil {
		t.Fatal(err)
	}
	want := recipe()
	want.Ports = []string{"Ethernet1/1", "Ethernet1/2"}
	want.Classes[0].BandwidthPercent, want.Classes[1].BandwidthPercent = 40, 60
	if diff := cmp.Diff(carried(want), got); diff != "" {
		t.Errorf("ParsePorts(Ethernet1/1, Ethernet1/2) (-want +got):\n%s", diff)
	}
	if !slices.Equal(ports, []string{"Ethernet1/2", "Ethernet1/1"}) {
		t.Errorf("ParsePorts reordered its argument: %v", ports)
	}
	got, err = New().ParsePorts(readback(string(text)), []string{"Ethernet1/1", "Ethernet10/1"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.Ports, []string{"Ethernet1/1"}) || got.Trust != "" || got.MTU != 0 || len(got.PFC.Priorities) != 0 {
		t.Errorf("with a port without QoS: ports %v trust %q MTU %d PFC %v", got.Ports, got.Trust, got.MTU, got.PFC.Priorities)
	}
}

func TestParseErrors(t *testing.T) {
	for _, tt := range []struct{ text, want string }{
		{"qos map dscp 26 to traffic-class 16\n", "line 1"},
		{"qos map dscp 70 to traffic-class 3\n", `"70"`},
		{"qos map cos x to traffic-class 3\n", `"x"`},
		{"!\ninterface Ethernet1\n   tx-queue 3\n      random-detect ecn minimum-threshold -5 kbytes maximum-threshold 9 kbytes\n", "line 4"},
		{"priority-flow-control pause watchdog default timeout soon\n", "time in seconds"},
	} {
		_, err := New().Parse(readback(tt.text))
		if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "parsing "+Platform) {
			t.Errorf("Parse(%q) = %v, want an error naming %s", tt.text, err, tt.want)
		}
	}
	if _, err := New().Parse(switchcfg.Readback{}); err == nil {
		t.Error("Parse of an empty read-back succeeded")
	}
}

func TestParseEmpty(t *testing.T) {
	got, err := New().Parse(readback("hostname x\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Classes) != 0 || len(got.Ports) != 0 || len(got.PFC.Priorities) != 0 || got.PFC.Watchdog != nil {
		t.Errorf("config without QoS parsed as %+v", got)
	}
}

func FuzzParse(f *testing.F) {
	for _, name := range []string{"running-config-roce.txt", "running-config-drift.txt"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	for _, build := range intents {
		cfg, err := New().Render(build())
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(asRunning(cfg.Text)[ReadbackRunningConfig]))
	}
	f.Fuzz(func(t *testing.T, text string) {
		d := New()
		got, err := d.Parse(readback(text))
		if err != nil {
			return
		}
		// Whatever parses and renders must read back to the same intent.
		cfg, err := d.Render(got)
		if err != nil {
			return
		}
		again, err := d.Parse(asRunning(cfg.Text))
		if err != nil {
			t.Fatalf("rendered config does not parse: %v\n%s", err, cfg.Text)
		}
		// The hardware family is the switch's, not the configuration's
		// (issue 28): the capture's banner or queue commands say it, and a
		// rendering without queue commands (no class, or only queues it
		// resets with `no` lines, which a running-config does not show)
		// says nothing of it — the switch it is pushed to still prints its
		// banner. A rendering that names a family must name the first
		// reading's. A reading without a family is the default one (render
		// writes it so, and a second reading may or may not show it).
		if again.Model == "" {
			again.Model = got.Model
		}
		// What was not read is not rendered back, and a reading without
		// DSCP maps says so both times.
		got.Unparsed, again.Unparsed = nil, nil
		for _, si := range []*fabric.SwitchIntent{&got, &again} {
			if si.Model == "" {
				si.Model = ModelStrata
			}
			// A disabled watchdog renders as off on the ports only (its
			// timers and action act on nothing and are not written), and
			// off reads as none: Compare holds them equal.
			if w := si.PFC.Watchdog; w != nil && !w.Enabled {
				si.PFC.Watchdog = nil
			}
		}
		if diff := cmp.Diff(got, again); diff != "" {
			t.Fatalf("parse→render→parse differs:\n%s", diff)
		}
	})
}

// TestParseRunningConfigAll reads a `show running-config all` shaped like
// vEOS's (issue 14: the default map to traffic class 8 failed the whole
// parse, and uc-tx-queue, qos cos and default qos trust were ignored): a
// careful reader sees DSCP trust (routed ports' default), RoCE on priority
// 3 lossless with ECN, CNPs strict on 6, the rest on traffic class 1.
func TestParseRunningConfigAll(t *testing.T) {
	text, err := os.ReadFile("testdata/running-config-all-veos.txt")
	if err != nil {
		t.Fatal(err)
	}
	got, err := New().Parse(readback(string(text)))
	if err != nil {
		t.Fatal(err)
	}
	var rest []int
	for d := 0; d < 64; d++ {
		if d != 26 && d != 48 {
			rest = append(rest, d)
		}
	}
	want := fabric.SwitchIntent{APIVersion: fabric.APIVersion, Platform: Platform, Model: ModelStrata,
		Ports: []string{"Ethernet1", "Ethernet2"}, MTU: 9214, Trust: "dscp",
		Classes: []fabric.SwitchClass{
			{Priority: 1, TrafficClass: 1, Queue: 1, DSCP: rest, BandwidthPercent: 50},
			{Priority: 3, TrafficClass: 3, Queue: 3, DSCP: []int{26}, Lossless: true, BandwidthPercent: 50,
				ECN: &fabric.SwitchECN{MinBytes: 150000, MaxBytes: 1500000, MaxMarkProbability: 100}},
			{Priority: 6, TrafficClass: 6, Queue: 6, DSCP: []int{48}, Strict: true},
		},
		PFC: fabric.SwitchPFC{Priorities: []int{3},
			Watchdog: &fabric.SwitchPFCWatchdog{Enabled: true, PollIntervalMs: 100, DetectionTimeMs: 200, RestorationTimeMs: 400, Action: "drop"}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("running-config all (-want +got):\n%s", diff)
	}
}

// TestParseTrafficClassesAbove7 (issue 26, item 4): platforms with more
// traffic classes than data classes print maps from them (`qos map
// traffic-class 0 1 2 3 4 5 6 7 8 9 10 11 to uc-tx-queue 4`); the map is
// read for the classes 0..7 and the rest, which no DSCP or CoS reaches
// here, do not fail the reading.
func TestParseTrafficClassesAbove7(t *testing.T) {
	cfg := `hostname leaf1
qos map dscp 26 to traffic-class 3
qos map traffic-class 0 1 2 3 4 5 6 7 8 9 10 11 to uc-tx-queue 4
interface Ethernet1
   qos trust dscp
   priority-flow-control on
   priority-flow-control priority 3 no-drop
`
	si, err := New().Parse(switchcfg.Readback{ReadbackRunningConfig: []byte(cfg)})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range si.Classes {
		if c.Priority == 3 && (c.Queue != 4 || !c.Lossless) {
			t.Errorf("class 3: %+v, want queue 4, lossless", c)
		}
	}
	if _, err := New().Parse(switchcfg.Readback{ReadbackRunningConfig: []byte("hostname x\nqos map traffic-class 16 to uc-tx-queue 4\n")}); err == nil {
		t.Error("traffic class 16 read")
	}
}

// TestParseFamilyFromDevice (issue 26, class 6): the hardware family comes
// from the product the banner names when the capture has one; a Tomahawk
// box printing tx-queue is still strata, and a 7280R3 is sand.
func TestParseFamilyFromDevice(t *testing.T) {
	body := "hostname leaf1\ninterface Ethernet1\n   tx-queue 3\n      bandwidth percent 50\n"
	for banner, want := range map[string]string{
		"! device: leaf1 (DCS-7060CX-32S, EOS-4.28.3M)\n":    ModelStrata,
		"! device: leaf1 (DCS-7280SR3-48YC8, EOS-4.30.1F)\n": ModelSand,
		"": ModelSand, // tx-queue alone: the queue commands' guess
	} {
		si, err := New().Parse(switchcfg.Readback{ReadbackRunningConfig: []byte(banner + body)})
		if err != nil {
			t.Fatal(err)
		}
		if si.Model != want {
			t.Errorf("%q: model %q, want %q", banner, si.Model, want)
		}
	}
}

// TestParseInterfaceRanges (issue 26, item 4): config-mode snippets
// configure several ports at once (`interface Ethernet1-3`, `interface
// Ethernet 5`, `interface Ethernet6,8`); each port reads as if it had the
// block itself. A port configured both by a range and on its own is
// listed: the two blocks are not merged.
func TestParseInterfaceRanges(t *testing.T) {
	cfg := `hostname leaf1
qos map dscp 26 to traffic-class 3
interface Ethernet1-3
   mtu 9214
   qos trust dscp
   priority-flow-control on
   priority-flow-control priority 3 no-drop
interface Ethernet 5
   mtu 9214
   qos trust dscp
interface Ethernet6,8
   mtu 9214
   qos trust dscp
   priority-flow-control on
   priority-flow-control priority 3 no-drop
interface Ethernet3
   description also its own block
`
	si, err := switchcfg.ParseFor(New(), switchcfg.Readback{ReadbackRunningConfig: []byte(cfg)}, fabric.SwitchIntent{})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(si.Ports) != "[Ethernet1 Ethernet2 Ethernet3 Ethernet5 Ethernet6 Ethernet8]" || fmt.Sprint(si.PFC.Priorities) != "[3]" || si.MTU != 9214 {
		t.Errorf("ports %v pfc %v mtu %d", si.Ports, si.PFC.Priorities, si.MTU)
	}
	// Ethernet3 keeps its own block (no QoS), Ethernet5 has no PFC.
	if len(si.PortGroups) != 2 || fmt.Sprint(si.PortGroups[0].Ports) != "[Ethernet3]" || fmt.Sprint(si.PortGroups[1].Ports) != "[Ethernet5]" {
		t.Errorf("groups %+v", si.PortGroups)
	}
	if len(si.Unparsed) != 1 || si.Unparsed[0].Line != 3 || !strings.Contains(si.Unparsed[0].Reason, "Ethernet3") {
		t.Errorf("unparsed %+v, want the range that overlaps Ethernet3's own block", si.Unparsed)
	}
}
