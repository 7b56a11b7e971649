package drivertest

import (
	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/switchcfg"
)

// LabIntent is the lab's lossless switch intent for a platform, on its
// Info.ExamplePorts: RoCE on priority 3 (DSCP 26) with PFC and ECN
// 150 KB–1500 KB, CNPs (DSCP 48) on priority 6 strict, every other DSCP on
// priority 0, ETS 50/50, a PFC watchdog, switch MTU 9216 or the platform's
// maximum when lower (9214 on EOS).
func LabIntent(info switchcfg.Info) fabric.SwitchIntent {
	mtu := 9216
	if info.MaxMTU > 0 {
		mtu = min(mtu, info.MaxMTU)
	}
	var rest []int
	for d := 0; d < 64; d++ {
		if d != 26 && d != 48 {
			rest = append(rest, d)
		}
	}
	return fabric.SwitchIntent{
		APIVersion: fabric.APIVersion, Name: "leaf-" + info.Name, Platform: info.Name, Profile: "roce-lossless",
		Ports: append([]string(nil), info.ExamplePorts...), MTU: mtu, Trust: "dscp",
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
