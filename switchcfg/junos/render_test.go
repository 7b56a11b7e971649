package junos

import (
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/switchcfg"
	"github.com/fabricctl/fabricctl/switchcfg/drivertest"
)

var intents = map[string]func() fabric.SwitchIntent{
	"recipe":       recipe,
	"jvd_queues":   jvdQueues,
	"jvd_ai_leaf":  jvdAILeaf,
	"queue_buffer": queueBuffer2MB,
	"no_watchdog":  noWatchdog,
	"lossy_ecn":    lossyECN,
	"pcp_trust":    pcpTrust,
}

// setReadback splits rendered set statements into the two read-backs, the
// way `show configuration ... | display set` prints them.
func setReadback(text string) switchcfg.Readback {
	var cos, ifs []string
	for _, l := range strings.Split(text, "\n") {
		switch {
		case strings.HasPrefix(l, "set class-of-service "):
			cos = append(cos, l)
		case strings.HasPrefix(l, "set interfaces "):
			ifs = append(ifs, l)
		}
	}
	return switchcfg.Readback{
		ReadbackClassOfService: []byte(strings.Join(cos, "\n")),
		ReadbackInterfaces:     []byte(strings.Join(ifs, "\n")),
	}
}

// TestConformance runs the driver kit (switchcfg/drivertest): Info, ports,
// golden renderings, render → parse round trips (less what Junos does
// not carry), refused intents, Observe and foreign configurations.
func TestConformance(t *testing.T) {
	tests := []drivertest.Reject{
		{"seven no-loss classes", func(in *fabric.SwitchIntent) {
			in.Classes = nil
			in.PFC.Priorities = []int{0, 1, 2, 3, 4, 5, 6}
			for p := 0; p < 7; p++ {
				in.Classes = append(in.Classes, fabric.SwitchClass{Priority: p, TrafficClass: p, Queue: p, DSCP: []int{p}, Lossless: true})
			}
		}, true, "at most 6"},
		{"traffic class not carried", func(in *fabric.SwitchIntent) { in.Classes[1].TrafficClass = 4 }, true, "no separate traffic class"},
		{"lossy priority not carried", func(in *fabric.SwitchIntent) { in.Classes[2].Priority = 5 }, true, "reads back as priority 6"},
		{"unknown model", func(in *fabric.SwitchIntent) { in.Model = "ex4300" }, true, `unknown junos model "ex4300"`},
		{"lossless without dscp", func(in *fabric.SwitchIntent) { in.Classes[1].DSCP = nil }, true, "DSCP-based PFC"},
		{"threshold above buffer", func(in *fabric.SwitchIntent) { in.QueueBufferBytes = 1_000_000 }, true, "queue buffer"},
		{"watchdog alert", func(in *fabric.SwitchIntent) { in.PFC.Watchdog.Action = "alert" }, true, "drop and forward"},
		{"watchdog detection", func(in *fabric.SwitchIntent) { in.PFC.Watchdog.DetectionTimeMs = 150 }, true, "poll intervals"},
		{"PFC priority without class", func(in *fabric.SwitchIntent) { in.PFC.Priorities = []int{3, 5} }, false, "disagree"},
		{"lossless flag without PFC", func(in *fabric.SwitchIntent) { in.Classes[2].Lossless = true }, false, "disagree"},
		{"class name", func(in *fabric.SwitchIntent) { in.Classes[1].Name = "9roce" }, true, `"9roce"`},
		{"mtu", func(in *fabric.SwitchIntent) { in.MTU = 10000 }, true, "MTU 10000"},
		{"bad port", func(in *fabric.SwitchIntent) { in.Ports = append(in.Ports, "Ethernet1") }, false, `"Ethernet1"`},
		{"bad trust", func(in *fabric.SwitchIntent) { in.Trust = "exp" }, true, "trust"},
		{"dscp out of range", func(in *fabric.SwitchIntent) { in.Classes[2].DSCP = []int{-1} }, false, "DSCP -1"},
	}
	drivertest.Run(t, New(), drivertest.Spec{Register: Register, Goldens: drivertest.Goldens("render_%s.golden", intents),
		Readback: func(_ testing.TB, cfg switchcfg.Config) switchcfg.Readback { return setReadback(cfg.Text) },
		Carried:  carried, Base: recipe, Rejects: tests,
		GoodPorts: []string{"et-0/0/0", "xe-0/0/47", "ge-1/2/3", "et-0/0/12:1"},
		BadPorts:  []string{"", "et-0/0", "et-*", "ae0", "et-0/0/0.0", "Ethernet1", "et-0/0/1:", "mge-0/0/0"},
	})
}

// FuzzRenderParseRender: render → parse → render is stable (drivertest.FuzzRoundTrip).
func FuzzRenderParseRender(f *testing.F) {
	drivertest.FuzzRoundTrip(f, New(), func(_ testing.TB, cfg switchcfg.Config) switchcfg.Readback { return setReadback(cfg.Text) })
}
