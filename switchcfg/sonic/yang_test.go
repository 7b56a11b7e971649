package sonic

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/switchcfg"
)

// Findings of SONiC's YANG models on fabricctl's renders (issue 29; the
// models' check itself is switchcfg/vendorcheck's TestSONiCRendersPassYANG).

// TestPatchPollIntervalAboveOtherPorts: sonic-pfcwd.yang wants every
// port's detection_time and restoration_time >= PFC_WD|GLOBAL
// POLL_INTERVAL, which is the switch's. Raising the poll interval above
// the times of a port outside the intent (`pfcwd start_default` gives
// every port 200 ms) makes a CONFIG_DB the generic config updater
// refuses: the patch is refused here, naming the ports.
func TestPatchPollIntervalAboveOtherPorts(t *testing.T) {
	si := labSwitch(t)
	si.PFC.Watchdog = &fabric.SwitchPFCWatchdog{Enabled: true, PollIntervalMs: 400, DetectionTimeMs: 1200, RestorationTimeMs: 2000, Action: "alert"}
	desired, err := Desired(si)
	if err != nil {
		t.Fatal(err)
	}
	observed := bareDB(si)
	observed[tPort]["Ethernet100"] = map[string]string{"speed": "100000"}
	observed[tPFCWD]["Ethernet100"] = map[string]string{"action": "drop", "detection_time": "200", "restoration_time": "600"}
	_, err = BuildPatch(observed, desired)
	if !errors.Is(err, switchcfg.ErrNotSupported) || !strings.Contains(err.Error(), "PFC_WD|Ethernet100 detection_time 200 ms") {
		t.Fatalf("poll interval 400 ms over Ethernet100's 200 ms detection: %v", err)
	}
	// The intent's own ports get its times; a port with times that fit is fine.
	observed[tPFCWD]["Ethernet100"]["detection_time"] = "400"
	if _, err := BuildPatch(observed, desired); err != nil {
		t.Fatalf("Ethernet100 at 400/600 ms: %v", err)
	}
	// A watchdog the intent turns off on its ports leaves the others' times as they are.
	si.PFC.Watchdog = &fabric.SwitchPFCWatchdog{}
	if desired, err = Desired(si); err != nil {
		t.Fatal(err)
	}
	observed[tPFCWD]["Ethernet100"]["detection_time"] = "200"
	if _, err := BuildPatch(observed, desired); err != nil {
		t.Fatalf("watchdog off: %v", err)
	}
}

// voqDB is a VOQ chassis line card host|asic0 with si's ports: QUEUE and
// BUFFER_QUEUE keyed by system port (sonic-queue.yang VOQ_QUEUE_LIST,
// sonic-buffer-queue.yang VOQ_BUFFER_QUEUE_LIST), the stock lossless
// queues 3-4, and a queue of another line card.
func voqDB(si fabric.SwitchIntent, host string) ConfigDB {
	db := bareDB(si)
	db[tMetadata] = map[string]map[string]string{"localhost": {"hostname": host, "asic_name": "asic0", "switch_type": "voq"}}
	db[tQueue] = map[string]map[string]string{"lc9|asic1|Ethernet0|3": {"scheduler": "other"}}
	db[tBufferQueue] = map[string]map[string]string{"lc9|asic1|Ethernet0|3-4": {"profile": egressLossless}}
	for _, p := range si.Ports {
		db[tBufferQueue][host+"|asic0|"+p+"|0-2"] = map[string]string{"profile": egressLossy}
		db[tBufferQueue][host+"|asic0|"+p+"|3-4"] = map[string]string{"profile": egressLossless}
		db[tBufferQueue][host+"|asic0|"+p+"|5-6"] = map[string]string{"profile": egressLossy}
	}
	return db
}

// TestRenderVOQ: the voq model keys QUEUE and BUFFER_QUEUE by system port,
// the switch's name as the line card's hostname and asic0; the render
// reads back as itself.
func TestRenderVOQ(t *testing.T) {
	si := labSwitch(t)
	si.Model = ModelVOQ
	db, err := Desired(si)
	if err != nil {
		t.Fatal(err)
	}
	prefix := si.Name + "|asic0|"
	for _, table := range []string{tQueue, tBufferQueue} {
		if len(db[table]) == 0 {
			t.Fatalf("no %s", table)
		}
		for k := range db[table] {
			if !strings.HasPrefix(k, prefix+"Ethernet") {
				t.Errorf("%s|%s is not keyed by system port %s…", table, k, prefix)
			}
		}
	}
	if db[tQueue][prefix+"Ethernet0|3"]["wred_profile"] != wredPrefix+"3" || db[tPFCToPG] != nil {
		t.Errorf("queue 3 of Ethernet0: %v; pfc_to_pg_map %v", db[tQueue][prefix+"Ethernet0|3"], db[tPFCToPG])
	}
	back, err := ParseConfigDB(db)
	if err != nil {
		t.Fatal(err)
	}
	if diffs := (switchcfg.CompareOptions{Ports: true}).Compare(si, back); len(diffs) != 0 || len(back.Unparsed) > 0 {
		t.Errorf("the voq render reads back as %v, unparsed %v", diffs, back.Unparsed)
	}
	si.Name = "a|b"
	if _, err := Desired(si); !errors.Is(err, switchcfg.ErrNotSupported) {
		t.Errorf("line card name with '|': %v", err)
	}
}

// TestPatchVOQ: pushed onto a VOQ line card, the queues go under the
// card's own DEVICE_METADATA hostname and asic_name (whatever the fabric
// calls the switch, whichever model rendered them), the lossless buffer
// moves to the lossless queues, other line cards' entries stay, the
// result reads back as the intent (no drift) and a second patch is
// empty. A voq render is refused on a switch that is no VOQ line card.
func TestPatchVOQ(t *testing.T) {
	for _, model := range []string{"", ModelVOQ} {
		si := labSwitch(t)
		si.Model = model
		si.PFC.Priorities = []int{2, 3}
		for i := range si.Classes {
			if si.Classes[i].Priority == 2 {
				si.Classes[i].Lossless = true
			}
		}
		if !byPriority(si.Classes)[2].Lossless {
			// lossless class two takes DSCP 16 and 10 % from the default class
			for i := range si.Classes {
				if c := &si.Classes[i]; c.Priority == 0 {
					c.DSCP = slices.DeleteFunc(slices.Clone(c.DSCP), func(d int) bool { return d == 16 })
					c.BandwidthPercent -= 10
				}
			}
			si.Classes = append(si.Classes, fabric.SwitchClass{Name: "two", Priority: 2, TrafficClass: 2, Queue: 2, DSCP: []int{16}, Lossless: true, BandwidthPercent: 10})
			slices.SortFunc(si.Classes, func(a, b fabric.SwitchClass) int { return a.Priority - b.Priority })
		}
		observed := voqDB(si, "lc1")
		ops := patchTo(t, observed, si)
		for _, o := range ops {
			if strings.HasPrefix(o.Path, "/QUEUE/") || strings.HasPrefix(o.Path, "/BUFFER_QUEUE/") {
				if !strings.HasPrefix(o.Path, "/QUEUE/lc1|asic0|Ethernet") && !strings.HasPrefix(o.Path, "/BUFFER_QUEUE/lc1|asic0|Ethernet") {
					t.Errorf("model %q: %s %s is not lc1's", model, o.Op, o.Path)
				}
			}
		}
		if observed[tQueue]["lc9|asic1|Ethernet0|3"]["scheduler"] != "other" || observed[tBufferQueue]["lc9|asic1|Ethernet0|3-4"] == nil {
			t.Errorf("model %q: the other line card's queues changed: %v %v", model, observed[tQueue], observed[tBufferQueue])
		}
		if got := observed[tBufferQueue]["lc1|asic0|Ethernet0|2-3"]["profile"]; got != egressLossless {
			t.Errorf("model %q: lossless queues 2-3 of Ethernet0: %q; BUFFER_QUEUE %v", model, got, observed[tBufferQueue])
		}
		for k := range observed[tQueue] {
			if !strings.Contains(k, "|asic") {
				t.Errorf("model %q: QUEUE|%s is keyed locally on a VOQ line card", model, k)
			}
		}
		back, err := ParseConfigDB(observed)
		if err != nil {
			t.Fatal(err)
		}
		if diffs := (switchcfg.CompareOptions{Ports: true}).Compare(si, back); len(diffs) != 0 {
			t.Errorf("model %q: after the patch: %v", model, diffs)
		}
		desired, _ := Desired(si)
		if again, err := BuildPatch(observed, desired); err != nil || len(again) != 0 {
			t.Errorf("model %q: second patch: %s %v", model, PatchJSON(again), err)
		}
	}
	si := labSwitch(t)
	si.Model = ModelVOQ
	desired, _ := Desired(si)
	npu := bareDB(si)
	npu[tMetadata] = map[string]map[string]string{"localhost": {"hostname": "sw1"}}
	if _, err := BuildPatch(npu, desired); !errors.Is(err, switchcfg.ErrNotSupported) || !strings.Contains(err.Error(), "switch_type") {
		t.Errorf("a voq render onto a switch that is no VOQ line card: %v", err)
	}
}
