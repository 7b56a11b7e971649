package check_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/checks"
	"github.com/fabricctl/fabricctl/checks/congestion"
	"github.com/fabricctl/fabricctl/checks/evaluate"
	"github.com/fabricctl/fabricctl/switchcfg"
	"github.com/fabricctl/fabricctl/switchcfg/all"
	"github.com/fabricctl/fabricctl/switchcfg/sim"
	"github.com/fabricctl/fabricctl/switchcfg/sim/simtest"
)

// congestionSwitches are the simulated platforms, the congestion Family
// their counters are named in, and a server-facing (access) and an
// uplink port.
var congestionSwitches = []struct {
	platform       string
	family         congestion.Family
	access, uplink string
}{
	{"sonic", congestion.SONiC, "Ethernet0", "Ethernet48"},
	{"cumulus-nvue", congestion.Cumulus, "swp1", "swp49"},
	{"arista-eos", congestion.EOS, "Ethernet1/1", "Ethernet49/1"},
	{"junos", congestion.Junos, "et-0/0/1:3", "et-0/0/49"},
	{"cisco-nxos", congestion.NXOS, "Ethernet1/1", "Ethernet1/49"},
}

// roundSeconds is the simulated round's length.
const roundSeconds = 30

// TestSwitchCongestionVerdicts reads each simulated switch's congestion
// counters over SSH through its driver's CongestionReader before and
// after a simulated incast round, and judges them with
// congestion.Evaluate (priority 3 lossless, ECN on):
//
//   - the lossless class held: the access port paused its peer on
//     priority 3, marked ECN on class 3 and dropped nothing → lossless
//     pass, pfc pass, pfc-engaged pass (ECN pass where the OS counts
//     marks per class; on NX-OS "not observable");
//   - drops on the lossless class at the access port → lossless fail,
//     the summary naming the switch and port;
//   - pause sent on priority 5, which the profile makes lossy → pfc fail,
//     naming the port and priority 5.
//
// It also holds the names: every counter the round moved is one
// congestion.Lookup knows for the switch's OS, with the right signal and
// priority.
func TestSwitchCongestionVerdicts(t *testing.T) {
	intent := congestion.Intent{Lossless: []int{3}, ECN: true}
	for _, sw := range congestionSwitches {
		t.Run(sw.platform, func(t *testing.T) {
			d, err := all.Registry().Driver(sw.platform)
			if err != nil {
				t.Fatal(err)
			}
			cr, ok := d.(switchcfg.CongestionReader)
			if !ok {
				t.Fatalf("the %s driver reads no congestion counters", sw.platform)
			}
			cg := sim.NewCongestion(sw.access, sw.uplink)
			s := simtest.Start(t, sim.Options{Platform: sw.platform, Congestion: cg.Read})
			conn := s.Dial(t)
			ports := []string{sw.access, sw.uplink}
			read := func() switchcfg.CongestionReading {
				t.Helper()
				rb := switchcfg.Readback{}
				for _, c := range cr.CongestionCommands(ports) {
					out, err := conn.Send(t.Context(), c)
					if err != nil {
						t.Fatalf("%s: %v", c, err)
					}
					rb[c] = []byte(out)
				}
				r, err := cr.ParseCongestion(rb)
				if err != nil {
					t.Fatal(err)
				}
				if len(r.Unread) > 0 {
					t.Errorf("unread: %+v", r.Unread)
				}
				return r
			}
			// round runs one round on the simulator and judges the
			// switch's ports from the two readings.
			round := func(moved sim.PortCongestion) []checks.Result {
				t.Helper()
				before := read()
				moved.Port = sw.access
				cg.Add(moved)
				cg.Add(sim.PortCongestion{Port: sw.uplink, Sent: [8]uint64{3: 880000}, PauseRx: [8]uint64{3: 120}})
				after := read()
				var ps []congestion.Port
				for _, p := range ports {
					ps = append(ps, congestion.Port{Target: "leaf-01", Port: p, Family: sw.family, Seconds: roundSeconds,
						Before: evaluate.Counters(before.Of(p)), After: evaluate.Counters(after.Of(p))})
				}
				checkNames(t, sw.family, before, after)
				return congestion.Evaluate(intent, ps)
			}
			subject := "leaf-01/" + sw.access

			// 1. The lossless class held with PFC and ECN at work.
			var healthy sim.PortCongestion
			healthy.PauseTx[3], healthy.PauseTxMicros[3] = 1500, 300000 // 1% of the round
			healthy.Sent[3], healthy.ECNMarked[3] = 1204331, 52118
			got := round(healthy)
			want := map[string]checks.Status{congestion.IDLossless: checks.StatusPass, congestion.IDPFC: checks.StatusPass,
				congestion.IDPauseStorm: checks.StatusPass, congestion.IDECN: checks.StatusPass}
			if sw.family == congestion.NXOS {
				want[congestion.IDECN] = checks.StatusSkip
			}
			if sw.family != congestion.Cumulus {
				want[congestion.IDPauseStorm] = checks.StatusSkip // no pause duration or per-priority traffic counter
			}
			expect(t, "healthy", got, subject, want, nil)
			expect(t, "healthy", got, "round", map[string]checks.Status{congestion.IDEngaged: checks.StatusPass},
				[]string{subject, "leaf-01/" + sw.uplink}) // the uplink was paused by its peer
			if sw.family == congestion.NXOS {
				expect(t, "healthy", got, subject, nil, map[string][]string{congestion.IDECN: {"not observable"}})
			}

			// 2. Drops on the lossless class: the port is named.
			var lossy sim.PortCongestion
			lossy.PauseTx[3], lossy.Sent[3], lossy.Drops[3] = 10, 880112, 4100
			got = round(lossy)
			expect(t, "drops on priority 3", got, subject, map[string]checks.Status{congestion.IDLossless: checks.StatusFail},
				map[string][]string{congestion.IDLossless: {"lost packets", subject}})
			expect(t, "drops on priority 3", got, "leaf-01/"+sw.uplink, map[string]checks.Status{congestion.IDLossless: checks.StatusPass}, nil)

			// 3. Pause on a lossy priority: a misconfigured port.
			var wrong sim.PortCongestion
			wrong.PauseTx[5], wrong.Sent[3] = 412, 1000
			got = round(wrong)
			expect(t, "pause on priority 5", got, subject, map[string]checks.Status{congestion.IDPFC: checks.StatusFail},
				map[string][]string{congestion.IDPFC: {"misconfigured port " + subject, "priority 5"}})
			expect(t, "pause on priority 5", got, subject, map[string]checks.Status{congestion.IDLossless: checks.StatusPass}, nil)
		})
	}
}

// expect checks the statuses of target's results, and that each named
// result's summary and evidence hold the words (for "round", the
// evidence lines listed in words[IDEngaged] when words is nil).
func expect(t *testing.T, round string, got []checks.Result, target string, status map[string]checks.Status, words any) {
	t.Helper()
	find := func(id string) (checks.Result, bool) {
		i := slices.IndexFunc(got, func(r checks.Result) bool { return r.ID == id && r.Target == target })
		if i < 0 {
			return checks.Result{}, false
		}
		return got[i], true
	}
	for id, want := range status {
		r, ok := find(id)
		if !ok {
			t.Errorf("%s: no %s result for %s", round, id, target)
			continue
		}
		if r.Status != want {
			t.Errorf("%s: %s %s is %s, want %s: %s %q", round, id, target, r.Status, want, r.Summary, r.Evidence)
		}
	}
	switch w := words.(type) {
	case map[string][]string:
		for id, ws := range w {
			r, _ := find(id)
			text := r.Summary + " " + strings.Join(r.Evidence, " ")
			for _, word := range ws {
				if !strings.Contains(text, word) {
					t.Errorf("%s: %s %s does not say %q: %s", round, id, target, word, text)
				}
			}
		}
	case []string:
		r, _ := find(congestion.IDEngaged)
		if !slices.Equal(r.Evidence, w) {
			t.Errorf("%s: PFC engaged at %q, want %q", round, r.Evidence, w)
		}
	}
}

// checkNames: every counter that moved between the readings is named in
// congestion's table for the family, per-priority ones with the priority
// the simulator moved (3, or 5 for pause), and the signal its name says.
func checkNames(t *testing.T, f congestion.Family, before, after switchcfg.CongestionReading) {
	t.Helper()
	old := map[string]uint64{}
	for _, c := range before.Counters {
		old[c.Port+"\x00"+c.Name] = c.Value
	}
	for _, c := range after.Counters {
		if c.Value == old[c.Port+"\x00"+c.Name] {
			continue
		}
		n, ok := congestion.Lookup(f, c.Name)
		if !ok {
			if movedNeedsName(f, c.Name) {
				t.Errorf("%s %s moved but congestion.Lookup(%s) does not know it", c.Port, c.Name, f)
			}
			continue
		}
		if n.Priority >= 0 && n.Priority != 3 && n.Priority != 5 {
			t.Errorf("%s %s read as priority %d, want 3 or 5", c.Port, c.Name, n.Priority)
		}
		lower := strings.ToLower(c.Name)
		switch n.Signal {
		case congestion.PauseRx, congestion.PauseTx:
			if !strings.Contains(lower, "pfc") && !strings.Contains(lower, "pause") && !strings.Contains(lower, "ppp") {
				t.Errorf("%s read as %s", c.Name, n.Signal)
			}
		case congestion.Drop:
			if !strings.Contains(lower, "drop") && !strings.Contains(lower, "discard") {
				t.Errorf("%s read as %s", c.Name, n.Signal)
			}
		case congestion.ECNMarked:
			if !strings.Contains(lower, "ecn") {
				t.Errorf("%s read as %s", c.Name, n.Signal)
			}
		}
	}
}

// movedNeedsName reports whether a counter that moved must be in the
// table: pause, drop and ECN counters must; packet and byte counts,
// durations and per-port totals the table leaves out need not.
func movedNeedsName(f congestion.Family, name string) bool {
	l := strings.ToLower(name)
	if strings.Contains(l, "byt") || strings.Contains(l, "duration") || strings.Contains(l, "port-stats") {
		return false
	}
	for _, w := range []string{"pfc", "pause", "drop", "discard", "ecn"} {
		if strings.Contains(l, w) {
			return !(f == congestion.Junos && strings.HasPrefix(name, "Queue counters") && !strings.Contains(l, "drop")) &&
				!strings.HasPrefix(fmt.Sprint(name), "Mcast")
		}
	}
	return false
}
