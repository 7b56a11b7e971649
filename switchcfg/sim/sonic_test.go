package sim_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/internal/testutil"
	"github.com/fabricctl/fabricctl/switchcfg/sim"
)

const sonicPatch = `[
  {"op": "add", "path": "/DSCP_TO_TC_MAP", "value": {"ROCE": {"26": "3", "48": "6"}}},
  {"op": "add", "path": "/WRED_PROFILE", "value": {"ROCE_LOSSLESS": {"ecn": "ecn_all", "wred_green_enable": "true",
    "green_min_threshold": "150000", "green_max_threshold": "1500000", "green_drop_probability": "100"}}},
  {"op": "add", "path": "/QUEUE", "value": {"Ethernet0|3": {"wred_profile": "ROCE_LOSSLESS"}}},
  {"op": "add", "path": "/PORT_QOS_MAP", "value": {"Ethernet0": {"dscp_to_tc_map": "ROCE", "pfc_enable": "3"}}},
  {"op": "replace", "path": "/PORT/Ethernet0/mtu", "value": "9216"}
]`

func TestSONiCHeredocPatchCheckpointRollback(t *testing.T) {
	sw, c := dial(t, sim.Options{Platform: "sonic"})
	before := sw.Running()
	c.ok("sudo config checkpoint fabricctl-1")
	c.ok("cat > /tmp/p.json <<'EOF'\n" + sonicPatch + "\nEOF")
	if got := c.ok("cat /tmp/p.json"); !strings.Contains(got, `"ROCE_LOSSLESS"`) {
		t.Fatalf("the here-document did not reach the file:\n%s", got)
	}
	dry := c.ok("sudo config apply-patch --dry-run /tmp/p.json")
	if !strings.Contains(dry, "Patch Applier: The localhost patch was converted into 5 changes:") ||
		!strings.Contains(dry, "Patch applied successfully.") {
		t.Fatalf("dry run output:\n%s", dry)
	}
	if sw.Running() != before {
		t.Fatal("a dry run changed CONFIG_DB")
	}
	c.ok("sudo config apply-patch /tmp/p.json")
	var db map[string]map[string]map[string]any
	if err := json.Unmarshal([]byte(c.ok("show runningconfiguration all")), &db); err != nil {
		t.Fatal(err)
	}
	if db["PORT_QOS_MAP"]["Ethernet0"]["pfc_enable"] != "3" || db["PORT"]["Ethernet0"]["mtu"] != "9216" {
		t.Fatalf("patch not applied: %v", db["PORT_QOS_MAP"])
	}
	again := c.ok("sudo config apply-patch --dry-run /tmp/p.json")
	if !strings.Contains(again, "converted into 0 changes.") {
		t.Fatalf("re-applying the same patch should be a no-op:\n%s", again)
	}
	c.ok("sudo config rollback fabricctl-1")
	if sw.Running() != before {
		t.Fatal("rollback did not restore the checkpoint")
	}
	c.ok("sudo config save -y")
	st := sw.Stats()
	if st.Commits != 1 || st.Rollbacks != 1 || st.Saves != 1 {
		t.Fatalf("stats %+v", st)
	}
	testutil.Golden(t, "sonic-apply-patch.golden", []byte(dry+"\n"))
}

func TestSONiCErrors(t *testing.T) {
	sw, c := dial(t, sim.Options{Platform: "sonic"})
	before := sw.Running()
	if msg := c.rejected("config save -y"); msg != "Root privileges are required for this operation" {
		t.Fatalf("config without sudo: %q", msg)
	}
	c.ok(`cat > /tmp/bad.json <<'EOF'
[{"op": "add", "path": "/QUEUE", "value": {"Ethernet0|3": {"wred_profile": "MISSING"}}}]
EOF`)
	msg := c.rejected("sudo config apply-patch /tmp/bad.json")
	if !strings.HasPrefix(msg, "Failed to apply patch due to: Given patch will produce invalid config.") {
		t.Fatalf("dangling reference: %q", msg)
	}
	c.ok(`cat > /tmp/bad.json <<'EOF'
[{"op": "remove", "path": "/NO_SUCH_TABLE"}]
EOF`)
	if msg := c.rejected("sudo config apply-patch /tmp/bad.json"); !strings.Contains(msg, "does not exist") {
		t.Fatalf("removing nothing: %q", msg)
	}
	if msg := c.rejected("sudo config rollback nope"); !strings.HasPrefix(msg, "Failed to rollback") &&
		!strings.HasPrefix(msg, "Error:") {
		t.Fatalf("rollback to a missing checkpoint: %q", msg)
	}
	if msg := c.rejected("nv show"); msg != "-bash: nv: command not found" {
		t.Fatalf("unknown command: %q", msg)
	}
	if sw.Running() != before {
		t.Fatal("failed patches changed CONFIG_DB")
	}
}

func TestSONiCApplyDirectValidates(t *testing.T) {
	sw := startSim(t, sim.Options{Platform: "sonic"})
	if err := sw.Apply(`[{"op": "add", "path": "/PORT/Ethernet0/mtu", "value": "abc"}]`); err == nil {
		t.Fatal("Apply accepted an MTU that is not a number")
	}
	if err := sw.Apply(`[{"op": "replace", "path": "/PORT/Ethernet4/mtu", "value": "9000"}]`); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(sw.Running(), `"mtu": "9000"`) {
		t.Fatal("Apply did not change CONFIG_DB")
	}
}

// TestSONiCRefusesWhatGCURefuses: the simulator refuses what SONiC's
// generic config updater refuses (sonic-utilities generic_config_updater:
// the PFC_WD validator and illegal removals; sonic-pfcwd.yang's ranges),
// and its buffer manager adds lossless priority groups for a new
// pfc_enable without deleting the old ones (sonic-swss buffermgr.cpp).
func TestSONiCRefusesWhatGCURefuses(t *testing.T) {
	sw, c := dial(t, sim.Options{Platform: "sonic"})
	for name, tc := range map[string]struct{ patch, want string }{
		"remove GLOBAL":        {`[{"op": "remove", "path": "/PFC_WD/GLOBAL"}]`, "Operation: remove is illegal on field: /PFC_WD/GLOBAL"},
		"remove POLL":          {`[{"op": "remove", "path": "/PFC_WD/GLOBAL/POLL_INTERVAL"}]`, "illegal on field: /PFC_WD/GLOBAL/POLL_INTERVAL"},
		"poll 3000":            {`[{"op": "replace", "path": "/PFC_WD/GLOBAL/POLL_INTERVAL", "value": "3000"}]`, "Given patch will produce invalid config"},
		"detection below poll": {`[{"op": "replace", "path": "/PFC_WD/Ethernet0/detection_time", "value": "150"}]`, "Given patch will produce invalid config"},
	} {
		t.Run(name, func(t *testing.T) {
			c.ok("cat > /tmp/p.json <<'EOF'\n" + tc.patch + "\nEOF")
			if msg := c.rejected("sudo config apply-patch /tmp/p.json"); !strings.Contains(msg, tc.want) {
				t.Errorf("%s: %q", name, msg)
			}
		})
	}
	// Without PFC_WD, GCU cannot create it.
	c.ok(`cat > /tmp/p.json <<'EOF'
[{"op": "remove", "path": "/PFC_WD"}]
EOF`)
	c.ok("sudo config apply-patch /tmp/p.json")
	c.ok(`cat > /tmp/p.json <<'EOF'
[{"op": "add", "path": "/PFC_WD", "value": {"Ethernet0": {"action": "drop", "detection_time": "200", "restoration_time": "200"}}}]
EOF`)
	if msg := c.rejected("sudo config apply-patch /tmp/p.json"); !strings.Contains(msg, "rdma_config_update_validator returned False") {
		t.Errorf("creating PFC_WD: %q", msg)
	}
	// buffermgrd: pfc_enable 3,4 then 3 leaves BUFFER_PG|Ethernet0|3-4.
	for _, pfc := range []string{"3,4", "3"} {
		c.ok(`cat > /tmp/p.json <<'EOF'
[{"op": "add", "path": "/PORT_QOS_MAP", "value": {"Ethernet0": {"pfc_enable": "` + pfc + `"}}}]
EOF`)
		if pfc == "3" {
			c.ok(`cat > /tmp/p.json <<'EOF'
[{"op": "replace", "path": "/PORT_QOS_MAP/Ethernet0/pfc_enable", "value": "3"}]
EOF`)
		}
		c.ok("sudo config apply-patch /tmp/p.json")
	}
	var db map[string]map[string]map[string]any
	if err := json.Unmarshal([]byte(sw.Running()), &db); err != nil {
		t.Fatal(err)
	}
	if db["BUFFER_PG"]["Ethernet0|3-4"] == nil || db["BUFFER_PG"]["Ethernet0|3"] == nil {
		t.Errorf("BUFFER_PG %v", db["BUFFER_PG"])
	}
}
