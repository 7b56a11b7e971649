package sim_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/fabricctl/fabricctl/switchcfg/session"
	"github.com/fabricctl/fabricctl/switchcfg/sim"
)

func TestFaultDropAfterNCommands(t *testing.T) {
	sw, c := dial(t, sim.Options{Platform: "arista-eos"})
	before := sw.Running()
	sw.SetFaults(sim.Faults{DropAfter: 2})
	c.ok("configure terminal")
	c.ok("interface Ethernet1")
	_, err := c.c.Send(context.Background(), "mtu 9000")
	if !errors.Is(err, session.ErrConnectionLost) {
		t.Fatalf("third command: want ErrConnectionLost, got %v", err)
	}
	if _, err := c.c.Send(context.Background(), "show version"); !errors.Is(err, session.ErrClosed) {
		t.Fatalf("after the drop: want ErrClosed, got %v", err)
	}
	if sw.Running() != before {
		t.Fatal("the dropped command was executed")
	}
	// The fault fires once: a new session works.
	c2 := cli{t, sw.Dial(t)}
	c2.ok("show version")
}

func TestFaultDropOnCommand(t *testing.T) {
	sw, c := dial(t, sim.Options{Platform: "junos"})
	sw.SetFaults(sim.Faults{DropOn: "commit"})
	c.ok("configure private")
	c.ok("set interfaces et-0/0/3 mtu 9000")
	if _, err := c.c.Send(context.Background(), "commit"); !errors.Is(err, session.ErrConnectionLost) {
		t.Fatalf("want ErrConnectionLost, got %v", err)
	}
	if strings.Contains(sw.Running(), "9000") || sw.Stats().Commits != 0 {
		t.Fatal("the commit the connection dropped on was executed")
	}
	if got := sw.Commands(); got[len(got)-1] != "commit" {
		t.Fatalf("the simulator did not log the dropped command: %q", got)
	}
}

func TestFaultRejectLine(t *testing.T) {
	for platform, line := range map[string]string{
		"arista-eos":   "mtu 9214",
		"cisco-nxos":   "mtu 9216",
		"junos":        "set interfaces et-0/0/0 mtu 9216",
		"cumulus-nvue": "nv set interface swp1 link mtu 9216",
		"sonic":        "sudo config save -y",
	} {
		t.Run(platform, func(t *testing.T) {
			sw, c := dial(t, sim.Options{Platform: platform})
			sw.SetFaults(sim.Faults{Reject: line})
			_, err := c.c.SendConfig(context.Background(), []string{line})
			var ce *session.CommandError
			if !errors.As(err, &ce) || ce.Command != line {
				t.Fatalf("want a CommandError for %q, got %v", line, err)
			}
			t.Logf("%s rejects with %q", platform, ce.Message)
		})
	}
}

func TestFaultStallIsATimeout(t *testing.T) {
	sw := startSim(t, sim.Options{Platform: "cisco-nxos"})
	opt := sw.Options()
	opt.CommandTimeout = 300 * time.Millisecond
	c := sw.DialWith(t, opt)
	sw.SetFaults(sim.Faults{StallOn: "show running-config"})
	start := time.Now()
	_, err := c.Send(context.Background(), "show running-config")
	if !errors.Is(err, session.ErrTimeout) {
		t.Fatalf("want ErrTimeout, got %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("the timeout took %s", d)
	}
	if _, err := c.Send(context.Background(), "show version"); !errors.Is(err, session.ErrClosed) {
		t.Fatalf("a session that timed out must be closed, got %v", err)
	}
}

func TestFaultDelay(t *testing.T) {
	sw, c := dial(t, sim.Options{Platform: "sonic"})
	sw.SetFaults(sim.Faults{Delay: 250 * time.Millisecond})
	start := time.Now()
	c.ok("show version")
	if d := time.Since(start); d < 250*time.Millisecond {
		t.Fatalf("reply came after %s, want >= 250ms", d)
	}
}

// TestFaultLoseReply: the command runs, then the connection drops before
// its reply: the client sees a lost connection, the device has changed.
func TestFaultLoseReply(t *testing.T) {
	sw, c := dial(t, sim.Options{Platform: "junos"})
	sw.SetFaults(sim.Faults{LoseReplyOn: "commit"})
	c.ok("configure private")
	c.ok("set interfaces et-0/0/3 mtu 9000")
	if _, err := c.c.Send(context.Background(), "commit"); !errors.Is(err, session.ErrConnectionLost) {
		t.Fatalf("want ErrConnectionLost, got %v", err)
	}
	if sw.Stats().Commits != 1 {
		t.Fatalf("the commit whose reply was lost did not run: stats %+v", sw.Stats())
	}
	// The fault fires once.
	c2 := cli{t, sw.Dial(t)}
	c2.ok("show system commit")
}

// TestConfirmedCommitControls: every simulated NOS with a confirmed commit
// answers the status query, the explicit early rollback and the confirm the
// drivers use to find out, after a lost reply, what the switch did.
func TestConfirmedCommitControls(t *testing.T) {
	t.Run("cumulus-nvue", func(t *testing.T) {
		sw, c := dial(t, sim.Options{Platform: "cumulus-nvue"})
		before := sw.Running()
		if out := c.ok("nv config apply --confirm-status"); !strings.Contains(out, "No apply is waiting") {
			t.Fatalf("status with nothing pending: %q", out)
		}
		c.ok("nv set interface swp1 link mtu 9000")
		if out := c.rejected("nv config apply --confirm-yes"); !strings.Contains(out, "no apply is waiting") {
			t.Fatalf("--confirm-yes must not apply a pending revision: %q", out)
		}
		c.ok("nv config apply -y --confirm 60s")
		if out := c.ok("nv config apply --confirm-status"); !strings.Contains(out, "seconds left") {
			t.Fatalf("status while pending: %q", out)
		}
		c.ok("nv config apply --confirm-no")
		if sw.Running() != before || sw.ConfirmPending() || sw.Stats().Rollbacks != 1 {
			t.Fatalf("--confirm-no did not roll back now: pending %v stats %+v", sw.ConfirmPending(), sw.Stats())
		}
		c.ok("nv set interface swp1 link mtu 9000")
		c.ok("nv config apply -y --confirm 60s")
		c.ok("nv config apply --confirm-yes")
		if sw.ConfirmPending() || !strings.Contains(sw.Running(), "9000") || sw.Stats().Confirms != 1 {
			t.Fatalf("--confirm-yes did not confirm: %+v", sw.Stats())
		}
	})
	t.Run("arista-eos", func(t *testing.T) {
		sw, c := dial(t, sim.Options{Platform: "arista-eos"})
		before := sw.Running()
		c.ok("configure session s1")
		c.ok("interface Ethernet1")
		c.ok("mtu 9000")
		c.ok("commit timer 00:02:00")
		if out := c.ok("show configuration sessions"); !strings.Contains(out, "pendingCommitTimer") {
			t.Fatalf("sessions: %q", out)
		}
		c.ok("configure session s1 abort")
		if sw.Running() != before || sw.ConfirmPending() || sw.Stats().Rollbacks != 1 {
			t.Fatalf("abort of a pending commit timer did not roll back: %+v", sw.Stats())
		}
	})
	t.Run("junos", func(t *testing.T) {
		sw, c := dial(t, sim.Options{Platform: "junos"})
		c.ok("configure private")
		c.ok("set interfaces et-0/0/3 mtu 9000")
		c.ok("commit confirmed 2")
		c.ok("exit")
		if out := c.ok("show system commit"); !strings.Contains(strings.Split(out, "\n")[0], "commit confirmed, rollback in 2mins") {
			t.Fatalf("show system commit while pending: %q", out)
		}
		c.ok("configure private")
		c.ok("commit")
		c.ok("exit")
		if out := c.ok("show system commit"); strings.Contains(strings.Split(out, "\n")[0], "rollback in") || sw.ConfirmPending() {
			t.Fatalf("show system commit after the confirm: %q", out)
		}
	})
}
