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
