package sim_test

import (
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/internal/testutil"
	"github.com/fabricctl/fabricctl/switchcfg/sim"
)

func TestNXOSCheckpointDiffAndRollback(t *testing.T) {
	sw, c := dial(t, sim.Options{Platform: "cisco-nxos", Now: fixedNow})
	before := sw.Running()
	c.ok("checkpoint cp1")
	if msg := c.rejected("checkpoint cp1"); !strings.HasPrefix(msg, "ERROR:") {
		t.Fatalf("duplicate checkpoint: %q", msg)
	}
	empty := c.ok("show diff rollback-patch checkpoint cp1 running-config")
	if !strings.Contains(empty, "Rollback Patch is Empty") {
		t.Fatalf("no change yet, want an empty patch:\n%s", empty)
	}
	c.ok("configure terminal")
	for _, l := range []string{
		"class-map type qos match-any roce", "match dscp 26",
		"policy-map type qos FABRICCTL-QOS", "class roce", "set qos-group 3",
		"policy-map type queuing FABRICCTL-QUEUING",
		"class type queuing c-out-8q-q3", "bandwidth remaining percent 50",
		"random-detect minimum-threshold 150 kbytes maximum-threshold 1500 kbytes drop-probability 100 weight 0 ecn",
		"class type queuing c-out-8q-q6", "priority level 1",
		"policy-map type network-qos FABRICCTL-NETWORK-QOS", "class type network-qos c-8q-nq3", "mtu 9216", "pause pfc-cos 3",
		"system qos", "service-policy type network-qos FABRICCTL-NETWORK-QOS",
		"service-policy type queuing output FABRICCTL-QUEUING",
		"interface Ethernet1/1", "mtu 9216", "priority-flow-control mode on", "service-policy type qos input FABRICCTL-QOS",
		"end",
	} {
		c.ok(l)
	}
	patch := c.ok("show diff rollback-patch checkpoint cp1 running-config")
	testutil.Golden(t, "nxos-rollback-patch.golden", []byte(patch+"\n"))
	testutil.Golden(t, "nxos-running-config.golden", []byte(sw.Running()))
	if sw.Stats().Commits != 1 {
		t.Fatalf("leaving configuration mode with changes counts one commit, stats %+v", sw.Stats())
	}
	out := c.ok("rollback running-config checkpoint cp1")
	if !strings.Contains(out, "Rollback completed successfully.") || sw.Running() != before {
		t.Fatalf("rollback did not restore the checkpoint:\n%s\n%s", out, sw.Running())
	}
	c.ok("copy running-config startup-config")
	if sw.Stats().Saves != 1 || sw.Stats().Rollbacks != 1 {
		t.Fatalf("stats %+v", sw.Stats())
	}
}

func TestNXOSErrorsCarryTheCaret(t *testing.T) {
	_, c := dial(t, sim.Options{Platform: "cisco-nxos"})
	c.ok("configure terminal")
	c.ok("policy-map type queuing Q")
	// User-defined queuing classes do not exist on Nexus 9000.
	msg := c.rejected("class type queuing my-queue")
	if msg != "% Invalid command at '^' marker." {
		t.Fatalf("message: %q", msg)
	}
	out, _ := c.c.Send(t.Context(), "bogus command")
	want := strings.Repeat(" ", len("leaf01(config-pmap-que)# ")) + "^\n% Invalid command at '^' marker."
	if out != want {
		t.Fatalf("caret output:\n%q\nwant\n%q", out, want)
	}
	if msg := c.rejected("interface Ethernet1/1 mtu"); !strings.HasPrefix(msg, "% Invalid command") {
		t.Fatalf("message: %q", msg)
	}
	c.ok("interface Ethernet1/1")
	if msg := c.rejected("mtu"); msg != "% Incomplete command at '^' marker." {
		t.Fatalf("message: %q", msg)
	}
}

// TestNXOSNoFormsTakeValues: `no match cos` and `no pause pfc-cos` name
// what they remove (running configurations print `no pause pfc-cos 0`);
// the bare forms are invalid input. Ingress queuing classes take the pause
// buffer thresholds Cisco requires above 100 m of cable.
func TestNXOSNoFormsTakeValues(t *testing.T) {
	sw, c := dial(t, sim.Options{Platform: "cisco-nxos"})
	c.ok("configure terminal")
	c.ok("class-map type qos match-any ROCE")
	c.ok("match cos 3")
	if msg := c.rejected("no match cos"); !strings.HasPrefix(msg, "% Invalid command") {
		t.Fatalf("bare no match cos: %q", msg)
	}
	c.ok("no match cos 3")
	c.ok("match dscp 26")
	if msg := c.rejected("no match dscp"); !strings.HasPrefix(msg, "% Invalid command") {
		t.Fatalf("bare no match dscp: %q", msg)
	}
	c.ok("policy-map type network-qos NQ")
	c.ok("class type network-qos c-8q-nq3")
	c.ok("pause pfc-cos 3")
	if msg := c.rejected("no pause pfc-cos"); !strings.HasPrefix(msg, "% Invalid command") {
		t.Fatalf("bare no pause pfc-cos: %q", msg)
	}
	c.ok("no pause pfc-cos 3")
	c.ok("policy-map type queuing IN")
	c.ok("class type queuing c-in-q3")
	c.ok("pause buffer-size 342528 pause-threshold 36864 resume-threshold 18432")
	c.ok("end")
	run := sw.Running()
	if strings.Contains(run, "match cos") || strings.Contains(run, "pause pfc-cos") || !strings.Contains(run, "match dscp 26") ||
		!strings.Contains(run, "pause buffer-size 342528") {
		t.Fatalf("running configuration:\n%s", run)
	}
}
