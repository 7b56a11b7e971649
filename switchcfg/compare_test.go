package switchcfg_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/switchcfg"
	"github.com/fabricctl/fabricctl/switchcfg/drivertest"
	"github.com/google/go-cmp/cmp"
)

// labIntent is the lab profile's switch intent (roce 3 lossless, cnp 6 strict,
// default 0) on swp1 and swp2 at MTU 9216, whatever the platform's name.
func labIntent(platform string) fabric.SwitchIntent {
	return drivertest.LabIntent(switchcfg.Info{Name: platform, ExamplePorts: []string{"swp1", "swp2"}})
}

func TestCompareEqualIgnoresNamesPortsAndIdentity(t *testing.T) {
	want := labIntent("cumulus-nvue")
	got := labIntent("cumulus-nvue")
	got.Name, got.Address, got.Profile = "leaf-01", "10.0.0.1", "x"
	got.Ports = []string{"swp9"}
	for i := range got.Classes {
		got.Classes[i].Name = "tc" + string(rune('a'+i))
	}
	got.RoCEClass, got.CNPClass = "tcb", "tcc"
	// Reverse DSCP order: sets, not lists.
	d := got.Classes[0].DSCP
	for i, j := 0, len(d)-1; i < j; i, j = i+1, j-1 {
		d[i], d[j] = d[j], d[i]
	}
	if diffs := switchcfg.Compare(want, got); len(diffs) != 0 {
		t.Fatalf("want no diffs, got %v", diffs)
	}
	diffs := switchcfg.CompareOptions{Ports: true}.Compare(want, got)
	if len(diffs) != 1 || diffs[0].Field != "ports" || diffs[0].Want != "swp1,swp2" || diffs[0].Got != "swp9" {
		t.Fatalf("with Ports: got %v", diffs)
	}
}

func TestCompareECNTolerance(t *testing.T) {
	cases := []struct {
		name     string
		platform string
		min      int64
		want     bool // a diff expected
	}{
		{"spectrum rounding 150000→159744", "cumulus-nvue", 159744, false},
		{"NVUE display 146.48 KB", "cumulus-nvue", 149995, false},
		{"within 10%", "arista-eos", 164000, false},
		{"beyond 10%", "arista-eos", 166000, true},
		{"far off", "cumulus-nvue", 300000, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			want, got := labIntent(tc.platform), labIntent(tc.platform)
			got.Classes[1].ECN = &fabric.SwitchECN{MinBytes: tc.min, MaxBytes: 1500000, MaxMarkProbability: 100}
			diffs := switchcfg.Compare(want, got)
			if (len(diffs) > 0) != tc.want {
				t.Fatalf("diffs %v, want a diff: %v", diffs, tc.want)
			}
			if tc.want && diffs[0].Field != "classes[roce].ecn.minBytes" {
				t.Fatalf("field %q", diffs[0].Field)
			}
		})
	}
}

func TestCompareQuantumBeatsTenPercentForSmallThresholds(t *testing.T) {
	want, got := labIntent("cumulus-nvue"), labIntent("cumulus-nvue")
	want.Classes[1].ECN = &fabric.SwitchECN{MinBytes: 10000, MaxBytes: 20000, MaxMarkProbability: 100}
	got.Classes[1].ECN = &fabric.SwitchECN{MinBytes: 12288, MaxBytes: 24576, MaxMarkProbability: 100}
	spectrum := switchcfg.CompareOptions{QuantumBytes: 12288} // cumulus-nvue's Info.ThresholdQuantum
	if diffs := spectrum.Compare(want, got); len(diffs) != 0 {
		t.Fatalf("one Spectrum step must be tolerated: %v", diffs)
	}
	if diffs := switchcfg.Compare(want, got); len(diffs) != 2 {
		t.Fatalf("with the relative tolerance alone both thresholds differ: %v", diffs)
	}
}

func TestCompareEmptyDeviceIsFullPush(t *testing.T) {
	want := labIntent("cisco-nxos")
	got := fabric.SwitchIntent{Platform: "cisco-nxos"}
	diffs := switchcfg.Compare(want, got)
	fields := map[string]switchcfg.Diff{}
	for _, d := range diffs {
		fields[d.Field] = d
		if d.Got != switchcfg.Missing {
			t.Errorf("%s: got %q, want %q", d.Field, d.Got, switchcfg.Missing)
		}
	}
	for _, f := range []string{
		"mtu", "trust", "pfc.priorities",
		"classes[roce].dscp", "classes[roce].lossless", "classes[roce].ecn.minBytes", "classes[roce].ecn.maxBytes",
		"classes[cnp].strict", "classes[default].bandwidthPercent",
		"pfc.watchdog.enabled", "pfc.watchdog.pollIntervalMs",
	} {
		if _, ok := fields[f]; !ok {
			t.Errorf("no diff for %s", f)
		}
	}
	if _, ok := fields["classes[cnp].bandwidthPercent"]; ok {
		t.Errorf("a strict class has no bandwidth to report")
	}
	if d := fields["classes[roce].dscp"]; d.Want != "26" {
		t.Errorf("roce dscp want %q", d.Want)
	}
	for i := 1; i < len(diffs); i++ {
		if diffs[i-1].Field > diffs[i].Field {
			t.Fatalf("not sorted: %q before %q", diffs[i-1].Field, diffs[i].Field)
		}
	}
}

func TestCompareNamesEachChangedField(t *testing.T) {
	want := labIntent("sonic")
	got := labIntent("sonic")
	got.Classes[1].DSCP = []int{24, 26}
	got.Classes[1].Lossless = false
	got.Classes[0].BandwidthPercent = 40
	got.Classes[2].Strict = false
	got.Classes[2].BandwidthPercent = 10
	got.Classes[0].ECN = &fabric.SwitchECN{MinBytes: 1, MaxBytes: 2, MaxMarkProbability: 5}
	got.PFC.Priorities = []int{3, 4}
	got.PFC.Watchdog.DetectionTimeMs = 400
	got.PFC.Watchdog.RestorationTimeMs = 0 // not carried: ignored
	got.Classes = append(got.Classes, fabric.SwitchClass{Name: "", Priority: 5, TrafficClass: 5, DSCP: []int{40}})
	want.MTU = 9000
	got.Trust = "pcp"

	gotDiffs := switchcfg.Compare(want, got)
	wantDiffs := []switchcfg.Diff{
		{"classes[cnp].strict", "true", "false"},
		{"classes[default].bandwidthPercent", "50", "40"},
		{"classes[default].ecn", "off", "1-2 B"},
		{"classes[priority5]", switchcfg.Absent, "priority 5, trafficClass 5, dscp 40"},
		{"classes[roce].dscp", "26", "24,26"},
		{"classes[roce].dscp[26]", "lossless (priority 3)", "lossy (priority 3)"},
		{"classes[roce].lossless", "true", "false"},
		{"mtu", "9000", "9216"},
		{"pfc.priorities", "3", "3-4"},
		{"pfc.watchdog.detectionTimeMs", "200", "400"},
		{"trust", "dscp", "pcp"},
	}
	if d := cmp.Diff(wantDiffs, gotDiffs); d != "" {
		t.Fatalf("(-want +got):\n%s", d)
	}
}

func TestCompareRoleClassByPriority(t *testing.T) {
	want, got := labIntent("junos"), labIntent("junos")
	got.RoCEClass = "cnp" // the device says RoCE rides priority 6
	diffs := switchcfg.Compare(want, got)
	if len(diffs) != 1 || diffs[0].Field != "roceClass" || diffs[0].Got != "cnp (priority 6)" {
		t.Fatalf("got %v", diffs)
	}
}

func TestIntSetRoundTrip(t *testing.T) {
	for _, s := range []string{"0-25,27-47,49-63", "3", "none", "1,3,5-7"} {
		v, err := switchcfg.ParseIntSet(s, 0, 63)
		if err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		if got := switchcfg.FormatIntSet(v); got != s {
			t.Errorf("%q → %v → %q", s, v, got)
		}
	}
	if got := switchcfg.FormatIntSet([]int{5, 3, 4, 4, 9}); got != "3-5,9" {
		t.Errorf("got %q", got)
	}
	for _, bad := range []string{"64", "3-1", "a", "1,,2", "-1"} {
		if _, err := switchcfg.ParseIntSet(bad, 0, 63); err == nil {
			t.Errorf("%q: want an error", bad)
		}
	}
}

func TestCompareDisabledWatchdogEqualsNone(t *testing.T) {
	want, got := labIntent("sonic"), labIntent("sonic")
	want.PFC.Watchdog = &fabric.SwitchPFCWatchdog{Enabled: false}
	got.PFC.Watchdog = nil
	if diffs := switchcfg.Compare(want, got); len(diffs) != 0 {
		t.Fatalf("got %v", diffs)
	}
	got.PFC.Watchdog = &fabric.SwitchPFCWatchdog{Enabled: true, PollIntervalMs: 100}
	if diffs := switchcfg.Compare(want, got); len(diffs) != 1 || diffs[0].Field != "pfc.watchdog.enabled" {
		t.Fatalf("got %v", diffs)
	}
	// Not configured by the intent: the switch's own stays, whatever it
	// is, and is no drift (issue 14: unset used to mean "off").
	want.PFC.Watchdog = nil
	if diffs := switchcfg.Compare(want, got); len(diffs) != 0 {
		t.Fatalf("an unset watchdog compared: %v", diffs)
	}
}

func TestCheckIntent(t *testing.T) {
	if err := switchcfg.CheckIntent(labIntent("sonic")); err != nil {
		t.Fatalf("lab intent: %v", err)
	}
	cases := map[string]func(si *fabric.SwitchIntent){
		"priority 3 already used":      func(si *fabric.SwitchIntent) { si.Classes[2].Priority = 3 },
		"DSCP 26 already in class":     func(si *fabric.SwitchIntent) { si.Classes[2].DSCP = []int{26} },
		"DSCP 64 outside":              func(si *fabric.SwitchIntent) { si.Classes[2].DSCP = []int{64} },
		"disagree with the lossless":   func(si *fabric.SwitchIntent) { si.PFC.Priorities = []int{3, 4} },
		"need 0 < min <= max":          func(si *fabric.SwitchIntent) { si.Classes[1].ECN.MaxBytes = 10 },
		"only one of them is lossless": func(si *fabric.SwitchIntent) { si.Classes[0].Queue = 3 },
		"their scheduling differs":     func(si *fabric.SwitchIntent) { si.Classes[2].Queue = 0 },
		"queue 9 outside":              func(si *fabric.SwitchIntent) { si.Classes[2].Queue = 9 },
		"their ECN settings differ": func(si *fabric.SwitchIntent) {
			si.Classes[1].Lossless, si.PFC.Priorities = false, nil
			si.Classes[1].Queue = 0
		},
	}
	for want, mutate := range cases {
		si := labIntent("sonic")
		mutate(&si)
		err := switchcfg.CheckIntent(si)
		if err == nil || !errors.Is(err, switchcfg.ErrInvalidIntent) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v", want, err)
		}
	}
}

func TestCompareIgnoresDSCPUnderPCPTrust(t *testing.T) {
	want, got := labIntent("cumulus-nvue"), labIntent("cumulus-nvue")
	want.Trust, got.Trust = "pcp", "pcp"
	got.Classes[1].DSCP = []int{}
	if diffs := switchcfg.Compare(want, got); len(diffs) != 0 {
		t.Fatalf("got %v", diffs)
	}
	got.Trust = "dscp"
	if diffs := switchcfg.Compare(want, got); len(diffs) != 2 {
		t.Fatalf("trust and DSCP must differ: %v", diffs)
	}
}

func TestDefaultClass(t *testing.T) {
	si := labIntent("sonic")
	if c, ok := switchcfg.DefaultClass(si.Classes); !ok || c.Name != "default" {
		t.Fatalf("got %v %v", c.Name, ok)
	}
	si.Classes[0].DSCP = []int{1} // nobody holds DSCP 0: the lowest lossy DWRR class
	if c, _ := switchcfg.DefaultClass(si.Classes); c.Name != "default" {
		t.Fatalf("got %v", c.Name)
	}
	if c, _ := switchcfg.DefaultClass(si.Classes[1:]); c.Name != "roce" { // only lossless and strict left: the first
		t.Fatalf("got %v", c.Name)
	}
	if _, ok := switchcfg.DefaultClass(nil); ok {
		t.Fatal("no classes, no default")
	}
}

func TestCompareLosslessDSCPInLossyClass(t *testing.T) {
	// SONiC's stock AZURE map: DSCP 26 in lossy TC 1, lossless on 3 and 4.
	want := labIntent("sonic")
	got := labIntent("sonic")
	got.Classes = []fabric.SwitchClass{
		{Name: "tc1", Priority: 1, TrafficClass: 1, Queue: 1, DSCP: []int{0, 1, 2, 26, 48}},
		{Name: "tc3", Priority: 3, TrafficClass: 3, Queue: 3, DSCP: []int{3}, Lossless: true},
	}
	var found bool
	for _, d := range switchcfg.Compare(want, got) {
		if d.Field == "classes[roce].dscp[26]" {
			found = d.Want == "lossless (priority 3)" && d.Got == "lossy (priority 1)"
		}
	}
	if !found {
		t.Fatalf("DSCP 26 in a lossy class not reported: %v", switchcfg.Compare(want, got))
	}
}

func TestLimits(t *testing.T) {
	l := switchcfg.Limits{Platform: "x-os", CheckPort: func(p string) error {
		if p != "p1" {
			return errors.New("bad port " + p)
		}
		return nil
	}, MinMTU: 1500, MaxMTU: 9216}
	si := labIntent("x-os")
	si.Ports = []string{"p1"}
	if errs := l.Check(si); len(errs) != 0 {
		t.Fatal(errs)
	}
	si.Ports, si.MTU, si.Trust = []string{"p1", "p2"}, 9600, "port"
	errs := l.Check(si)
	if len(errs) != 3 || !errors.Is(errs[0], switchcfg.ErrNotSupported) || !strings.Contains(errs[1].Error(), "MTU 9600 outside x-os's 1500..9216: set switchMtu: max in the profile's spec.ethernet") || errs[2].Error() != "bad port p2" {
		t.Fatalf("got %v", errs)
	}
}
