package sim_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/switchcfg"
	"github.com/fabricctl/fabricctl/switchcfg/all"
	"github.com/fabricctl/fabricctl/switchcfg/sim"
)

// counterPlatforms are the simulators that serve port counters, with an
// uplink and an access port as the fabric file names them.
var counterPlatforms = []struct{ platform, uplink, access string }{
	{"arista-eos", "Ethernet49/1", "Ethernet1/1"},
	{"cumulus-nvue", "swp49", "swp1"},
	{"cisco-nxos", "Ethernet1/49", "Ethernet1/1"},
	{"junos", "et-0/0/49", "et-0/0/1:3"},
	{"sonic", "Ethernet48", "Ethernet0"},
}

// TestCountersServed: each simulator serves its ports' error counters in
// its NOS's shape over a real SSH session, and the platform's driver
// (switchcfg.CounterReader) reads back what a test injected, on the port
// it was injected on and by kind; Clear zeroes them; a source that fails
// is an error, not a switch without errors.
func TestCountersServed(t *testing.T) {
	for _, tc := range counterPlatforms {
		t.Run(tc.platform, func(t *testing.T) {
			d, err := all.Registry().Driver(tc.platform)
			if err != nil {
				t.Fatal(err)
			}
			cr, ok := d.(switchcfg.CounterReader)
			if !ok {
				t.Fatalf("%s's driver reads no port counters", tc.platform)
			}
			pc := sim.NewPortCounters(tc.uplink, tc.access)
			var fail error
			_, c := dial(t, sim.Options{Platform: tc.platform, Counters: func() ([]sim.PortErrors, error) {
				ps, _ := pc.Read()
				return ps, fail
			}})
			read := func() map[string]uint64 {
				t.Helper()
				rb := switchcfg.Readback{}
				for _, cmd := range cr.CounterCommands() {
					rb[cmd] = []byte(c.ok(cmd))
				}
				cs, err := cr.ParseCounters(rb)
				if err != nil {
					t.Fatal(err)
				}
				sums := map[string]uint64{}
				for _, x := range cs {
					sums[x.Port] += 0
					sums[fmt.Sprintf("%s %s", x.Port, x.Kind)] += x.Value
				}
				return sums
			}
			got := read()
			for _, k := range []string{tc.uplink, tc.access, tc.access + " phy-errors", tc.access + " discards"} {
				if v, ok := got[k]; !ok || v != 0 {
					t.Errorf("fresh switch: %s = %d (read %v), want 0", k, v, ok)
				}
			}
			pc.Inject(sim.PortErrors{Port: tc.access, FCS: 1841, Symbol: 3})
			pc.Inject(sim.PortErrors{Port: tc.uplink, Discards: 12})
			got = read()
			if got[tc.access+" phy-errors"] < 1841 || got[tc.access+" discards"] != 0 || got[tc.uplink+" discards"] != 12 || got[tc.uplink+" phy-errors"] != 0 {
				t.Errorf("after injecting: %v", got)
			}
			pc.Clear()
			if got := read(); got[tc.access+" phy-errors"] != 0 {
				t.Errorf("after clearing: %v", got)
			}
			fail = errors.New("the counter agent is down")
			cmd := cr.CounterCommands()[0]
			out, err := c.c.Send(t.Context(), cmd)
			if err == nil {
				_, err = cr.ParseCounters(switchcfg.Readback{cmd: []byte(out)})
			}
			if err == nil || !strings.Contains(err.Error()+out, "the counter agent is down") {
				t.Errorf("failing source: %v, %q; want an error saying the agent is down", err, out)
			}
		})
	}
}
