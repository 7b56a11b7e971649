package sim_test

import (
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/internal/testutil"
	"github.com/fabricctl/fabricctl/switchcfg/sim"
	"github.com/fabricctl/fabricctl/switchcfg/sim/simtest"
)

var junosCoS = []string{
	"set class-of-service forwarding-classes class default queue-num 0",
	"set class-of-service forwarding-classes class roce queue-num 4 no-loss pfc-priority 3",
	"set class-of-service forwarding-classes class cnp queue-num 3",
	"set class-of-service classifiers dscp C forwarding-class default loss-priority low code-points [ 000000 000001 ]",
	"set class-of-service classifiers dscp C forwarding-class roce loss-priority low code-points 011010",
	"set class-of-service classifiers dscp C forwarding-class cnp loss-priority low code-points 110000",
	"set class-of-service drop-profiles dp1 interpolate fill-level [ 5 50 ]",
	"set class-of-service drop-profiles dp1 interpolate drop-probability [ 0 100 ]",
	"set class-of-service schedulers s-roce transmit-rate percent 50",
	"set class-of-service schedulers s-roce drop-profile-map loss-priority any protocol any drop-profile dp1",
	"set class-of-service schedulers s-roce explicit-congestion-notification",
	"set class-of-service schedulers s-cnp priority strict-high",
	"set class-of-service scheduler-maps SM forwarding-class roce scheduler s-roce",
	"set class-of-service scheduler-maps SM forwarding-class cnp scheduler s-cnp",
	"set class-of-service congestion-notification-profile CNP input dscp code-point 011010 pfc",
	"set class-of-service congestion-notification-profile CNP output ieee-802.1 code-point 011 flow-control-queue 4",
	"set class-of-service congestion-notification-profile CNP pfc-watchdog",
	"set class-of-service interfaces et-0/0/0 congestion-notification-profile CNP",
	"set class-of-service interfaces et-0/0/0 scheduler-map SM",
	"set class-of-service interfaces et-0/0/0 unit * classifiers dscp C",
	"set interfaces et-0/0/0 mtu 9216",
}

func TestJunosPrivateCandidateCompareCommit(t *testing.T) {
	sw, c := dial(t, sim.Options{Platform: "junos", Now: fixedNow})
	before := sw.Running()
	if before != "" {
		t.Fatalf("a fresh simulator has no class-of-service:\n%s", before)
	}
	out := c.ok("configure private")
	if !strings.Contains(out, "Entering configuration mode") {
		t.Fatalf("configure private: %q", out)
	}
	for _, l := range junosCoS {
		c.ok(l)
	}
	testutil.Golden(t, "junos-compare.golden", []byte(c.ok("show | compare")+"\n"))
	if sw.Running() != before {
		t.Fatal("the private candidate leaked into the committed configuration")
	}
	out = c.ok("commit confirmed 2")
	if !strings.Contains(out, "commit confirmed will be automatically rolled back in 2 minutes unless confirmed") ||
		!strings.Contains(out, "commit complete") {
		t.Fatalf("commit confirmed: %q", out)
	}
	c.ok("commit")
	if sw.ExpireConfirm() {
		t.Fatal("a confirmed commit left its timer running")
	}
	if out := c.ok("show | compare"); strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(out), "[edit]")) != "" {
		t.Fatalf("after commit the candidate still differs:\n%s", out)
	}
	c.ok("exit")
	testutil.Golden(t, "junos-cos-display-set.golden", []byte(sw.Running()))
	testutil.Golden(t, "junos-cos-curly.golden", []byte(c.ok("show configuration class-of-service")+"\n"))
	if got := c.ok("show configuration class-of-service | display set"); got+"\n" != sw.Running() {
		t.Fatalf("display set over SSH differs from Running():\n%s", got)
	}
	st := sw.Stats()
	if st.Commits != 1 || st.ConfirmedCommits != 1 || st.Confirms != 1 {
		t.Fatalf("stats %+v", st)
	}
}

func TestJunosConfirmTimeoutRollsBack(t *testing.T) {
	sw, c := dial(t, sim.Options{Platform: "junos"})
	c.ok("configure private")
	c.ok("set interfaces et-0/0/1 mtu 9216")
	c.ok("commit confirmed 1")
	if !strings.Contains(c.ok("run show configuration interfaces et-0/0/1"), "mtu 9216;") {
		t.Fatal("commit confirmed did not commit")
	}
	if !sw.ExpireConfirm() {
		t.Fatal("no confirm timer was pending")
	}
	if strings.Contains(c.ok("run show configuration interfaces et-0/0/1"), "mtu") {
		t.Fatal("the expired confirmed commit was not rolled back")
	}
	if sw.Stats().AutoRollbacks != 1 {
		t.Fatalf("stats %+v", sw.Stats())
	}
}

func TestJunosErrors(t *testing.T) {
	_, c := dial(t, sim.Options{Platform: "junos"})
	if msg := c.rejected("show bogus"); msg != "syntax error." && msg != "unknown command." {
		t.Fatalf("op-mode error: %q", msg)
	}
	c.ok("configure private")
	out, _ := c.c.Send(t.Context(), "set class-of-service bogus 1")
	want := strings.Repeat(" ", len("admin@leaf01# set class-of-service ")) + "^\nsyntax error."
	if !strings.HasPrefix(out, want) {
		t.Fatalf("syntax error output:\n%q\nwant prefix\n%q", out, want)
	}
	if msg := c.rejected("set class-of-service forwarding-classes class x queue-num 99"); msg != "syntax error." {
		t.Fatalf("bad value: %q", msg)
	}
	c.ok("set class-of-service interfaces et-0/0/0 scheduler-map MISSING")
	msg := c.rejected("commit")
	if msg != "error: configuration check-out failed" {
		t.Fatalf("commit with a dangling reference: %q", msg)
	}
	out, _ = c.c.Send(t.Context(), "commit check")
	if !strings.Contains(out, "Referenced scheduler map MISSING is not defined") {
		t.Fatalf("commit check does not name the reference:\n%s", out)
	}
	if out := c.ok("delete class-of-service interfaces et-0/0/0 scheduler-map"); strings.Contains(out, "warning") {
		t.Fatalf("delete of a configured leaf warned: %q", out)
	}
	if out := c.ok("delete class-of-service interfaces et-0/0/9"); !strings.Contains(out, "warning: statement not found") {
		t.Fatalf("delete of nothing: %q", out)
	}
	c.ok("set class-of-service interfaces et-0/0/0 scheduler-map MISSING")
	c.ok("rollback 0")
	if out := c.ok("show | compare"); strings.Contains(out, "MISSING") {
		t.Fatalf("rollback 0 kept the change:\n%s", out)
	}
	c.ok("exit")
}

func TestJunosLoadSetTerminal(t *testing.T) {
	sw := simtest.Start(t, sim.Options{Platform: "junos"})
	sh := openRaw(t, sw)
	sh.expect("admin@leaf01> ")
	sh.send("configure private\r")
	sh.expect("admin@leaf01# ")
	// What an interactive user types: the statements, then ^D on a new line.
	sh.send("load set terminal\r")
	sh.expect("[Type ^D at a new line to end input]")
	sh.send("set interfaces et-0/0/2 mtu 9000\r\x04")
	sh.expect("load complete")
	sh.expect("admin@leaf01# ")
	sh.send("show | compare\r")
	if out := sh.expect("admin@leaf01# "); !strings.Contains(out, "[edit interfaces et-0/0/2]\n+   mtu 9000;") {
		t.Fatalf("loaded statement missing from the candidate:\n%s", out)
	}
}

// The simulated switch is a qfx5240 (Junos OS Evolved), whose schema types
// drop-profile fill levels as decimal64 (junos-conf-class-of-service.yang,
// 24.4R1): the decimal ramps an EVO render writes are taken, whole ones
// too, and a level above 100 is not.
func TestJunosDecimalFillLevels(t *testing.T) {
	_, c := dial(t, sim.Options{Platform: "junos"})
	c.ok("configure private")
	c.ok("set class-of-service drop-profiles dp interpolate fill-level [ 0.11 1.14 ]")
	c.ok("set class-of-service drop-profiles dp2 interpolate fill-level [ 1 2 ]")
	if msg := c.rejected("set class-of-service drop-profiles dp3 interpolate fill-level 100.5"); msg != "syntax error." {
		t.Fatalf("fill level 100.5: %q", msg)
	}
	c.ok("rollback 0")
	c.ok("exit")
}
