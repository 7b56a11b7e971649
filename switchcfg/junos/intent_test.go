package junos

import (
	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/switchcfg/drivertest"
)

// recipe is the common NVIDIA RoCE recipe on a QFX (drivertest.LabIntent: DSCP
// 26 on priority 3, lossless with ECN 150 KB / 1500 KB, CNPs (DSCP 48) on
// priority 6 strict, the rest of the DSCPs on priority 0), with a
// channelized port.
func recipe() fabric.SwitchIntent {
	in := drivertest.LabIntent(New().Info())
	in.Name, in.Address = "leaf-31", "10.0.1.31"
	in.Ports = []string{"et-0/0/0", "et-0/0/1", "et-0/0/12:1"}
	return in
}

// jvdQueues is the recipe laid out as Juniper's AI/ML design does: PFC
// priority 3 on queue 4, and the watchdog with Junos's defaults.
func jvdQueues() fabric.SwitchIntent {
	in := recipe()
	in.Classes[1].Queue = 4
	in.PFC.Watchdog = &fabric.SwitchPFCWatchdog{Enabled: true, Action: "forward"}
	return in
}

// jvdAILeaf is Juniper's AI/ML leaf (QFX5240): NO-LOSS on queue 4 with
// pfc-priority 3, CNPs strict on queue 3 (priority 6, read from DSCP 48),
// ECN at 55 % and 90 % of the queue buffer.
func jvdAILeaf() fabric.SwitchIntent {
	in := recipe()
	in.Model = "qfx5240-64od"
	in.Classes[1].Name, in.Classes[1].Queue = "NO-LOSS", 4
	in.Classes[1].ECN = &fabric.SwitchECN{MinBytes: 55 * 165 * mb / 100, MaxBytes: 90 * 165 * mb / 100, MaxMarkProbability: 100}
	in.Classes[2].Name, in.Classes[2].Queue = "CNP", 3
	in.Classes[2].Strict, in.Classes[2].BandwidthPercent = true, 5
	in.Classes[0].BandwidthPercent = 95
	return in
}

// queueBuffer2MB sizes the fill levels by the profile's queueBuffer.
func queueBuffer2MB() fabric.SwitchIntent {
	in := recipe()
	in.QueueBufferBytes = 2 * mb
	return in
}

// noWatchdog says nothing of the watchdog: the profile's stays.
func noWatchdog() fabric.SwitchIntent {
	in := recipe()
	in.PFC.Watchdog = nil
	return in
}

// lossyECN drops PFC: RoCE relies on ECN alone, with thresholds that are not
// whole percents of the queue buffer.
func lossyECN() fabric.SwitchIntent {
	in := recipe()
	in.PFC = fabric.SwitchPFC{Priorities: []int{}}
	in.Classes[1].Lossless = false
	in.Classes[1].ECN = &fabric.SwitchECN{MinBytes: 20500, MaxBytes: 600400, MaxMarkProbability: 20}
	return in
}

// pcpTrust classifies on IEEE 802.1p.
func pcpTrust() fabric.SwitchIntent {
	in := recipe()
	in.Trust = "pcp"
	for i := range in.Classes {
		in.Classes[i].DSCP = nil
	}
	in.Classes[1].Queue = 5
	return in
}

// carried is in as Parse(Render(in)) reads it back: without what Junos does
// not carry, thresholds through fill-level steps (fillScale), no disabled
// watchdog, "drop" as the default watchdog action.
func carried(in fabric.SwitchIntent) fabric.SwitchIntent {
	out := fabric.SwitchIntent{
		APIVersion: in.APIVersion, Platform: Platform, Ports: in.Ports, MTU: in.MTU, Trust: in.Trust,
		PFC: fabric.SwitchPFC{Priorities: in.PFC.Priorities},
	}
	if wd := in.PFC.Watchdog; wd != nil && wd.Enabled && len(in.PFC.Priorities) > 0 {
		w := *wd
		if w.Action == "" {
			w.Action = "drop"
		}
		out.PFC.Watchdog = &w
	}
	for _, c := range in.Classes {
		if c.DSCP == nil {
			c.DSCP = []int{}
		}
		c.Name = fcName(c)
		if c.ECN != nil {
			e := *c.ECN
			buffer := queueBuffer(in)
			lo, hi, _ := fillLevels(e, buffer, fillScale(in))
			e.MinBytes, e.MaxBytes = fillBytes(lo, buffer), fillBytes(hi, buffer)
			c.ECN = &e
		}
		out.Classes = append(out.Classes, c)
	}
	if out.PFC.Priorities == nil {
		out.PFC.Priorities = []int{}
	}
	return out
}
