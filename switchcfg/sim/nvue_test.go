package sim_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/internal/testutil"
	"github.com/fabricctl/fabricctl/switchcfg/sim"
)

func TestNVUEPendingDiffApplyConfirm(t *testing.T) {
	sw, c := dial(t, sim.Options{Platform: "cumulus-nvue"})
	before := sw.Running()
	for _, l := range []string{
		"nv set qos mapping default-global trust l3",
		"nv set qos mapping default-global dscp 26 switch-priority 3",
		"nv set qos pfc default-global switch-priority 3",
		"nv set qos congestion-control default-global traffic-class 3 min-threshold 150000",
		"nv set qos egress-scheduler default-global traffic-class 0,3 mode dwrr",
		"nv set interface swp1-2 qos pfc-watchdog",
		"nv unset interface eth0 description",
	} {
		c.ok(l)
	}
	testutil.Golden(t, "nvue-config-diff.golden", []byte(c.ok("nv config diff")+"\n"))
	var doc []map[string]any
	if err := json.Unmarshal([]byte(c.ok("nv config diff -o json")), &doc); err != nil || len(doc) != 2 {
		t.Fatalf("nv config diff -o json: %v %v", doc, err)
	}
	if sw.Running() != before {
		t.Fatal("nv set changed the applied revision")
	}
	out := c.ok("nv config apply -y --confirm 60s")
	if !strings.HasPrefix(out, "applied [rev_id: 2]") {
		t.Fatalf("apply: %q", out)
	}
	if strings.TrimSpace(c.ok("nv config diff")) != "" {
		t.Fatal("the pending revision survived the apply")
	}
	// `nv config apply -y` is another apply, not a confirmation.
	if out := c.ok("nv config apply -y"); !strings.Contains(out, "nothing to apply") {
		t.Fatalf("apply -y with nothing pending: %q", out)
	}
	c.ok("nv config apply --confirm-yes") // confirms
	if sw.ExpireConfirm() {
		t.Fatal("the confirm did not stop the timer")
	}
	applied := c.ok("nv config show -o json")
	var show []map[string]map[string]any
	if err := json.Unmarshal([]byte(applied), &show); err != nil || len(show) != 2 || show[1]["set"]["qos"] == nil {
		t.Fatalf("nv config show -o json is not [header, set]: %v\n%s", err, applied)
	}
	if applied+"\n" != sw.Running() {
		t.Fatal("nv config show -o json over SSH differs from Running()")
	}
	st := sw.Stats()
	if st.Commits != 1 || st.ConfirmedCommits != 1 || st.Confirms != 1 {
		t.Fatalf("stats %+v", st)
	}
}

func TestNVUEConfirmTimeoutAndDetach(t *testing.T) {
	sw, c := dial(t, sim.Options{Platform: "cumulus-nvue"})
	before := sw.Running()
	c.ok("nv set interface swp5 link mtu 9216")
	c.ok("nv config apply -y --confirm 300")
	if sw.Running() == before || !sw.ExpireConfirm() || sw.Running() != before {
		t.Fatal("an unconfirmed apply was not rolled back")
	}
	c.ok("nv set interface swp5 link mtu 9000")
	c.ok("nv config detach")
	if strings.TrimSpace(c.ok("nv config diff")) != "" {
		t.Fatal("detach kept the pending revision")
	}
	if msg := c.rejected("nv set interface swp5 link mtu 99999"); !strings.HasPrefix(msg, "Error:") {
		t.Fatalf("bad value: %q", msg)
	}
	if msg := c.rejected("nv set qos bogus 1"); msg != "Invalid Command: nv set qos bogus 1" {
		t.Fatalf("bad path: %q", msg)
	}
	if msg := c.rejected("vtysh"); msg != "-bash: vtysh: command not found" {
		t.Fatalf("unknown command: %q", msg)
	}
}

func TestNVUEPendingBelongsToTheUserAcrossLogins(t *testing.T) {
	sw := startSim(t, sim.Options{Platform: "cumulus-nvue"})
	first := cli{t, sw.Dial(t)}
	first.ok("nv set interface swp7 link mtu 9000")
	_ = first.c.Close()
	second := cli{t, sw.Dial(t)}
	if !strings.Contains(second.ok("nv config diff"), "mtu: 9000") {
		t.Fatal("the user's pending revision did not survive the logout")
	}
}
