package simtest

import "github.com/fabricctl/fabricctl/fabric"

// Ports returns two port names of platform that exist on its simulator.
func Ports(platform string) []string {
	return map[string][]string{
		"cumulus-nvue": {"swp1", "swp2"},
		"sonic":        {"Ethernet0", "Ethernet4"},
		"arista-eos":   {"Ethernet1", "Ethernet2"},
		"cisco-nxos":   {"Ethernet1/1", "Ethernet1/2"},
		"junos":        {"et-0/0/0", "et-0/0/1"},
	}[platform]
}

// LabIntent is the lab's lossless switch intent for platform on Ports: RoCE
// on priority 3 (DSCP 26) with PFC and ECN 150 KB–1500 KB, CNPs (DSCP 48) on
// priority 6 strict, every other DSCP on priority 0, ETS 50/50, a PFC
// watchdog, switch MTU 9216 (9214 on EOS, its usual maximum).
func LabIntent(platform string) fabric.SwitchIntent {
	mtu := 9216
	if platform == "arista-eos" {
		mtu = 9214
	}
	var rest []int
	for d := 0; d < 64; d++ {
		if d != 26 && d != 48 {
			rest = append(rest, d)
		}
	}
	return fabric.SwitchIntent{
		APIVersion: fabric.APIVersion, Name: "leaf-" + platform, Platform: platform, Profile: "roce-lossless",
		Ports: Ports(platform), MTU: mtu, Trust: "dscp",
		Classes: []fabric.SwitchClass{
			{Name: "default", Priority: 0, TrafficClass: 0, Queue: 0, DSCP: rest, BandwidthPercent: 50},
			{Name: "roce", Priority: 3, TrafficClass: 3, Queue: 3, DSCP: []int{26}, Lossless: true, BandwidthPercent: 50,
				ECN: &fabric.SwitchECN{MinBytes: 150000, MaxBytes: 1500000, MaxMarkProbability: 100}},
			{Name: "cnp", Priority: 6, TrafficClass: 6, Queue: 6, DSCP: []int{48}, Strict: true},
		},
		PFC: fabric.SwitchPFC{Priorities: []int{3}, CableLengthMeters: 5,
			Watchdog: &fabric.SwitchPFCWatchdog{Enabled: true, PollIntervalMs: 100, DetectionTimeMs: 200,
				RestorationTimeMs: 400, Action: "drop"}},
		RoCEClass: "roce", CNPClass: "cnp",
	}
}
