package check

import (
	"github.com/fabricctl/fabricctl/action/fleet"
	"slices"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/checks/localize"
	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/switchcfg"
	"github.com/fabricctl/fabricctl/switchcfg/all"
	"github.com/fabricctl/fabricctl/switchcfg/sim"
)

// driverOnly is a driver with only switchcfg.Driver's methods.
type driverOnly struct{ switchcfg.Driver }

// TestSwitchCounterSource: the switches' port error counters are read over
// real SSH sessions (host keys checked) through each driver's
// CounterReader, every port of the switch with the switch's name; what a
// test injected on a port is read there, by kind. A switch that cannot
// be reached, one whose driver reads no counters and one that reports no
// port are unread with why; the others are still read.
func TestSwitchCounterSource(t *testing.T) {
	eos := sim.NewPortCounters("Ethernet49/1", "Ethernet1/1")
	eos.Inject(sim.PortErrors{Port: "Ethernet1/1", FCS: 1841, Discards: 2})
	cl := sim.NewPortCounters("swp1", "swp49")
	cl.Inject(sim.PortErrors{Port: "swp49", FCS: 5})
	f := simFabric(t, []simSwitch{
		{name: "leaf-06", port: "Ethernet1/1", user: "admin", opt: sim.Options{Platform: "cisco-nxos"}}, // no counters served
		{name: "leaf-01", port: "swp1", user: "cumulus", opt: sim.Options{Platform: "cumulus-nvue", Counters: cl.Read}},
		{name: "leaf-04", port: "Ethernet1/1", user: "admin", opt: sim.Options{Platform: "arista-eos", Counters: eos.Read}},
		{name: "leaf-02", port: "Ethernet48", user: "admin", opt: sim.Options{Platform: "sonic"}},
	})
	reg := switchcfg.NewRegistry() // SONiC's driver as one without a counter reader
	for _, name := range all.Registry().Names() {
		d, _ := all.Registry().Driver(name)
		if name == "sonic" {
			d = driverOnly{d}
		}
		reg.Add(d)
	}
	got := NewSwitchCounterSource(f, fleet.Options{Registry: reg})(t.Context())
	if !slices.Equal(got.Read, []string{"leaf-01", "leaf-04"}) {
		t.Errorf("read %v, want leaf-01 and leaf-04", got.Read)
	}
	if len(got.Unread) != 3 || !strings.HasPrefix(got.Unread[0], "leaf-02: ") || !strings.Contains(got.Unread[0], "reads no port counters") ||
		!strings.HasPrefix(got.Unread[1], "leaf-03: reading port counters: ") || got.Unread[2] != "leaf-06: reading port counters: no port reported counters" {
		t.Errorf("unread %q, want leaf-02 (no counter reader), leaf-03 (unreachable) and leaf-06 (no port)", got.Unread)
	}
	at := fabric.Endpoint{Device: "leaf-04", Port: "Ethernet1/1"}
	want := map[localize.Reading]bool{
		{At: at, Kind: localize.PhyErrors, Name: "fcsErrors", Value: 1841}:                                                    true,
		{At: at, Kind: localize.Discards, Name: "inDiscards", Value: 2}:                                                       true,
		{At: fabric.Endpoint{Device: "leaf-04", Port: "Ethernet49/1"}, Kind: localize.PhyErrors, Name: "fcsErrors", Value: 0}: true,
		{At: fabric.Endpoint{Device: "leaf-01", Port: "swp49"}, Kind: localize.PhyErrors, Name: "crc_errors", Value: 5}:       true,
	}
	for _, r := range got.Readings {
		delete(want, r)
	}
	if len(want) > 0 {
		t.Errorf("readings %+v lack %+v", got.Readings, want)
	}
}
