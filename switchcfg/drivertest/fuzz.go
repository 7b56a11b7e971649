package drivertest

import (
	"errors"
	"testing"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/switchcfg"
)

// FuzzIntent builds a well-formed intent on info's example ports from
// arbitrary bytes: two to four classes on distinct priorities, DSCPs dealt
// out among them (the first class takes the rest), any of them lossless,
// strict or weighted, with or without ECN, a model of the platform, and a
// watchdog that is absent, off or on. Platforms may still refuse it (their
// limits); what they render must round-trip.
func FuzzIntent(info switchcfg.Info, data []byte) fabric.SwitchIntent {
	at := 0
	next := func(n int) int {
		if n <= 0 {
			return 0
		}
		v := 0
		if at < len(data) {
			v = int(data[at])
		}
		at++
		return v % n
	}
	in := LabIntent(info)
	if len(info.Models) > 0 {
		in.Model = info.Models[next(len(info.Models))].Name
	}
	in.Trust = []string{"dscp", "pcp"}[next(2)]
	n := 2 + next(3)
	prios := []int{0, 1, 2, 3, 4, 5, 6, 7}
	for i := range prios { // deal distinct priorities
		j := i + next(len(prios)-i)
		prios[i], prios[j] = prios[j], prios[i]
	}
	in.Classes, in.PFC.Priorities = nil, []int{}
	owner := map[int]int{}
	for d := 0; d < 64; d++ {
		owner[d] = next(n)
	}
	for i := 0; i < n; i++ { // every class receives traffic (or it is no class on any switch)
		owner[8*prios[i]] = i
	}
	bw := 100
	for i := 0; i < n; i++ {
		c := fabric.SwitchClass{Name: "c" + string(rune('a'+i)), Priority: prios[i], TrafficClass: prios[i], Queue: prios[i], DSCP: []int{}}
		if in.Trust == "dscp" {
			for d := 0; d < 64; d++ {
				if owner[d] == i {
					c.DSCP = append(c.DSCP, d)
				}
			}
		}
		switch {
		case i > 0 && next(4) == 0:
			c.Strict = true
		case i == n-1:
			c.BandwidthPercent = bw
		default:
			c.BandwidthPercent = min(bw, 1+next(max(bw-1, 1))) // never more than is left
			bw -= c.BandwidthPercent
		}
		if next(3) == 0 {
			minB := int64(10_000 + 1000*next(500))
			c.ECN = &fabric.SwitchECN{MinBytes: minB, MaxBytes: minB + int64(1000*next(2000)), MaxMarkProbability: 1 + next(100)}
		}
		if !c.Strict && next(3) == 0 && len(in.PFC.Priorities) < 2 && (in.Trust == "pcp" || len(c.DSCP) > 0) {
			c.Lossless = true
			in.PFC.Priorities = append(in.PFC.Priorities, c.Priority)
		}
		in.Classes = append(in.Classes, c)
	}
	if bw > 0 && in.Classes[n-1].Strict { // the last class was strict: give its share to the first
		in.Classes[0].BandwidthPercent += bw
	}
	switch next(3) {
	case 0:
		in.PFC.Watchdog = nil
	case 1:
		in.PFC.Watchdog = &fabric.SwitchPFCWatchdog{}
	}
	sortClasses(in.Classes)
	sortInts(in.PFC.Priorities)
	return in
}

// FuzzRoundTrip is a driver's render → parse → render property: for every
// intent FuzzIntent builds that d renders, parsing the rendering's
// read-back gives an intent that compares equal and renders the same text.
func FuzzRoundTrip(f *testing.F, d switchcfg.Driver, readback func(t testing.TB, cfg switchcfg.Config) switchcfg.Readback) {
	for _, seed := range [][]byte{{}, {1, 2, 3, 4, 5, 6, 7}, []byte("fabricctl render parse render"), {255, 0, 255, 0, 9, 9, 9, 1}} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		in := FuzzIntent(d.Info(), data)
		if _, err := d.Render(in); errors.Is(err, switchcfg.ErrNotSupported) {
			return // the platform's limits
		} else if err != nil {
			t.Fatalf("FuzzIntent built a malformed intent: %v\n%+v", err, in)
		}
		roundTrip(t, d, Spec{Readback: readback}, in)
	})
}

func sortClasses(cs []fabric.SwitchClass) {
	for i := 1; i < len(cs); i++ {
		for j := i; j > 0 && cs[j].Priority < cs[j-1].Priority; j-- {
			cs[j], cs[j-1] = cs[j-1], cs[j]
		}
	}
}

func sortInts(v []int) {
	for i := 1; i < len(v); i++ {
		for j := i; j > 0 && v[j] < v[j-1]; j-- {
			v[j], v[j-1] = v[j-1], v[j]
		}
	}
}
