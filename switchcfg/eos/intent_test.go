package eos

import (
	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/switchcfg/drivertest"
)

// recipe is the common NVIDIA RoCE recipe (drivertest.LabIntent: DSCP 26 on
// priority 3, lossless with ECN 150 KB / 1500 KB, CNPs (DSCP 48) on priority
// 6 strict, the rest of the DSCPs on priority 0, MTU 9214) on modular ports.
func recipe() fabric.SwitchIntent {
	in := drivertest.LabIntent(New().Info())
	in.Name, in.Address = "leaf-01", "10.0.1.1"
	in.Ports = []string{"Ethernet1/1", "Ethernet1/2", "Ethernet2/1"}
	return in
}

// lossyECN is the recipe without PFC: RoCE relies on ECN alone (thresholds
// that are not whole kbytes on purpose), no watchdog.
func lossyECN() fabric.SwitchIntent {
	in := recipe()
	in.Ports = []string{"Ethernet7", "Ethernet10"}
	in.PFC = fabric.SwitchPFC{Priorities: []int{}}
	in.Classes[1].Lossless = false
	in.Classes[1].ECN = &fabric.SwitchECN{MinBytes: 20500, MaxBytes: 600400, MaxMarkProbability: 20}
	return in
}

// pcpTrust classifies on 802.1p with the RoCE priority sent to another
// traffic class and tx-queue than its number.
func pcpTrust() fabric.SwitchIntent {
	in := recipe()
	in.Trust = "pcp"
	for i := range in.Classes {
		in.Classes[i].DSCP = nil
	}
	in.Classes[1].TrafficClass, in.Classes[1].Queue = 4, 5
	in.PFC.Watchdog = &fabric.SwitchPFCWatchdog{Enabled: false, PollIntervalMs: 50, DetectionTimeMs: 150, RestorationTimeMs: 1500, Action: "forward"}
	return in
}

// sand is the recipe on a Jericho switch (7280R3): tx-queue, not uc-tx-queue.
func sand() fabric.SwitchIntent {
	in := recipe()
	in.Model = "7280R3"
	return in
}

// watchdogAlert notifies only: the per-port notify-only action.
func watchdogAlert() fabric.SwitchIntent {
	in := recipe()
	in.Ports = []string{"Ethernet1"}
	in.PFC.Watchdog.Action = "alert"
	return in
}

// noWatchdog: the profile says nothing about the watchdog, so the
// rendering says nothing either (the switch's own stays).
func noWatchdog() fabric.SwitchIntent {
	in := recipe()
	in.Ports = []string{"Ethernet1"}
	in.PFC.Watchdog = nil
	return in
}

// carried blanks what EOS does not carry, so that it equals Parse(Render(in));
// the model reads back as its family (the queue commands show it).
func carried(in fabric.SwitchIntent) fabric.SwitchIntent {
	m, _ := info.Model(in.Model)
	out := fabric.SwitchIntent{
		APIVersion: in.APIVersion, Platform: Platform, Model: m.Name, Ports: in.Ports, MTU: in.MTU, Trust: in.Trust,
		PFC: fabric.SwitchPFC{Priorities: in.PFC.Priorities, Watchdog: in.PFC.Watchdog},
	}
	for _, c := range in.Classes {
		c.Name = ""
		if c.DSCP == nil {
			c.DSCP = []int{}
		}
		out.Classes = append(out.Classes, c)
	}
	if out.PFC.Priorities == nil {
		out.PFC.Priorities = []int{}
	}
	// A disabled watchdog writes only `no priority-flow-control pause
	// watchdog` on the ports, which a running-config does not print: it
	// reads back as none (Compare holds the two equal).
	if w := out.PFC.Watchdog; w != nil && !w.Enabled {
		out.PFC.Watchdog = nil
	}
	return out
}
