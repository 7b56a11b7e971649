package cumulus

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/internal/testutil"
	"github.com/fabricctl/fabricctl/switchcfg"
	"github.com/fabricctl/fabricctl/switchcfg/drivertest"
)

// labSwitch resolves the repository's lab fabric and returns the intent of
// its cumulus-nvue switch.
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

// profileIntent resolves a profile file of profiles/ onto a switch with ports.
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

// pcpIntent trusts PCP: RoCE lossless on 4 (queue 4), a strict class on 7,
// the rest on 1; no DSCP lists.
func pcpIntent() fabric.SwitchIntent {
	return fabric.SwitchIntent{Platform: Platform, Ports: []string{"swp1s0", "swp1s1", "swp1s2", "swp1s3", "swp9"}, MTU: 9000, Trust: "pcp",
		Classes: []fabric.SwitchClass{
			{Name: "bulk", Priority: 1, TrafficClass: 1, Queue: 1, DSCP: []int{}, BandwidthPercent: 30},
			{Name: "rdma", Priority: 4, TrafficClass: 4, Queue: 4, DSCP: []int{}, Lossless: true, BandwidthPercent: 70,
				ECN: &fabric.SwitchECN{MinBytes: 50000, MaxBytes: 500000, MaxMarkProbability: 10}},
			{Name: "ctrl", Priority: 7, TrafficClass: 7, Queue: 7, DSCP: []int{}, Strict: true},
		},
		PFC: fabric.SwitchPFC{Priorities: []int{4}, Watchdog: &fabric.SwitchPFCWatchdog{Enabled: false}},
	}
}

// recipeForPorts is the lossless recipe's intent on swp1-32 at MTU 9216.
func recipeForPorts() fabric.SwitchIntent {
	r := recipeIntent("lossless")
	for i := 1; i <= 32; i++ {
		r.Ports = append(r.Ports, "swp"+strconv.Itoa(i))
	}
	r.MTU = 9216
	return r
}

// TestRenderLabIsExplicit: the lab profile differs from NVUE's recipe (DSCP
// 24 is best effort there, lossless in the recipe; cable length 5 m, not
// 100 m), so the knobs are rendered, including disabling TC0's default ECN.
func TestRenderLabIsExplicit(t *testing.T) {
	cfg, err := New().Render(labSwitch(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"nv set qos mapping default-global trust l3",
		"nv set qos mapping default-global dscp 26 switch-priority 3",
		"nv set qos pfc default-global switch-priority 3",
		"nv set qos congestion-control default-global traffic-class 3 min-threshold 150000",
		"nv set qos congestion-control default-global traffic-class 0,6 ecn disable",
		"nv set qos egress-scheduler default-global traffic-class 6 mode strict",
		"nv set qos pfc-watchdog robustness 2",
		"nv set interface swp1-4 link mtu 9216",
	} {
		if !strings.Contains(cfg.Text, want+"\n") {
			t.Errorf("missing %q", want)
		}
	}
	if strings.Contains(cfg.Text, "qos roce mode") {
		t.Errorf("the lab profile is not the recipe")
	}
}

// TestRenderLosslessIsReallyLossless (issue 14): the explicit path gives
// PFC a lossless buffer pool (Cumulus gives every buffer to default-lossy
// unless told), and every traffic class a DWRR weight, so the weights the
// switch schedules by total 100 %, not 100 % plus the defaults' 12/13 % of
// the unused classes. Read back, the PFC'd priority is lossless; without
// the pool it would not be.
func TestRenderLosslessIsReallyLossless(t *testing.T) {
	in := labSwitch(t)
	cfg, err := New().Render(in)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"nv set qos traffic-pool default-lossless memory-percent 50",
		"nv set qos traffic-pool default-lossless switch-priority 3",
		"nv set qos traffic-pool default-lossy memory-percent 50",
	} {
		if !strings.Contains(cfg.Text, want+"\n") {
			t.Errorf("missing %q", want)
		}
	}
	tree, err := ParseCommands(cfg.Text)
	if err != nil {
		t.Fatal(err)
	}
	m, err := fromTree(tree)
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for tc := 0; tc < 8; tc++ {
		if !m.sched[tc].strict {
			total += m.sched[tc].bandwidth
		}
	}
	if total != 100 {
		t.Errorf("DWRR weights of the eight traffic classes total %d%%, want 100%%", total)
	}
	got, _ := ParseTree(tree)
	if !classByPrio(t, got, 3).Lossless {
		t.Error("the RoCE priority does not read back lossless")
	}
	noPool := strings.NewReplacer("nv set qos traffic-pool default-lossless memory-percent 50\n", "").Replace(cfg.Text)
	tree, _ = ParseCommands(noPool)
	if got, _ := ParseTree(tree); classByPrio(t, got, 3).Lossless {
		t.Error("PFC without a lossless pool reads as lossless")
	}
}

func TestRenderRecipeOneLiner(t *testing.T) {
	cfg, err := New().Render(recipeForPorts())
	if err != nil {
		t.Fatal(err)
	}
	sets := 0
	for _, l := range cfg.Lines() {
		if strings.HasPrefix(l, "nv set qos") {
			sets++
			if l != "nv set qos roce mode lossless" {
				t.Errorf("unexpected knob %q next to the recipe", l)
			}
		}
	}
	if sets != 1 || !strings.Contains(cfg.Text, "nv set interface swp1-32 link mtu 9216\n") {
		t.Fatalf("want the one-liner plus MTU:\n%s", cfg.Text)
	}
	// One threshold off the recipe: explicit knobs.
	r := recipeForPorts()
	r.Classes[3].ECN.MinBytes = 160000
	cfg, err = New().Render(r)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(cfg.Text, "nv set qos roce") {
		t.Fatalf("160000 B is not the recipe's 150000 B:\n%s", cfg.Text)
	}
}

// TestRecipeIntent checks the recipe against NVIDIA's "Default RoCE
// Configuration" table by hand.
func TestRecipeIntent(t *testing.T) {
	r := recipeIntent("lossless")
	if r.Trust != "dscp" || len(r.Classes) != 8 || !equalInts(r.PFC.Priorities, []int{3}) || r.PFC.CableLengthMeters != 100 {
		t.Fatalf("recipe %+v", r)
	}
	for _, c := range r.Classes {
		switch c.Priority {
		case 3:
			if c.TrafficClass != 3 || !c.Lossless || c.Strict || c.BandwidthPercent != 50 || c.ECN == nil ||
				*c.ECN != (fabric.SwitchECN{MinBytes: 150000, MaxBytes: 1500000, MaxMarkProbability: 100}) {
				t.Errorf("RoCE class %+v", c)
			}
		case 6:
			if c.TrafficClass != 6 || !c.Strict || c.Lossless || c.ECN != nil {
				t.Errorf("CNP class %+v", c)
			}
		default:
			if c.TrafficClass != 0 || c.Strict || c.Lossless || c.BandwidthPercent != 50 {
				t.Errorf("class %+v", c)
			}
		}
		if want := fmt.Sprintf("%d-%d", c.Priority*8, c.Priority*8+7); switchcfg.FormatIntSet(c.DSCP) != want {
			t.Errorf("priority %d DSCP %s", c.Priority, switchcfg.FormatIntSet(c.DSCP))
		}
	}
	if lossy := recipeIntent("lossy"); len(lossy.PFC.Priorities) != 0 || lossy.Classes[3].Lossless {
		t.Errorf("lossy recipe has PFC: %+v", lossy.PFC)
	}
}

// TestConformance runs the driver kit: Info, ports, golden renderings,
// render → apply (as NVUE would take the lines) → JSON read-back → parse
// round trips, refused intents, Observe and foreign configurations.
func TestConformance(t *testing.T) {
	cases := map[string]fabric.SwitchIntent{
		"render-lab.golden":             labSwitch(t),
		"render-lossy-ecn.golden":       profileIntent(t, "roce-lossy-ecn.yaml", "roce-lossy-ecn", "swp1", "swp2", "swp3", "swp7"),
		"render-pcp.golden":             pcpIntent(),
		"render-recipe-lossless.golden": recipeForPorts(),
	}
	tests := []drivertest.Reject{
		{"queue differs", func(si *fabric.SwitchIntent) { si.Classes[1].Queue = 4 }, true, "queue 4 differs from traffic class 3"},
		{"bad port", func(si *fabric.SwitchIntent) { si.Ports = append(si.Ports, "Ethernet0") }, false, `port "Ethernet0" is not a cumulus-nvue port name`},
		{"wd action", func(si *fabric.SwitchIntent) { si.PFC.Watchdog.Action = "forward" }, true, `action "forward"`},
		{"wd detection", func(si *fabric.SwitchIntent) { si.PFC.Watchdog.DetectionTimeMs = 250 }, true, "detection time 250 ms"},
		{"wd poll", func(si *fabric.SwitchIntent) { si.PFC.Watchdog.PollIntervalMs = 50 }, true, "poll interval 50 ms"},
		{"mtu", func(si *fabric.SwitchIntent) { si.MTU = 9600 }, true, "MTU 9600"},
		{"trust", func(si *fabric.SwitchIntent) { si.Trust = "port" }, true, `trust "port"`},
		{"zero dwrr", func(si *fabric.SwitchIntent) { si.Classes[0].BandwidthPercent = 0 }, true, "DWRR bandwidth 0%"},
		{"inconsistent", func(si *fabric.SwitchIntent) { si.PFC.Priorities = []int{3, 5} }, false, "disagree with the lossless"},
	}
	drivertest.Run(t, New(), drivertest.Spec{Register: Register, Goldens: cases,
		Readback: showJSON,
		Base:     func() fabric.SwitchIntent { return labSwitch(t) }, Rejects: tests,
		GoodPorts: []string{"swp1", "swp32", "swp1s3"},
		BadPorts:  []string{"swp0", "Ethernet0", "swp1-4", "eth0", "swp01"},
	})
}

func TestInterfaceRanges(t *testing.T) {
	got, err := ExpandInterfaces("swp1-3,swp5,swp1s0-2,swp10-swp11,eth0")
	if err != nil {
		t.Fatal(err)
	}
	want := "swp1 swp2 swp3 swp5 swp1s0 swp1s1 swp1s2 swp10 swp11 eth0"
	if strings.Join(got, " ") != want {
		t.Fatalf("got %v", got)
	}
	if s := CompressInterfaces(got); s != "eth0,swp1-3,swp1s0-2,swp5,swp10-11" {
		t.Fatalf("compressed %q", s)
	}
	for _, bad := range []string{"swp4-1", "swp1-eth3", "swp1-", ",", "swp1 swp2", "swp0-99999"} {
		if _, err := ExpandInterfaces(bad); err == nil {
			t.Errorf("%q: want an error", bad)
		}
	}
}

func equalInts(a, b []int) bool { return switchcfg.FormatIntSet(a) == switchcfg.FormatIntSet(b) }

// showJSON is what `nv config show -o json` prints once the rendered
// commands are applied to a switch without configuration.
func showJSON(t testing.TB, cfg switchcfg.Config) switchcfg.Readback {
	tree, err := ParseCommands(cfg.Text)
	if err != nil {
		t.Fatal(err)
	}
	js, err := tree.ShowJSON()
	if err != nil {
		t.Fatal(err)
	}
	return switchcfg.Readback{CmdConfigShow: js}
}

// FuzzRenderParseRender: render → parse → render is stable (drivertest.FuzzRoundTrip).
func FuzzRenderParseRender(f *testing.F) { drivertest.FuzzRoundTrip(f, New(), showJSON) }
