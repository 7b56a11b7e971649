package eos

import (
	"testing"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/switchcfg"
	"github.com/fabricctl/fabricctl/switchcfg/drivertest"
)

var intents = map[string]func() fabric.SwitchIntent{
	"recipe":         recipe,
	"lossy_ecn":      lossyECN,
	"pcp_trust":      pcpTrust,
	"sand":           sand,
	"watchdog_alert": watchdogAlert,
	"no_watchdog":    noWatchdog,
}

// TestConformance runs the driver kit (switchcfg/drivertest): Info, ports,
// golden renderings, render → parse round trips (less what EOS does
// not carry), refused intents, Observe and foreign configurations.
func TestConformance(t *testing.T) {
	tests := []drivertest.Reject{
		{"three no-drop priorities", func(in *fabric.SwitchIntent) {
			in.PFC.Priorities = []int{0, 3, 6}
			in.Classes[0].Lossless, in.Classes[2].Lossless = true, true
		}, true, "at most 2"},
		// An explicit switchMtu 9216 (an unset one resolves to 9214): the error says the fix.
		{"mtu 9216", func(in *fabric.SwitchIntent) { in.MTU = 9216 }, true, "MTU 9216 outside arista-eos model strata's 68..9214: set switchMtu: max in the profile's spec.ethernet"},
		{"unknown model", func(in *fabric.SwitchIntent) { in.Model = "7150S" }, true, `unknown arista-eos model "7150S"`},
		// Globally EOS acts drop or no-drop; notify-only exists per port only.
		{"watchdog action", func(in *fabric.SwitchIntent) { in.PFC.Watchdog.Action = "errdisable" }, true, `action "errdisable"`},
		{"strict below round-robin", func(in *fabric.SwitchIntent) { in.Classes[2].Queue = 1 }, true, "must sit above"},
		{"shared traffic class", func(in *fabric.SwitchIntent) { in.Classes[2].TrafficClass = 3 }, true, "share traffic class"},
		{"watchdog too fast", func(in *fabric.SwitchIntent) { in.PFC.Watchdog.DetectionTimeMs = 5 }, true, "detection time"},
		{"unknown action", func(in *fabric.SwitchIntent) { in.PFC.Watchdog.Action = "reboot" }, true, "action"},
		{"shared tx-queue, different scheduling", func(in *fabric.SwitchIntent) { in.Classes[0].Queue = 3; in.Classes[0].BandwidthPercent = 40 }, false, "shares queue 3"},
		{"bad port", func(in *fabric.SwitchIntent) { in.Ports = append(in.Ports, "swp1") }, false, `"swp1"`},
		{"bad trust", func(in *fabric.SwitchIntent) { in.Trust = "ip" }, true, "trust"},
		{"dscp out of range", func(in *fabric.SwitchIntent) { in.Classes[1].DSCP = []int{64} }, false, "DSCP 64"},
		{"thresholds reversed", func(in *fabric.SwitchIntent) { in.Classes[1].ECN.MinBytes = 2000000 }, false, "min <= max"},
		{"lossless flag without PFC", func(in *fabric.SwitchIntent) { in.Classes[2].Lossless = true }, false, "disagree"},
	}
	drivertest.Run(t, New(), drivertest.Spec{Register: Register, Goldens: drivertest.Goldens("render_%s.golden", intents),
		Readback: func(_ testing.TB, cfg switchcfg.Config) switchcfg.Readback { return asRunning(cfg.Text) },
		Carried:  carried, Base: recipe, Rejects: tests,
		GoodPorts: []string{"Ethernet1", "Ethernet1/1", "Ethernet3/1/4", "Ethernet49/1"},
		BadPorts:  []string{"", "Ethernet0", "ethernet1", "Et1", "Ethernet1/1/1/1", "Ethernet1/", "swp1", "Port-Channel1"},
	})
}

// FuzzRenderParseRender: render → parse → render is stable (drivertest.FuzzRoundTrip).
func FuzzRenderParseRender(f *testing.F) {
	drivertest.FuzzRoundTrip(f, New(), func(_ testing.TB, cfg switchcfg.Config) switchcfg.Readback { return asRunning(cfg.Text) })
}
