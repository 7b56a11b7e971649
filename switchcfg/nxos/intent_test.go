package nxos

import (
	"github.com/fabricctl/fabricctl/fabric"
)

// recipe is the common NVIDIA RoCE recipe on a Nexus: DSCP 26 on priority
// 3, lossless with ECN 150 KB / 1500 KB, CNPs (DSCP 48) on priority 6
// strict, the rest of the DSCPs on priority 0.
func recipe() fabric.SwitchIntent {
	var rest []int
	for d := 0; d < 64; d++ {
		if d != 26 && d != 48 {
			rest = append(rest, d)
		}
	}
	return fabric.SwitchIntent{
		APIVersion: fabric.APIVersion, Name: "leaf-21", Platform: Platform, Address: "10.0.1.21", Profile: "roce-lossless",
		Ports: []string{"Ethernet1/1", "Ethernet1/2", "Ethernet1/49/1"},
		MTU:   9216, Trust: "dscp",
		Classes: []fabric.SwitchClass{
			{Name: "default", Priority: 0, TrafficClass: 0, Queue: 0, DSCP: rest, BandwidthPercent: 50},
			{Name: "roce", Priority: 3, TrafficClass: 3, Queue: 3, DSCP: []int{26}, Lossless: true, BandwidthPercent: 50,
				ECN: &fabric.SwitchECN{MinBytes: 150000, MaxBytes: 1500000, MaxMarkProbability: 100}},
			{Name: "cnp", Priority: 6, TrafficClass: 6, Queue: 6, DSCP: []int{48}, Strict: true},
		},
		PFC: fabric.SwitchPFC{Priorities: []int{3}, CableLengthMeters: 5,
			Watchdog: &fabric.SwitchPFCWatchdog{Enabled: true, PollIntervalMs: 100, DetectionTimeMs: 200, RestorationTimeMs: 400, Action: "drop"}},
		RoCEClass: "roce", CNPClass: "cnp",
	}
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

// carried is in as Parse(Render(in)) reads it back: without what NX-OS does
// not carry, and the watchdog's action "drop".
func carried(in fabric.SwitchIntent) fabric.SwitchIntent {
	out := fabric.SwitchIntent{
		APIVersion: in.APIVersion, Platform: Platform, Ports: in.Ports, MTU: in.MTU, Trust: in.Trust,
		PFC: fabric.SwitchPFC{Priorities: in.PFC.Priorities},
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
