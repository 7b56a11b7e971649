package sim_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/fabricctl/fabricctl/internal/testutil"
	"github.com/fabricctl/fabricctl/switchcfg"
	"github.com/fabricctl/fabricctl/switchcfg/session"
	"github.com/fabricctl/fabricctl/switchcfg/sim"
	"github.com/fabricctl/fabricctl/switchcfg/sim/simtest"
)

// cli sends commands through a session and fails the test on errors.
type cli struct {
	t *testing.T
	c *session.Conn
}

func (c cli) ok(cmd string) string {
	c.t.Helper()
	out, err := c.c.Send(context.Background(), cmd)
	if err != nil {
		c.t.Fatalf("%q: %v\n%s", cmd, err, out)
	}
	return out
}

// rejected sends cmd and returns the device's error message, failing the
// test when the device accepts it.
func (c cli) rejected(cmd string) string {
	c.t.Helper()
	out, err := c.c.Send(context.Background(), cmd)
	var le *switchcfg.LineError
	if !errors.As(err, &le) || le.Line != cmd {
		c.t.Fatalf("%q: want a LineError naming the line, got %v\n%s", cmd, err, out)
	}
	return le.Message
}

func dial(t *testing.T, opt sim.Options) (*simtest.Switch, cli) {
	t.Helper()
	sw := simtest.Start(t, opt)
	return sw, cli{t, sw.Dial(t)}
}

func startSim(t *testing.T, opt sim.Options) *simtest.Switch {
	t.Helper()
	return simtest.Start(t, opt)
}

func TestEOSConfigureSessionCommitAbortAndTimer(t *testing.T) {
	sw, c := dial(t, sim.Options{Platform: "arista-eos"})
	before := sw.Running()

	c.ok("configure session s1")
	c.ok("interface Ethernet1")
	c.ok("mtu 9214")
	diff := c.ok("show session-config diffs")
	if !strings.Contains(diff, "+   mtu 9214") || !strings.Contains(diff, "--- system:/running-config") {
		t.Fatalf("session diff lacks the change:\n%s", diff)
	}
	if sw.Running() != before {
		t.Fatal("a configure session changed the running configuration before commit")
	}
	c.ok("abort")
	if sw.Running() != before || sw.Stats().Aborts != 1 {
		t.Fatalf("abort: running changed or not counted (stats %+v)", sw.Stats())
	}

	// commit timer, then the timer expires: EOS rolls back.
	c.ok("configure session s2")
	c.ok("interface Ethernet2")
	c.ok("mtu 9000")
	c.ok("commit timer 00:05:00")
	if !strings.Contains(sw.Running(), "interface Ethernet2\n   mtu 9000") {
		t.Fatalf("commit timer did not apply the session:\n%s", sw.Running())
	}
	if !sw.ExpireConfirm() || sw.Running() != before {
		t.Fatalf("expired commit timer did not roll back:\n%s", sw.Running())
	}

	// commit timer, then confirmed.
	c.ok("configure session s3")
	c.ok("interface Ethernet3")
	c.ok("mtu 9000")
	c.ok("commit timer 00:05:00")
	c.ok("configure session s3 commit")
	if sw.ExpireConfirm() || !strings.Contains(sw.Running(), "interface Ethernet3\n   mtu 9000") {
		t.Fatalf("confirmed commit did not stick:\n%s", sw.Running())
	}
	st := sw.Stats()
	if st.Commits != 2 || st.ConfirmedCommits != 2 || st.Confirms != 1 || st.AutoRollbacks != 1 {
		t.Fatalf("stats = %+v", st)
	}
	if msg := c.rejected("configure session s3"); !strings.HasPrefix(msg, "% Error: cannot enter session s3") {
		t.Fatalf("re-entering a completed session: %q", msg)
	}
}

func TestEOSGrammarAndErrors(t *testing.T) {
	sw, c := dial(t, sim.Options{Platform: "arista-eos", Model: "sand", Now: fixedNow})
	c.ok("configure terminal")
	if msg := c.rejected("interface Ethernet1 foo"); msg != "% Invalid input" {
		t.Fatalf("invalid line: %q", msg)
	}
	c.ok("interface Ethernet1")
	if msg := c.rejected("mtu"); msg != "% Incomplete command" {
		t.Fatalf("incomplete line: %q", msg)
	}
	if msg := c.rejected("mtu 99999"); msg != "% Invalid input" {
		t.Fatalf("out of range MTU: %q", msg)
	}
	for _, l := range []string{
		"mtu 9214", "qos trust dscp", "priority-flow-control on", "priority-flow-control priority 3 no-drop",
		"tx-queue 3", "no priority", "bandwidth percent 50",
		"random-detect ecn minimum-threshold 150 kbytes maximum-threshold 1500 kbytes max-mark-probability 100",
		"tx-queue 6", "priority strict",
		// A global statement leaves the interface, as on EOS.
		"qos map dscp 0 1 2 26 to traffic-class 0", "qos map dscp 26 to traffic-class 3",
		"qos map traffic-class 3 to tx-queue 3",
		"priority-flow-control pause watchdog default timeout 0.2",
		"interface Ethernet2", "mtu 9214", "no mtu",
		"interface Ethernet1", "no priority-flow-control priority 3",
		"end",
	} {
		c.ok(l)
	}
	testutil.Golden(t, "eos-running-config.golden", []byte(sw.Running()))
	if got := c.ok("show running-config"); got+"\n" != sw.Running() {
		t.Fatalf("show running-config over SSH differs from Running():\n%s", got)
	}
}

// TestEOSModelFamilies: each family refuses the other's queue commands, the
// global watchdog action takes drop or no-drop only (notify-only is per
// port), and no interface takes an MTU above 9214 (EOS User Manual QoS
// chapter per platform; AVD's eos_cli_config_gen schema).
func TestEOSModelFamilies(t *testing.T) {
	for _, tt := range []struct {
		model          string
		accept, refuse []string
	}{
		{"strata", []string{"uc-tx-queue 3", "mc-tx-queue 1", "qos map traffic-class 3 to uc-tx-queue 3"},
			[]string{"tx-queue 3", "qos map traffic-class 3 to tx-queue 3"}},
		{"sand", []string{"tx-queue 3", "qos map traffic-class 3 to tx-queue 3"},
			[]string{"uc-tx-queue 3", "mc-tx-queue 1", "qos map traffic-class 3 to uc-tx-queue 3"}},
	} {
		t.Run(tt.model, func(t *testing.T) {
			_, c := dial(t, sim.Options{Platform: "arista-eos", Model: tt.model})
			c.ok("configure terminal")
			for _, l := range tt.refuse {
				c.ok("interface Ethernet1")
				if msg := c.rejected(l); msg != "% Invalid input" {
					t.Errorf("%q on %s: %q", l, tt.model, msg)
				}
			}
			for _, l := range tt.accept {
				c.ok("interface Ethernet1")
				c.ok(l)
			}
			for _, l := range []string{"priority-flow-control pause watchdog action notify-only", "interface Ethernet1", "mtu 9216"} {
				if l == "interface Ethernet1" {
					c.ok(l)
					continue
				}
				if msg := c.rejected(l); msg != "% Invalid input" {
					t.Errorf("%q: %q", l, msg)
				}
			}
			c.ok("priority-flow-control pause watchdog port action notify-only")
			c.ok("priority-flow-control pause watchdog action no-drop")
			c.ok("interface Ethernet1")
			c.ok("mtu 9214")
		})
	}
}

// fixedNow keeps timestamps in read-backs stable for golden files.
func fixedNow() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }
