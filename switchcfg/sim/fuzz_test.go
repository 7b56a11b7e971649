package sim

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// fuzzSeeds are lines each platform's shell really sees (what the drivers
// send and what an operator types), plus some wrong ones.
var fuzzSeeds = map[string][]string{
	"arista-eos": {"configure session s1\ninterface Ethernet1\nmtu 9214\ntx-queue 3\nrandom-detect ecn minimum-threshold 150 kbytes maximum-threshold 1500 kbytes max-mark-probability 100\nshow session-config diffs\ncommit timer 00:01:00\nconfigure session s1 commit",
		"configure terminal\nqos map dscp 0 1 26 to traffic-class 3\nno qos map dscp 26\nend\nshow running-config",
		"configure\ninterface Ethernet1 foo\nno\n!\nexit\nexit"},
	"cisco-nxos": {"checkpoint c\nconfigure terminal\npolicy-map type queuing Q\nclass type queuing c-out-8q-q3\nbandwidth remaining percent 50\nno random-detect\nend\nshow diff rollback-patch checkpoint c running-config\nrollback running-config checkpoint c",
		"configure terminal\ninterface Ethernet1/1\nmtu\nno interface Ethernet1/1\nsystem qos\nservice-policy type qos input X"},
	"junos": {"configure private\nset class-of-service forwarding-classes class roce queue-num 3 no-loss pfc-priority 3\nset class-of-service drop-profiles d interpolate fill-level [ 5 50 ]\nshow | compare\ncommit confirmed 1\ncommit\nexit",
		"configure\nset class-of-service schedulers s drop-profile-map loss-priority any protocol any drop-profile x\ncommit check\ndelete class-of-service\nrollback 3\nexit\nno",
		"show configuration class-of-service | display set\nset cli screen-width 511\nconfigure private\nload set terminal\nset interfaces et-0/0/0 mtu 9216"},
	"cumulus-nvue": {"nv set qos mapping default-global dscp 0-25,27 switch-priority 0\nnv unset qos roce\nnv config diff -o json\nnv config apply -y --confirm 60s\nnv config apply -y\nnv config show -o json",
		"nv set interface swp1-4,swp7s0-3 qos pfc-watchdog\nnv set qos pfc x switch-priority 9\nnv config detach\nsudo nv show qos -o yaml"},
	"sonic": {"sudo config checkpoint c\ncat > /tmp/p <<'EOF'\n[{\"op\": \"add\", \"path\": \"/PORT_QOS_MAP\", \"value\": {\"Ethernet0\": {\"pfc_enable\": \"3\"}}}]\nEOF\nsudo config apply-patch --dry-run /tmp/p\nsudo config apply-patch /tmp/p\nsudo config rollback c\nshow runningconfiguration all",
		"echo 'a' >> /tmp/x\ncat /tmp/x\nrm -f /tmp/x\nconfig save -y\nsudo config apply-patch -f\n\"unterminated"},
}

// FuzzShell types arbitrary lines into every platform's CLI: nothing may
// panic, every reply ends, and the read-back stays printable.
func FuzzShell(f *testing.F) {
	names := make([]string, 0, len(platforms))
	for _, p := range Platforms() {
		names = append(names, p)
	}
	for i, p := range names {
		for _, s := range fuzzSeeds[p] {
			f.Add(uint8(i), s)
		}
	}
	f.Fuzz(func(t *testing.T, which uint8, input string) {
		platform := names[int(which)%len(names)]
		srv, err := New(Options{Platform: platform, Password: "x", Now: func() time.Time { return time.Unix(0, 0) }})
		if err != nil {
			t.Fatal(err)
		}
		defer srv.Close()
		srv.mu.Lock()
		defer srv.mu.Unlock()
		sh := srv.dev.newShell(srv.user)
		for _, line := range strings.Split(input, "\n") {
			var r reply
			if strings.HasSuffix(line, "\x04") {
				r = sh.eof(strings.TrimSuffix(line, "\x04"))
			} else {
				r = sh.exec(line)
			}
			_ = sh.prompt()
			_ = sh.reject(line)
			if r.exit {
				sh = srv.dev.newShell(srv.user)
			}
		}
		srv.env.stopTimer()
		_ = srv.dev.readback()
	})
}

// FuzzJSONPatch applies arbitrary RFC 6902 patches to a CONFIG_DB: errors
// are fine, panics are not, and an accepted patch leaves valid JSON.
func FuzzJSONPatch(f *testing.F) {
	f.Add(`[{"op": "add", "path": "/A", "value": {"x": {"y": "1"}}}, {"op": "move", "from": "/A/x", "path": "/B"}]`)
	f.Add(`[{"op": "add", "path": "/L", "value": [1, 2]}, {"op": "add", "path": "/L/-", "value": 3}, {"op": "remove", "path": "/L/0"}, {"op": "test", "path": "/L/1", "value": 3}]`)
	f.Add(`[{"op": "replace", "path": "/PORT/Ethernet0/mtu", "value": "9216"}, {"op": "copy", "from": "/PORT", "path": "/P~1Q~0"}]`)
	f.Add(`[{"op": "remove", "path": ""}]`)
	f.Fuzz(func(t *testing.T, patch string) {
		ops, err := parsePatch([]byte(patch))
		if err != nil {
			return
		}
		doc := map[string]any{"PORT": map[string]any{"Ethernet0": map[string]any{"mtu": "9100"}}}
		out, err := applyPatch(doc, ops)
		if err != nil {
			return
		}
		if _, err := json.Marshal(out); err != nil {
			t.Fatalf("patched document does not marshal: %v", err)
		}
		_ = validateConfigDB(out)
		_ = leafChanges(doc, out, "")
		if doc["PORT"].(map[string]any)["Ethernet0"].(map[string]any)["mtu"] != "9100" {
			t.Fatal("applyPatch modified its input")
		}
	})
}
