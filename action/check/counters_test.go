package check

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fabricctl/fabricctl/checks"
	"github.com/fabricctl/fabricctl/checks/localize"
	"github.com/fabricctl/fabricctl/checks/report"
	"github.com/fabricctl/fabricctl/checks/schedule"
	"github.com/fabricctl/fabricctl/checks/topology"
	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/testkit/localizesim"
)

// lossyHostReport is the all-pairs sweep of the two-leaf lab with two
// hosts a leaf where every test lab-h1 takes part in lost packets (its
// cable corrupts, but the hosts' counters cannot say which end).
func lossyHostReport() *report.Report { return sweepReport("lab-h1") }

// sweepReport is that sweep with every test of host bad lossy (none
// when bad is "").
func sweepReport(bad string) *report.Report {
	rep := report.New("lab", time.Date(2026, 12, 3, 18, 0, 0, 0, time.UTC), report.SuitePairwise)
	all, _ := schedule.AllPairs([]string{"lab-h1", "lab-h2", "lab-h3", "lab-h4"})
	for _, round := range all {
		for _, p := range round {
			v := 9.6
			pair := report.Pair{A: p.Server, B: p.Client, DeviceA: "rxe0", DeviceB: "rxe0", Test: "write_bw", Value: &v, Unit: checks.UnitGbps, Status: checks.StatusPass}
			if bad != "" && (p.Server == bad || p.Client == bad) {
				low := 3.1
				pair.Value, pair.Status, pair.Class = &low, checks.StatusFail, checks.CounterEvidence
				pair.Evidence = []string{p.Server + "/rxe0: out_of_seq_request +311 during the test (out-of-sequence; healthy baseline +0)"}
				pair.CounterKinds = []string{"out-of-sequence"}
			}
			rep.AddPairs(pair)
		}
	}
	return rep
}

// fakeSwitches is a SwitchCounterSource: leaf-01's ports read every
// time, port1's FCS errors growing by grow each read after the first;
// leaf-02 never answers.
type fakeSwitches struct {
	reads int
	grow  uint64
}

func (f *fakeSwitches) read(ctx context.Context) SwitchReading {
	var rs []localize.Reading
	for _, p := range []string{"port1", "port2", "isl"} {
		v := uint64(7)
		if p == "port1" {
			v += uint64(f.reads) * f.grow
		}
		at := fabric.Endpoint{Device: "leaf-01", Port: p}
		rs = append(rs, localize.Reading{At: at, Kind: localize.PhyErrors, Name: "fcsErrors", Value: v},
			localize.Reading{At: at, Kind: localize.Discards, Name: "inDiscards", Value: 3})
	}
	rs = append(rs, localize.Reading{At: fabric.Endpoint{Device: "leaf-01", Port: "Ethernet9"}, Kind: localize.PhyErrors, Name: "fcsErrors", Value: uint64(f.reads)})
	f.reads++
	return SwitchReading{Readings: rs, Read: []string{"leaf-01"}, Unread: []string{"leaf-02: reading port counters: dial tcp 10.0.0.2:22: connection refused"},
		NotWeighed: []string{"rx_prio3_pause at lab-h2:eth0: pause frames"}}
}

func components(ss []checks.Suspect) (names []string, alternatives int) {
	for _, s := range ss {
		names = append(names, s.Component)
		alternatives += len(s.Alternatives)
	}
	return names, alternatives
}

// TestLocalizeWithSwitchCounters: host evidence alone leaves lab-h1's
// cable ambiguous (its host end or its switch end, or the host); the FCS
// errors leaf-01 counted on port1 during the tests name the cable
// exactly, and the report says leaf-01 was read and leaf-02 was not.
func TestLocalizeWithSwitchCounters(t *testing.T) {
	topo := localizesim.TwoLeaves(2)
	plain := lossyHostReport()
	if err := Localize(context.Background(), plain, topo, nil, nil, 0, nil, localize.Options{}); err != nil {
		t.Fatal(err)
	}
	names, alts := components(plain.Suspects)
	t.Logf("host evidence only: %v, %d alternatives", names, alts)
	if len(names) == 1 && alts == 0 {
		t.Fatalf("without switch counters the suspect is already exact (%v): the test shows nothing", names)
	}

	src := &fakeSwitches{grow: 1841}
	sc := StartSwitchCounters(context.Background(), src.read)
	rep := lossyHostReport()
	if err := Localize(context.Background(), rep, topo, nil, nil, 0, sc, localize.Options{}); err != nil {
		t.Fatal(err)
	}
	names, alts = components(rep.Suspects)
	if len(names) != 1 || alts != 0 || !strings.Contains(names[0], "lab-h1") {
		t.Fatalf("with leaf-01's counters: suspects %v with %d alternatives, want lab-h1's cable exactly", names, alts)
	}
	if !strings.Contains(strings.Join(rep.Suspects[0].Evidence, "\n"), "fcsErrors") {
		t.Errorf("evidence %q does not cite the switch counter", rep.Suspects[0].Evidence)
	}
	if sc := rep.SwitchCounters; sc == nil || !slices.Equal(sc.Read, []string{"leaf-01"}) || len(sc.Unread) != 1 || !strings.HasPrefix(sc.Unread[0], "leaf-02: ") {
		t.Fatalf("switch counters %+v, want leaf-01 read and leaf-02 not", rep.SwitchCounters)
	}
	var table, html, js bytes.Buffer
	if err := report.WriteTable(&table, rep); err != nil {
		t.Fatal(err)
	}
	if sc := rep.SwitchCounters; !slices.Equal(sc.NotWeighed, []string{"rx_prio3_pause at lab-h2:eth0: pause frames"}) {
		t.Errorf("not weighed %q, want the pause counter read but not weighed", sc.NotWeighed)
	}
	if !strings.Contains(table.String(), "PORT COUNTERS read: leaf-01\n  not read: leaf-02: ") ||
		!strings.Contains(table.String(), "\n  not weighed: rx_prio3_pause at lab-h2:eth0: pause frames\n") {
		t.Errorf("table lacks the switches read:\n%s", table.String())
	}
	if err := report.WriteHTML(&html, rep); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(html.String(), `data-read="leaf-01">Port error counters read: leaf-01. Not read: leaf-02: `) ||
		!strings.Contains(html.String(), `Not weighed: rx_prio3_pause at lab-h2:eth0: pause frames.`) {
		t.Errorf("HTML lacks the switches read")
	}
	if err := report.WriteJSON(&js, rep); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(js.String(), `"switchCounters": {`) || !strings.Contains(js.String(), `"notWeighed": [`) {
		t.Errorf("JSON lacks the switches read")
	}
}

// portSource reads every switch port of topo: FCS errors at at grow by
// grow with each read after the first (back to zero when grow is 0 and
// cleared is set: the counters were cleared during the tests).
type portSource struct {
	topo    *topology.Topology
	at      fabric.Endpoint
	grow    uint64
	cleared bool
	reads   int
}

func (p *portSource) read(context.Context) SwitchReading {
	var rs []localize.Reading
	switches := map[string]bool{}
	for _, l := range p.topo.Links {
		for _, e := range []fabric.Endpoint{l.A, l.B} {
			if n, ok := p.topo.Node(e.Device); !ok || n.Role == topology.RoleHost {
				continue
			}
			switches[e.Device] = true
			v := uint64(1000)
			if e == p.at {
				v += uint64(p.reads) * p.grow
				if p.cleared && p.reads > 0 {
					v = 0
				}
			}
			rs = append(rs, localize.Reading{At: e, Kind: localize.PhyErrors, Name: "fcsErrors", Value: v})
		}
	}
	p.reads++
	var read []string
	for s := range switches {
		read = append(read, s)
	}
	slices.Sort(read)
	return SwitchReading{Readings: rs, Read: read}
}

// TestCheckSwitchCountersNameTheCable: the two-leaf lab with lab-h1's
// access link lossy. Tests alone leave its cable and leaf-01's port
// (TestCheckRetestsNarrowTheAccessLink); with the FCS errors leaf-01's
// swp1 counted during the sweep and re-tests, check names the cable
// alone, having read the switches before the sweep, after it and after
// every re-test round. Counters cleared during the tests are no
// evidence: the ambiguity stays.
func TestCheckSwitchCountersNameTheCable(t *testing.T) {
	for _, tc := range []struct {
		name    string
		cleared bool
		want    []string
	}{
		{"counted", false, []string{"cable:lab-h1:eth0"}},
		{"cleared", true, []string{"cable:lab-h1:eth0", "port:leaf-01:swp1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hosts, topo := twoLeafHosts(t)
			src := &portSource{topo: topo, at: fabric.Endpoint{Device: "leaf-01", Port: "swp1"}, grow: 600, cleared: tc.cleared}
			f := &fakeFabric{t: t, lossy: touching("lab-h1")}
			rep, err := Run(t.Context(), "test", hosts, Options{Suites: []report.Suite{report.SuitePairwise}, Checks: retestPolicy(nil),
				Launcher: f, Topology: topo, SwitchCounters: src.read})
			if err != nil {
				t.Fatal(err)
			}
			if set := onlySuspect(t, rep); !slices.Equal(set, tc.want) {
				t.Errorf("suspect %v, want %v", set, tc.want)
			}
			if want := 2 + len(rep.Retests); src.reads != want {
				t.Errorf("switches read %d times, want %d (before, after the sweep, after each of %d re-test rounds)", src.reads, want, len(rep.Retests))
			}
			if sc := rep.SwitchCounters; sc == nil || !slices.Equal(sc.Read, []string{"leaf-01", "leaf-02"}) {
				t.Errorf("switch counters %+v, want both leaves read", rep.SwitchCounters)
			}
		})
	}
}

// TestSwitchCountersKeepTheLastReading: a switch that answered after the
// sweep but not after a re-test round keeps what it counted until then
// (its ports stay read, its FCS errors a delta), and the report says why
// it was not read the last time; a switch never read is unknown.
func TestSwitchCountersKeepTheLastReading(t *testing.T) {
	topo := localizesim.TwoLeaves(2)
	src := &fakeSwitches{grow: 1841}
	down := false
	read := func(ctx context.Context) SwitchReading {
		r := src.read(ctx)
		if down {
			return SwitchReading{Unread: []string{"leaf-01: reading port counters: connection refused", "leaf-02: reading port counters: dial tcp 10.0.0.2:22: connection refused"}}
		}
		return r
	}
	sc := StartSwitchCounters(t.Context(), read)
	_, first := sc.Evidence(t.Context(), topo)
	down = true
	readNow, moved := sc.Evidence(t.Context(), topo)
	if len(first) != 1 || !slices.Equal(moved, first) || moved[0].Delta != 1841 {
		t.Errorf("moved %v after leaf-01 went away, want %v as before", moved, first)
	}
	for _, e := range readNow {
		if e.Device != "leaf-01" {
			t.Errorf("%v read, want only leaf-01's ports", e)
		}
	}
	if len(readNow) != 3 {
		t.Errorf("read %v, want leaf-01's three cabled ports", readNow)
	}
	sum := sc.Summary()
	if !slices.Equal(sum.Read, []string{"leaf-01"}) || !slices.Contains(sum.Unread, "leaf-01: reading port counters: connection refused (its earlier reading is used)") {
		t.Errorf("summary %+v", sum)
	}
}

// TestHealthyFabricWithSwitchCounters: a healthy fabric stays healthy
// with switch counters read: every pair passing, FCS errors that a port
// counted during the tests (a few, or many) name no suspect, so the
// counters alone never turn a passing check into a localisation.
func TestHealthyFabricWithSwitchCounters(t *testing.T) {
	all, _ := schedule.AllPairs([]string{"lab-h1", "lab-h2", "lab-h3", "lab-h4"})
	for _, grow := range []uint64{0, 3, 1841} {
		rep := report.New("lab", time.Date(2026, 12, 3, 18, 0, 0, 0, time.UTC), report.SuitePairwise)
		for _, round := range all {
			for _, p := range round {
				v := 9.6
				rep.AddPairs(report.Pair{A: p.Server, B: p.Client, Test: "write_bw", Value: &v, Unit: checks.UnitGbps, Status: checks.StatusPass})
			}
		}
		src := &fakeSwitches{grow: grow}
		if err := Localize(t.Context(), rep, localizesim.TwoLeaves(2), nil, nil, 0, StartSwitchCounters(t.Context(), src.read), localize.Options{}); err != nil {
			t.Fatal(err)
		}
		if len(rep.Suspects) != 0 || rep.SwitchCounters == nil || len(rep.SwitchCounters.Read) != 1 {
			t.Errorf("FCS +%d on a healthy fabric: suspects %+v, switch counters %+v; want none, leaf-01 read", grow, rep.Suspects, rep.SwitchCounters)
		}
	}
}

// TestPortCountersWarnOnAPassingCheck: every test passed, yet leaf-01's
// port1 counted FCS errors during them; the check warns about that port
// (and about no other: the uncabled port's growth and the unchanged
// discards are not its business), names no suspect, and fails nothing.
func TestPortCountersWarnOnAPassingCheck(t *testing.T) {
	topo := localizesim.TwoLeaves(2)
	rep := sweepReport("")
	sc := StartSwitchCounters(context.Background(), (&fakeSwitches{grow: 5}).read)
	if err := Localize(context.Background(), rep, topo, nil, nil, 0, sc, localize.Options{}); err != nil {
		t.Fatal(err)
	}
	var warns []checks.Result
	for _, r := range rep.Results {
		if r.ID == IDPortCounters {
			warns = append(warns, r)
		}
		if r.Status == checks.StatusFail || r.Status == checks.StatusError {
			t.Errorf("result %s %s is %s on a passing sweep", r.ID, r.Target, r.Status)
		}
	}
	if len(warns) != 1 || warns[0].Target != "leaf-01:port1" || warns[0].Status != checks.StatusWarn ||
		warns[0].Summary != "fcsErrors +5 during the tests (receive errors: the cable or optics arriving here)" {
		t.Fatalf("port-counter results %+v, want one warning at leaf-01:port1 for fcsErrors +5", warns)
	}
	if len(rep.Suspects) != 0 {
		t.Errorf("suspects %v on a sweep that passed", describeSuspects(rep.Suspects))
	}
}

// TestPortCounterResultsKinds: link-downs and pause storms warn with what
// they mean, several counters of a port make one warning; discards and
// state readings without a delta do not warn.
func TestPortCounterResultsKinds(t *testing.T) {
	h := fabric.Endpoint{Device: "gpu-01", Port: "eth0"}
	leaf := fabric.Endpoint{Device: "leaf-01", Port: "swp1"}
	sc := &SwitchCounters{moved: []localize.Counter{
		{At: leaf, Kind: localize.Discards, Name: "inDiscards", Delta: 40},
		{At: h, Kind: localize.LinkDown, Name: "link_down_events_phy", Delta: 2},
		{At: h, Kind: localize.PauseStorm, Name: "tx_pause_storm_warning_events", Delta: 1},
		{At: h, Kind: localize.Degraded, Name: "speed 400Gb/s"},
	}}
	got := sc.PortCounterResults()
	if len(got) != 1 || got[0].Target != "gpu-01:eth0" ||
		got[0].Summary != "link_down_events_phy +2, tx_pause_storm_warning_events +1 during the tests (the link went down; a pause storm: the NIC stalled sending pause frames)" ||
		len(got[0].Evidence) != 2 {
		t.Errorf("results %+v", got)
	}
	if (*SwitchCounters)(nil).PortCounterResults() != nil {
		t.Errorf("no counters read, yet results")
	}
}
