package switchcfg

import (
	"slices"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/fabric"
)

// losslessIntent is a RoCE intent: roce lossless on priority 3 (DSCP 26),
// bulk lossy on 1, cnp strict on 6, default lossy on 0.
func losslessIntent() fabric.SwitchIntent {
	var rest []int
	for d := range 64 {
		if d != 26 && d != 48 && d != 10 {
			rest = append(rest, d)
		}
	}
	return fabric.SwitchIntent{Name: "leaf-01", MTU: 9216, Trust: "dscp",
		Classes: []fabric.SwitchClass{
			{Name: "default", Priority: 0, DSCP: rest, BandwidthPercent: 40},
			{Name: "bulk", Priority: 1, TrafficClass: 1, Queue: 1, DSCP: []int{10}, BandwidthPercent: 10},
			{Name: "roce", Priority: 3, TrafficClass: 3, Queue: 3, DSCP: []int{26}, Lossless: true, BandwidthPercent: 50,
				ECN: &fabric.SwitchECN{MinBytes: 150000, MaxBytes: 1500000, MaxMarkProbability: 100}},
			{Name: "cnp", Priority: 6, TrafficClass: 6, Queue: 6, DSCP: []int{48}, Strict: true},
		},
		PFC: fabric.SwitchPFC{Priorities: []int{3}, CableLengthMeters: 5,
			Watchdog: &fabric.SwitchPFCWatchdog{Enabled: true, PollIntervalMs: 100, DetectionTimeMs: 200, RestorationTimeMs: 400, Action: "drop"}},
		RoCEClass: "roce", CNPClass: "cnp"}
}

// TestChangesMarkWhatTheASICReprograms: a change is disruptive exactly where
// the switch reprograms something that interrupts traffic (disruption.go),
// field by field.
func TestChangesMarkWhatTheASICReprograms(t *testing.T) {
	class := func(si *fabric.SwitchIntent, name string) *fabric.SwitchClass {
		for i := range si.Classes {
			if si.Classes[i].Name == name {
				return &si.Classes[i]
			}
		}
		t.Fatalf("no class %s", name)
		return nil
	}
	for _, tc := range []struct {
		name string
		// device edits the device's state away from the intent; want
		// edits the intent.
		device, want func(*fabric.SwitchIntent)
		// setting is "component setting" of the change looked at.
		setting    string
		disruptive bool
	}{
		{name: "watchdog poll interval", device: func(d *fabric.SwitchIntent) { d.PFC.Watchdog.PollIntervalMs = 200 },
			setting: " pfc.watchdog.pollIntervalMs"},
		{name: "watchdog detection time", device: func(d *fabric.SwitchIntent) { d.PFC.Watchdog.DetectionTimeMs = 400 },
			setting: " pfc.watchdog.detectionTimeMs"},
		{name: "watchdog off", device: func(d *fabric.SwitchIntent) { d.PFC.Watchdog = nil },
			setting: " pfc.watchdog.enabled"},
		{name: "watchdog action", device: func(d *fabric.SwitchIntent) { d.PFC.Watchdog.Action = "forward" },
			setting: " pfc.watchdog.action"},
		{name: "trust pcp to dscp", device: func(d *fabric.SwitchIntent) { d.Trust = "pcp" },
			setting: " trust", disruptive: true},
		{name: "mtu", device: func(d *fabric.SwitchIntent) { d.MTU = 1500 }, setting: " mtu", disruptive: true},
		{name: "cable length", device: func(d *fabric.SwitchIntent) { d.PFC.CableLengthMeters = 100 },
			setting: " pfc.cableLengthMeters", disruptive: true},
		{name: "lossy to lossless", want: func(w *fabric.SwitchIntent) {
			class(w, "bulk").Lossless, w.PFC.Priorities = true, []int{1, 3}
		}, setting: "classes[bulk] lossless", disruptive: true},
		{name: "lossy to lossless: the PFC priorities", want: func(w *fabric.SwitchIntent) {
			class(w, "bulk").Lossless, w.PFC.Priorities = true, []int{1, 3}
		}, setting: " pfc.priorities", disruptive: true},
		{name: "lossless to lossy", device: func(d *fabric.SwitchIntent) {
			class(d, "bulk").Lossless, d.PFC.Priorities = true, []int{1, 3}
		}, setting: "classes[bulk] lossless", disruptive: true},
		{name: "a lossy class missing on the device stays lossy", device: func(d *fabric.SwitchIntent) {
			d.Classes = slices.DeleteFunc(d.Classes, func(c fabric.SwitchClass) bool { return c.Name == "bulk" })
		}, setting: "classes[bulk] lossless"},
		{name: "a lossy class missing on the device: its lossy DSCP", device: func(d *fabric.SwitchIntent) {
			d.Classes = slices.DeleteFunc(d.Classes, func(c fabric.SwitchClass) bool { return c.Name == "bulk" })
		}, setting: "classes[bulk] dscp"},
		{name: "a lossless class missing on the device", device: func(d *fabric.SwitchIntent) {
			d.Classes = slices.DeleteFunc(d.Classes, func(c fabric.SwitchClass) bool { return c.Name == "roce" })
		}, setting: "classes[roce] lossless", disruptive: true},
		{name: "a lossy DSCP moves between lossy classes", device: func(d *fabric.SwitchIntent) {
			class(d, "bulk").DSCP = []int{10, 11}
			class(d, "default").DSCP = slices.DeleteFunc(class(d, "default").DSCP, func(x int) bool { return x == 11 })
		}, setting: "classes[bulk] dscp"},
		{name: "a lossless DSCP leaves the lossless class", device: func(d *fabric.SwitchIntent) {
			class(d, "roce").DSCP = nil
			class(d, "default").DSCP = append(class(d, "default").DSCP, 26)
		}, setting: "classes[default] dscp", disruptive: true},
		{name: "the lossless class's DSCPs", device: func(d *fabric.SwitchIntent) {
			class(d, "roce").DSCP = []int{24, 26}
			class(d, "default").DSCP = slices.DeleteFunc(class(d, "default").DSCP, func(x int) bool { return x == 24 })
		}, setting: "classes[roce] dscp", disruptive: true},
		{name: "a lossless DSCP in a lossy class on the device", device: func(d *fabric.SwitchIntent) {
			class(d, "roce").DSCP = nil
			class(d, "bulk").DSCP = []int{10, 26}
		}, setting: "classes[roce] dscp[26]", disruptive: true},
		{name: "ECN threshold", device: func(d *fabric.SwitchIntent) { class(d, "roce").ECN.MinBytes = 600000 },
			setting: "classes[roce] ecn.minBytes"},
		{name: "ECN probability", device: func(d *fabric.SwitchIntent) { class(d, "roce").ECN.MaxMarkProbability = 20 },
			setting: "classes[roce] ecn.maxMarkProbability"},
		{name: "ETS weight", device: func(d *fabric.SwitchIntent) { class(d, "roce").BandwidthPercent = 60 },
			setting: "classes[roce] bandwidthPercent"},
		{name: "strict priority", device: func(d *fabric.SwitchIntent) { class(d, "cnp").Strict = false },
			setting: "classes[cnp] strict"},
		{name: "queue of a lossless priority", device: func(d *fabric.SwitchIntent) { class(d, "roce").Queue = 4 },
			setting: "classes[roce] queue", disruptive: true},
		{name: "queue of a lossy priority", device: func(d *fabric.SwitchIntent) { class(d, "bulk").Queue = 2 },
			setting: "classes[bulk] queue"},
		{name: "a lossless class the intent lacks is removed", device: func(d *fabric.SwitchIntent) {
			d.Classes = append(d.Classes, fabric.SwitchClass{Name: "storage", Priority: 4, TrafficClass: 4, Queue: 4, Lossless: true})
			d.PFC.Priorities = []int{3, 4}
		}, setting: " classes[storage]", disruptive: true},
		{name: "a lossy class the intent lacks is removed", device: func(d *fabric.SwitchIntent) {
			d.Classes = append(d.Classes, fabric.SwitchClass{Name: "scavenger", Priority: 5, TrafficClass: 5, Queue: 5})
		}, setting: " classes[scavenger]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want, device := losslessIntent(), losslessIntent()
			if tc.want != nil {
				tc.want(&want)
			}
			if tc.device != nil {
				tc.device(&device)
			}
			cs := Changes(want, device, CompareOptions{})
			var seen []string
			for _, c := range cs {
				key := c.Component + " " + c.Setting
				seen = append(seen, key)
				if key != tc.setting {
					continue
				}
				if c.Disruptive != tc.disruptive {
					t.Errorf("%s %s → %s: disruptive %v, want %v (note %q)", key, c.Old, c.New, c.Disruptive, tc.disruptive, c.Note)
				}
				if c.Disruptive && c.Note == "" {
					t.Errorf("%s is disruptive without saying why", key)
				}
				if c.Flaps {
					t.Errorf("%s: no switch change is known to flap a link", key)
				}
				return
			}
			t.Fatalf("no change %q among %s", tc.setting, strings.Join(seen, "; "))
		})
	}
}

// TestChangeDisplayValuesAreCompare's: the table's "(remove)" and "(none)"
// stand for Compare's Absent and Missing.
func TestChangeDisplayValuesAreCompares(t *testing.T) {
	if Absent != fabric.ValueAbsent || Missing != fabric.ValueMissing {
		t.Fatalf("switchcfg's Absent %q / Missing %q differ from fabric's %q / %q", Absent, Missing, fabric.ValueAbsent, fabric.ValueMissing)
	}
	device := losslessIntent()
	device.Classes = append(device.Classes, fabric.SwitchClass{Name: "scavenger", Priority: 5, TrafficClass: 5, Queue: 5})
	want := losslessIntent()
	want.Classes = slices.DeleteFunc(want.Classes, func(c fabric.SwitchClass) bool { return c.Name == "bulk" })
	device.Classes = slices.DeleteFunc(device.Classes, func(c fabric.SwitchClass) bool { return c.Name == "roce" })
	shown := map[string]string{}
	for _, c := range Changes(want, device, CompareOptions{}) {
		old, new := c.Display()
		shown[c.Component+" "+c.Setting] = old + " → " + new
	}
	for key, want := range map[string]string{
		" classes[scavenger]": "priority 5, trafficClass 5 → (remove)",
		" classes[bulk]":      "priority 1, trafficClass 1, dscp 10, bandwidth 10% → (remove)",
		"classes[roce] queue": "(none) → 3",
	} {
		if shown[key] != want {
			t.Errorf("%s shows %q, want %q", key, shown[key], want)
		}
	}
}
