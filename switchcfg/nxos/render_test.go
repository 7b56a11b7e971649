package nxos

import (
	"testing"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/switchcfg"
	"github.com/fabricctl/fabricctl/switchcfg/drivertest"
)

var intents = map[string]func() fabric.SwitchIntent{
	"recipe":      recipe,
	"lossy_ecn":   lossyECN,
	"pcp_trust":   pcpTrust,
	"long_cable":  longCable,
	"no_watchdog": noWatchdog,
}

// TestConformance runs the driver kit (switchcfg/drivertest): Info, ports,
// golden renderings, render → parse round trips (less what NX-OS does
// not carry), refused intents, Observe and foreign configurations.
func TestConformance(t *testing.T) {
	tests := []drivertest.Reject{
		{"four no-drop classes", func(in *fabric.SwitchIntent) {
			in.PFC.Priorities = []int{0, 3, 6, 7}
			in.Classes[0].Lossless, in.Classes[2].Lossless = true, true
			in.Classes = append(in.Classes, fabric.SwitchClass{Name: "seven", Priority: 7, TrafficClass: 7, Queue: 7, Lossless: true})
		}, true, "at most 3"},
		{"queue differs from qos-group", func(in *fabric.SwitchIntent) { in.Classes[1].Queue = 4 }, true, "c-out-8q-qN"},
		{"lossy priority not carried", func(in *fabric.SwitchIntent) { in.Classes[2].TrafficClass, in.Classes[2].Queue = 5, 5 }, true, "pfc-cos"},
		{"two strict classes", func(in *fabric.SwitchIntent) { in.Classes[0].Strict = true; in.Classes[0].BandwidthPercent = 0 }, true, "at most 1"},
		{"strict with bandwidth", func(in *fabric.SwitchIntent) { in.Classes[2].BandwidthPercent = 5 }, true, "no bandwidth share"},
		{"PFC priority without class", func(in *fabric.SwitchIntent) { in.PFC.Priorities = []int{3, 4} }, false, "disagree"},
		{"watchdog action", func(in *fabric.SwitchIntent) { in.PFC.Watchdog.Action = "forward" }, true, "drops"},
		{"watchdog detection not a multiple", func(in *fabric.SwitchIntent) { in.PFC.Watchdog.DetectionTimeMs = 250 }, true, "times the 100 ms"},
		{"watchdog interval too short", func(in *fabric.SwitchIntent) { in.PFC.Watchdog.PollIntervalMs = 50 }, true, "interval 50 ms"},
		{"mtu too large", func(in *fabric.SwitchIntent) { in.MTU = 9300 }, true, "MTU 9300"},
		{"class name", func(in *fabric.SwitchIntent) { in.Classes[1].Name = "ro ce" }, true, `"ro ce"`},
		{"shared priority", func(in *fabric.SwitchIntent) {
			in.PFC.Priorities, in.Classes[1].Priority = []int{4}, 4
			in.Classes = append(in.Classes, fabric.SwitchClass{Name: "x", Priority: 4, TrafficClass: 4, Queue: 4})
		}, false, "priority 4 already used"},
		{"bad port", func(in *fabric.SwitchIntent) { in.Ports = append(in.Ports, "Ethernet1") }, false, `"Ethernet1"`},
		{"bad trust", func(in *fabric.SwitchIntent) { in.Trust = "" }, true, "trust"},
		{"dscp twice", func(in *fabric.SwitchIntent) { in.Classes[2].DSCP = []int{26} }, false, "DSCP 26"},
	}
	drivertest.Run(t, New(), drivertest.Spec{Register: Register, Goldens: drivertest.Goldens("render_%s.golden", intents),
		Readback: func(_ testing.TB, cfg switchcfg.Config) switchcfg.Readback { return asRunning(cfg.Text) },
		Carried:  carried, Base: recipe, Rejects: tests,
		GoodPorts: []string{"Ethernet1/1", "Ethernet1/49/4", "Ethernet2/10"},
		BadPorts:  []string{"", "Ethernet1", "Eth1/1", "ethernet1/1", "Ethernet1/0", "Ethernet1/1/1/1", "mgmt0", "port-channel1"},
	})
}

func TestDSCPSpec(t *testing.T) {
	for want, in := range map[string][]int{"26": {26}, "0-25,27-47,49-63": nil, "1,3-5,7": {7, 5, 4, 3, 1}} {
		if in == nil {
			for d := 0; d < 64; d++ {
				if d != 26 && d != 48 {
					in = append(in, d)
				}
			}
		}
		if got := dscpSpec(in); got != want {
			t.Errorf("dscpSpec(%v) = %q, want %q", in, got, want)
		}
	}
}

// FuzzRenderParseRender: render → parse → render is stable (drivertest.FuzzRoundTrip).
func FuzzRenderParseRender(f *testing.F) {
	drivertest.FuzzRoundTrip(f, New(), func(_ testing.TB, cfg switchcfg.Config) switchcfg.Readback { return asRunning(cfg.Text) })
}
