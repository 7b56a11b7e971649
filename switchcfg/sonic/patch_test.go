package sonic

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/internal/testutil"
	"github.com/fabricctl/fabricctl/switchcfg"
)

func defaultDB(t *testing.T) ConfigDB {
	t.Helper()
	db, err := DecodeConfigDB(readFixture(t, "running-config-default.json"))
	if err != nil {
		t.Fatal(err)
	}
	return db
}

// TestPatchConvergesAndIsIdempotent: the patch against the default config,
// applied, reads back as the intent; a second patch is empty; tables
// fabricctl does not manage are untouched.
func TestPatchConvergesAndIsIdempotent(t *testing.T) {
	for name, si := range intents(t) {
		t.Run(name, func(t *testing.T) {
			observed := defaultDB(t)
			desired, err := Desired(si)
			if err != nil {
				t.Fatal(err)
			}
			ops, err := BuildPatch(observed, desired)
			if err != nil {
				t.Fatal(err)
			}
			if name == "lab" {
				testutil.Golden(t, "patch-lab-on-default.golden", PatchJSON(ops))
			}
			if err := ApplyPatch(observed, ops); err != nil {
				t.Fatal(err)
			}
			got, err := ParseConfigDB(observed)
			if err != nil {
				t.Fatal(err)
			}
			if diffs := (switchcfg.CompareOptions{Ports: true}).Compare(si, got); len(diffs) != 0 {
				t.Fatalf("after the patch: %v", diffs)
			}
			again, err := BuildPatch(observed, desired)
			if err != nil || len(again) != 0 {
				t.Fatalf("second patch not empty: %s %v", PatchJSON(again), err)
			}
			if observed[tPort]["Ethernet0"]["speed"] != "100000" || observed[tDSCPToTC]["DEFAULT"]["26"] != "1" {
				t.Errorf("unmanaged data changed")
			}
		})
	}
}

func TestPatchOperations(t *testing.T) {
	si := labSwitch(t)
	observed := defaultDB(t)
	desired, err := Desired(si)
	if err != nil {
		t.Fatal(err)
	}
	ops, err := BuildPatch(observed, desired)
	if err != nil {
		t.Fatal(err)
	}
	has := func(op, path string) bool {
		for _, o := range ops {
			if o.Op == op && o.Path == path {
				return true
			}
		}
		return false
	}
	for _, want := range []struct{ op, path string }{
		{"add", "/DSCP_TO_TC_MAP/FABRICCTL"},
		{"replace", "/PORT_QOS_MAP/Ethernet0/dscp_to_tc_map"},
		{"replace", "/PORT_QOS_MAP/Ethernet0/pfc_enable"},
		{"add", "/PORT_QOS_MAP/Ethernet8"},             // not bound before
		{"replace", "/QUEUE/Ethernet0|3/wred_profile"}, // WRED_LOSSLESS → FABRICCTL_Q3
		{"replace", "/CABLE_LENGTH/AZURE/Ethernet0"},   // under the key that holds it
		{"replace", "/PORT/Ethernet0/mtu"},
		{"replace", "/PFC_WD/GLOBAL/POLL_INTERVAL"},
		{"add", "/PFC_WD/Ethernet8"},
	} {
		if !has(want.op, want.path) {
			t.Errorf("missing %s %s in\n%s", want.op, want.path, PatchJSON(ops))
		}
	}
	for _, o := range ops {
		if strings.HasPrefix(o.Path, "/DSCP_TO_TC_MAP/DEFAULT") || strings.HasPrefix(o.Path, "/LOOPBACK") || strings.HasPrefix(o.Path, "/DEVICE_METADATA") {
			t.Errorf("touches what fabricctl does not own: %+v", o)
		}
	}
	// Queues the intent does not use keep their settings.
	if has("remove", "/QUEUE/Ethernet0|4/wred_profile") || has("replace", "/QUEUE/Ethernet0|4/scheduler") {
		t.Errorf("queue 4 is not the intent's")
	}
}

func TestPatchRemovesWhatTheIntentDropped(t *testing.T) {
	si := labSwitch(t)
	observed := defaultDB(t)
	desired, _ := Desired(si)
	ops, _ := BuildPatch(observed, desired)
	if err := ApplyPatch(observed, ops); err != nil {
		t.Fatal(err)
	}
	// Now without PFC and ECN, and the watchdog off.
	si.PFC.Priorities, si.PFC.Watchdog = nil, &fabric.SwitchPFCWatchdog{}
	for i := range si.Classes {
		si.Classes[i].Lossless, si.Classes[i].ECN = false, nil
	}
	desired, err := Desired(si)
	if err != nil {
		t.Fatal(err)
	}
	ops, err = BuildPatch(observed, desired)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{
		"remove /PORT_QOS_MAP/Ethernet0/pfc_enable":     false,
		"remove /QUEUE/Ethernet0|3/wred_profile":        false,
		"remove /PFC_WD/Ethernet0":                      false,
		"remove /WRED_PROFILE/FABRICCTL_Q3":             false,
		"replace /TC_TO_PRIORITY_GROUP_MAP/FABRICCTL":   false,
		"replace /MAP_PFC_PRIORITY_TO_QUEUE/FABRICCTL":  true, // unchanged: queues did not move
		"remove /CABLE_LENGTH/AZURE/Ethernet0":          true, // cable length is left as it was
		"remove /PFC_WD/GLOBAL":                         true,
		"replace /DSCP_TO_TC_MAP/FABRICCTL":             true,
		"remove /SCHEDULER/FABRICCTL_STRICT":            true,
		"remove /PORT_QOS_MAP/Ethernet0/dscp_to_tc_map": true,
	}
	got := map[string]bool{}
	for _, o := range ops {
		got[o.Op+" "+o.Path] = true
	}
	for op, absent := range want {
		if got[op] == absent {
			t.Errorf("%s: present=%v\n%s", op, got[op], PatchJSON(ops))
		}
	}
	if err := ApplyPatch(observed, ops); err != nil {
		t.Fatal(err)
	}
	back, _ := ParseConfigDB(observed)
	if diffs := switchcfg.Compare(si, back); len(diffs) != 0 {
		t.Fatalf("after removal: %v", diffs)
	}
}

func TestPatchRefuses(t *testing.T) {
	si := labSwitch(t)
	desired, _ := Desired(si)

	observed := defaultDB(t)
	delete(observed[tPort], "Ethernet12")
	if _, err := BuildPatch(observed, desired); err == nil || !strings.Contains(err.Error(), "port Ethernet12 is not in the switch's PORT table") {
		t.Errorf("missing port: %v", err)
	}

	observed = defaultDB(t)
	observed[tQueue]["Ethernet8|0-2"] = map[string]string{"scheduler": "sched.lossy"}
	_, err := BuildPatch(observed, desired)
	if !errors.Is(err, switchcfg.ErrNotSupported) || !strings.Contains(err.Error(), "QUEUE|Ethernet8|0 is configured through QUEUE|Ethernet8|0-2") {
		t.Errorf("ranged queue key: %v", err)
	}
}

// bareDB is a CONFIG_DB with si's ports and nothing else (no stock maps).
// bareDB is a switch with ports and nothing of QoS but the PFC watchdog
// SONiC starts by default (enable_pfcwd_on_start: `pfcwd start_default`).
func bareDB(si fabric.SwitchIntent) ConfigDB {
	db := ConfigDB{tPort: {}, tPFCWD: {pfcwdGlobal: {fPollInterval: "200"}}}
	for _, p := range si.Ports {
		db[tPort][p] = map[string]string{"speed": "100000"}
		db[tPFCWD][p] = map[string]string{"action": "drop", "detection_time": "200", "restoration_time": "200"}
	}
	return db
}

// patchTo builds the patch from observed to si's tables, applies it to
// observed as the switch would, and returns it.
func patchTo(t *testing.T, observed ConfigDB, si fabric.SwitchIntent) []PatchOp {
	t.Helper()
	desired, err := Desired(si)
	if err != nil {
		t.Fatal(err)
	}
	ops, err := BuildPatch(observed, desired)
	if err != nil {
		t.Fatal(err)
	}
	if err := ApplyPatch(observed, ops); err != nil {
		t.Fatalf("%v\n%s", err, PatchJSON(ops))
	}
	return ops
}

func TestPatchIntoAnEmptyDatabase(t *testing.T) {
	si := labSwitch(t)
	observed := bareDB(si)
	patchTo(t, observed, si)
	got, _ := ParseConfigDB(observed)
	if diffs := (switchcfg.CompareOptions{Ports: true}).Compare(si, got); len(diffs) != 0 {
		t.Fatal(diffs)
	}
}

func TestApplyPatchErrors(t *testing.T) {
	for _, ops := range [][]PatchOp{
		{{Op: "move", Path: "/PORT"}},
		{{Op: "add", Path: "PORT"}},
		{{Op: "add", Path: "/A/b/c/d", Value: "x"}},
		{{Op: "add", Path: "/NOPE/key", Value: map[string]string{}}},
		{{Op: "add", Path: "/PORT/Ethernet99/mtu", Value: "9100"}},
		{{Op: "add", Path: "/PORT/Ethernet0/mtu", Value: 9100}},
	} {
		if err := ApplyPatch(defaultDB(t), ops); err == nil {
			t.Errorf("%+v accepted", ops)
		}
	}
	if p := pointer("A/B", "x~y"); p != "/A~1B/x~0y" {
		t.Errorf("pointer %q", p)
	}
}

// emptyTables lists the tables of db with no entries: GCU refuses a patch
// that leaves one ("will result in empty tables which is not allowed").
func emptyTables(db ConfigDB) []string {
	var out []string
	for _, table := range sortedKeys(db) {
		if len(db[table]) == 0 {
			out = append(out, table)
		}
	}
	return out
}

// TestPatchRemovesATableItWouldEmpty: on a switch where fabricctl's entries
// are the only ones of a table (no stock DEFAULT map), an intent that drops
// them (PCP trust drops DSCP_TO_TC_MAP; no ECN drops WRED_PROFILE) removes
// the whole table in one op, as GCU requires; where other entries remain,
// only fabricctl's entry goes.
func TestPatchRemovesATableItWouldEmpty(t *testing.T) {
	pcp := func(si *fabric.SwitchIntent) {
		si.Trust = "pcp"
		for i := range si.Classes {
			si.Classes[i].DSCP = nil
		}
	}
	noECN := func(si *fabric.SwitchIntent) {
		for i := range si.Classes {
			si.Classes[i].ECN = nil
		}
	}
	shift := func(si *fabric.SwitchIntent) {
		for i := range si.Classes {
			if si.Classes[i].Queue == 3 {
				si.Classes[i].Queue = 4
			}
		}
	}
	for name, tc := range map[string]struct {
		vary       func(*fabric.SwitchIntent)
		stock      bool // start from the stock default config (DEFAULT maps present)
		want, nope string
	}{
		"pcp-trust on a bare switch": {pcp, false, "remove /DSCP_TO_TC_MAP", "remove /DSCP_TO_TC_MAP/FABRICCTL"},
		"no ECN on a bare switch":    {noECN, false, "remove /WRED_PROFILE", "remove /WRED_PROFILE/FABRICCTL_Q3"},
		"pcp-trust beside DEFAULT":   {pcp, true, "remove /DSCP_TO_TC_MAP/FABRICCTL", "remove /DSCP_TO_TC_MAP"},
		// Every old entry goes but a new one comes: the table is never empty.
		"queue shift on a bare switch": {shift, false, "remove /WRED_PROFILE/FABRICCTL_Q3", "remove /WRED_PROFILE"},
	} {
		t.Run(name, func(t *testing.T) {
			si := labSwitch(t)
			observed := bareDB(si)
			if tc.stock {
				observed = defaultDB(t)
			}
			patchTo(t, observed, si)
			tc.vary(&si)
			ops := patchTo(t, observed, si)
			got := map[string]bool{}
			for _, o := range ops {
				got[o.Op+" "+o.Path] = true
			}
			if !got[tc.want] || got[tc.nope] {
				t.Errorf("want %q and not %q in\n%s", tc.want, tc.nope, PatchJSON(ops))
			}
			if empty := emptyTables(observed); len(empty) != 0 {
				t.Errorf("the patch leaves empty tables %v (GCU refuses it)\n%s", empty, PatchJSON(ops))
			}
			back, _ := ParseConfigDB(observed)
			if diffs := (switchcfg.CompareOptions{Ports: true}).Compare(si, back); len(diffs) != 0 {
				t.Errorf("after the patch: %v", diffs)
			}
		})
	}
}

// TestPatchGCUAcceptable (issue 14): GCU's PFC_WD validator refuses a
// patch that creates the PFC_WD table or its GLOBAL entry, and removing
// GLOBAL or POLL_INTERVAL is illegal: such patches are refused here with
// the fix named, and no patch ever holds those operations.
func TestPatchGCUAcceptable(t *testing.T) {
	si := labSwitch(t)
	noWD := bareDB(si)
	delete(noWD, tPFCWD)
	desired, _ := Desired(si)
	if _, err := BuildPatch(noWD, desired); !errors.Is(err, ErrGCURefuses) || !strings.Contains(err.Error(), "pfcwd start_default") {
		t.Errorf("creating PFC_WD: %v", err)
	}
	noGlobal := bareDB(si)
	delete(noGlobal[tPFCWD], pfcwdGlobal)
	if _, err := BuildPatch(noGlobal, desired); !errors.Is(err, ErrGCURefuses) || !strings.Contains(err.Error(), "pfcwd interval 100") {
		t.Errorf("creating PFC_WD|GLOBAL: %v", err)
	}
	for _, vary := range []func(*fabric.SwitchIntent){
		func(*fabric.SwitchIntent) {},
		func(si *fabric.SwitchIntent) { si.PFC.Watchdog = &fabric.SwitchPFCWatchdog{} },
		func(si *fabric.SwitchIntent) { si.PFC.Watchdog = nil },
	} {
		s := si
		vary(&s)
		observed := bareDB(s)
		for _, o := range patchTo(t, observed, s) {
			if (o.Op == "add" && (o.Path == "/PFC_WD" || o.Path == "/PFC_WD/GLOBAL")) ||
				(o.Op == "remove" && strings.HasPrefix(o.Path, "/PFC_WD/GLOBAL")) {
				t.Errorf("GCU refuses %s %s", o.Op, o.Path)
			}
		}
	}
}

// TestPatchWatchdog (issue 14): orchagent arms the watchdog on the
// priorities pfcwd_sw_enable lists, so an enabled watchdog writes them, a
// disabled one empties the field and removes the port's PFC_WD entry, and
// an intent without a watchdog touches neither.
func TestPatchWatchdog(t *testing.T) {
	si := labSwitch(t)
	observed := bareDB(si)
	patchTo(t, observed, si)
	if observed[tPortQoSMap]["Ethernet0"][fPFCWDSwEnable] != "3" || observed[tPFCWD]["Ethernet0"]["detection_time"] != "200" {
		t.Fatalf("enabled: %v %v", observed[tPortQoSMap]["Ethernet0"], observed[tPFCWD]["Ethernet0"])
	}
	before := PatchJSON([]PatchOp{{Op: "x", Value: observed[tPFCWD]}})
	si.PFC.Watchdog = nil
	for _, o := range patchTo(t, observed, si) {
		if strings.Contains(o.Path, "PFC_WD") || strings.Contains(o.Path, fPFCWDSwEnable) {
			t.Errorf("an intent without a watchdog touched it: %s %s", o.Op, o.Path)
		}
	}
	if after := PatchJSON([]PatchOp{{Op: "x", Value: observed[tPFCWD]}}); string(after) != string(before) {
		t.Errorf("PFC_WD changed:\n%s", after)
	}
	si.PFC.Watchdog = &fabric.SwitchPFCWatchdog{}
	patchTo(t, observed, si)
	if v, ok := observed[tPortQoSMap]["Ethernet0"][fPFCWDSwEnable]; !ok || v != "" || observed[tPFCWD]["Ethernet0"] != nil {
		t.Errorf("disabled: pfcwd_sw_enable %q (%v), PFC_WD %v", v, ok, observed[tPFCWD]["Ethernet0"])
	}
	got, _ := ParseConfigDB(observed)
	if got.PFC.Watchdog == nil || got.PFC.Watchdog.Enabled {
		t.Errorf("reads back %+v", got.PFC.Watchdog)
	}
}

// TestPatchBuffersForAnyLosslessSet (issue 14): the stock templates give
// the lossless buffer profile to queues 3-4 only and buffermgrd never
// deletes a stale BUFFER_PG|port|3-4, so lossless priority 2 (or 3 alone)
// needs BUFFER_QUEUE rewritten and the stale PG removed.
func TestPatchBuffersForAnyLosslessSet(t *testing.T) {
	for _, tc := range []struct {
		name           string
		prio           int
		queues, stales []string // BUFFER_QUEUE ranges after the patch; PG ranges removed
	}{
		{"priority 3 alone", 3, []string{"0-2:egress_lossy_profile", "3:egress_lossless_profile", "4-6:egress_lossy_profile"}, []string{"3-4"}},
		{"priority 2", 2, []string{"0-1:egress_lossy_profile", "2:egress_lossless_profile", "3-6:egress_lossy_profile"}, []string{"3-4"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			si := labSwitch(t)
			si.Ports = []string{"Ethernet0"}
			for i := range si.Classes {
				if si.Classes[i].Lossless {
					si.Classes[i].Priority, si.Classes[i].TrafficClass, si.Classes[i].Queue = tc.prio, tc.prio, tc.prio
				}
			}
			si.PFC.Priorities = []int{tc.prio}
			observed := stockBuffers(bareDB(si), "Ethernet0")
			ops := patchTo(t, observed, si)
			var queues []string
			for _, r := range sortedKeys(portKeys(observed, tBufferQueue, "Ethernet0")) {
				queues = append(queues, r+":"+observed[tBufferQueue]["Ethernet0|"+r]["profile"])
			}
			if strings.Join(queues, " ") != strings.Join(tc.queues, " ") {
				t.Errorf("BUFFER_QUEUE %v, want %v\n%s", queues, tc.queues, PatchJSON(ops))
			}
			for _, r := range tc.stales {
				if observed[tBufferPG]["Ethernet0|"+r] != nil {
					t.Errorf("stale BUFFER_PG|Ethernet0|%s stays", r)
				}
			}
			if observed[tBufferPG]["Ethernet0|0"] == nil {
				t.Error("the lossy PG 0 went")
			}
			// buffermgrd makes the new lossless PG from pfc_enable; then the
			// priority reads lossless.
			observed[tBufferPG]["Ethernet0|"+strconv.Itoa(tc.prio)] = map[string]string{"profile": "pg_lossless_100000_5m_profile"}
			got, _ := ParseConfigDB(observed)
			if diffs := switchcfg.Compare(si, got); len(diffs) != 0 {
				t.Errorf("after the patch: %v", diffs)
			}
		})
	}
	// Before the patch the stock buffers make priority 2 lossy: read back,
	// PFC on 2 alone is not lossless.
	db := stockBuffers(bareDB(fabric.SwitchIntent{Ports: []string{"Ethernet0"}}), "Ethernet0")
	db.set(tPortQoSMap, "Ethernet0", "pfc_enable", "2")
	db.set(tPortQoSMap, "Ethernet0", "dscp_to_tc_map", "M")
	db.set(tDSCPToTC, "M", "16", "2")
	if got, _ := ParseConfigDB(db); len(got.Classes) != 1 || got.Classes[0].Lossless {
		t.Errorf("PFC on queue 2 with the stock lossy buffer reads %+v", got.Classes)
	}
	// The dynamic buffer model makes no PG itself: the patch adds it (NULL).
	si := labSwitch(t)
	si.Ports = []string{"Ethernet0"}
	observed := stockBuffers(bareDB(si), "Ethernet0")
	observed.set(tMetadata, "localhost", "buffer_model", "dynamic")
	patchTo(t, observed, si)
	if observed[tBufferPG]["Ethernet0|3"]["profile"] != "NULL" || observed[tBufferPG]["Ethernet0|3-4"] != nil {
		t.Errorf("dynamic model PGs %v", observed[tBufferPG])
	}
}

// stockBuffers adds what SONiC's buffers_config.j2 and buffermgrd give a
// port with the stock pfc_enable 3,4.
func stockBuffers(db ConfigDB, port string) ConfigDB {
	for r, prof := range map[string]string{"0-2": egressLossy, "3-4": egressLossless, "5-6": egressLossy} {
		db.set(tBufferQueue, port+"|"+r, "profile", prof)
	}
	db.set(tBufferPG, port+"|0", "profile", "ingress_lossy_profile")
	db.set(tBufferPG, port+"|3-4", "profile", "pg_lossless_100000_5m_profile")
	return db
}
