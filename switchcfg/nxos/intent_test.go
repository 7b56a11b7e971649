package nxos

import (
	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/switchcfg/drivertest"
)

// recipe is the common NVIDIA RoCE recipe on a Nexus (drivertest.LabIntent:
// DSCP 26 on priority 3, lossless with ECN 150 KB / 1500 KB, CNPs (DSCP 48)
// on priority 6 strict, the rest of the DSCPs on priority 0), with a
// breakout port.
func recipe() fabric.SwitchIntent {
	in := drivertest.LabIntent(New().Info())
	in.Name, in.Address = "leaf-21", "10.0.1.21"
	in.Ports = []string{"Ethernet1/1", "Ethernet1/2", "Ethernet1/49/1"}
	return in
}

// lossyECN drops PFC: RoCE relies on ECN alone, with thresholds that are not
// whole kbytes.
func lossyECN() fabric.SwitchIntent {
	in := recipe()
	in.PFC = fabric.SwitchPFC{Priorities: []int{}}
	in.Classes[1].Lossless = false
	in.Classes[1].ECN = &fabric.SwitchECN{MinBytes: 20500, MaxBytes: 600400, MaxMarkProbability: 20}
	return in
}

// pcpTrust classifies on CoS, the Azure Local way, with PFC on priority 3
// served by qos-group 4 and no MTU.
func pcpTrust() fabric.SwitchIntent {
	in := recipe()
	in.Trust, in.MTU = "pcp", 0
	for i := range in.Classes {
		in.Classes[i].DSCP = nil
	}
	in.Classes[1].TrafficClass, in.Classes[1].Queue = 4, 4
	in.PFC.Watchdog = &fabric.SwitchPFCWatchdog{Enabled: false, PollIntervalMs: 200}
	return in
}

// longCable has 300 m of cable: above 100 m Cisco requires pause buffer
// thresholds, which Render computes and Parse reads back as the length.
func longCable() fabric.SwitchIntent {
	in := recipe()
	in.PFC.CableLengthMeters = 300
	return in
}

// noWatchdog says nothing about the watchdog: nothing is rendered for it.
func noWatchdog() fabric.SwitchIntent {
	in := recipe()
	in.PFC.Watchdog = nil
	return in
}

// carried is in as Parse(Render(in)) reads it back: without what NX-OS does
// not carry (a cable length of 100 m or less), and the watchdog's action
// "drop".
func carried(in fabric.SwitchIntent) fabric.SwitchIntent {
	out := fabric.SwitchIntent{
		APIVersion: in.APIVersion, Platform: Platform, Ports: in.Ports, MTU: in.MTU, Trust: in.Trust,
		PFC: fabric.SwitchPFC{Priorities: in.PFC.Priorities},
	}
	if in.PFC.CableLengthMeters > longCableMeters && len(in.PFC.Priorities) > 0 {
		out.PFC.CableLengthMeters = in.PFC.CableLengthMeters
	}
	if wd := in.PFC.Watchdog; wd != nil {
		w := *wd
		w.Action = "drop"
		out.PFC.Watchdog = &w
	}
	for _, c := range in.Classes {
		if c.DSCP == nil {
			c.DSCP = []int{}
		}
		out.Classes = append(out.Classes, c)
	}
	if out.PFC.Priorities == nil {
		out.PFC.Priorities = []int{}
	}
	return out
}
