package sim_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/switchcfg"
	"github.com/fabricctl/fabricctl/switchcfg/all"
	"github.com/fabricctl/fabricctl/switchcfg/sim"
)

// congestionNames are, per platform, the names its driver gives the
// counters a test sets below: pause received and sent on priority 3,
// drops and ECN marks on traffic class 3 (tc), pause sent on priority 5.
var congestionNames = map[string]struct{ rx3, tx3, drop3, ecn3, tx5 string }{
	"sonic":        {"Rx PFC3", "Tx PFC3", "UC3 Drop/pkts", "UC3 EcnMarked/pkts", "Tx PFC5"},
	"cumulus-nvue": {"pfc-stats 3 rx-pause-frames", "pfc-stats 3 tx-pause-frames", "egress-queue-stats 3 tx-uc-buffer-discards", "egress-queue-stats 3 ecn-marked-frames", "pfc-stats 5 tx-pause-frames"},
	"arista-eos":   {"Priority 3 RxPfc", "Priority 3 TxPfc", "TxQ3 DropPkts", "TxQ3 EcnMarked", "Priority 5 TxPfc"},
	"junos":        {"PFC priority 3 Received", "PFC priority 3 Transmitted", "Queue 3 Tail-dropped packets", "Queue 3 ECN-CE packets", "PFC priority 5 Transmitted"},
	"cisco-nxos":   {"PFC COS 3 RxCount", "PFC COS 3 TxCount", "QOS GROUP 3 WD & Tail Drop Pkts", "", "PFC COS 5 TxCount"},
}

// TestCongestionServed: each simulator serves its ports' congestion
// counters in its NOS's shape over a real SSH session, and the platform's
// driver (switchcfg.CongestionReader) reads back, on the port it was set
// on, what a test set — pause on priority 3 sent and received, ECN marks
// and drops on traffic class 3, pause on priority 5 — with no line left
// unread; the other port reads zero; Clear zeroes them; a source that
// fails is an error, not a switch without congestion.
func TestCongestionServed(t *testing.T) {
	for _, tc := range counterPlatforms {
		t.Run(tc.platform, func(t *testing.T) {
			names := congestionNames[tc.platform]
			d, err := all.Registry().Driver(tc.platform)
			if err != nil {
				t.Fatal(err)
			}
			cr, ok := d.(switchcfg.CongestionReader)
			if !ok {
				t.Fatalf("%s's driver reads no congestion counters", tc.platform)
			}
			cg := sim.NewCongestion(tc.uplink, tc.access)
			var fail error
			_, c := dial(t, sim.Options{Platform: tc.platform, Congestion: func() ([]sim.PortCongestion, error) {
				ps, _ := cg.Read()
				return ps, fail
			}})
			cmds := cr.CongestionCommands([]string{tc.access, tc.uplink})
			if len(cmds) == 0 {
				t.Fatal("no congestion command")
			}
			read := func() switchcfg.CongestionReading {
				t.Helper()
				rb := switchcfg.Readback{}
				for _, cmd := range cmds {
					rb[cmd] = []byte(c.ok(cmd))
				}
				r, err := cr.ParseCongestion(rb)
				if err != nil {
					t.Fatal(err)
				}
				if len(r.Unread) > 0 {
					t.Errorf("unread lines: %+v", r.Unread[:min(len(r.Unread), 5)])
				}
				return r
			}
			fresh := read().Of(tc.access)
			for _, n := range []string{names.rx3, names.tx3, names.drop3, names.ecn3, names.tx5} {
				if v, ok := fresh[n]; n != "" && (!ok || v != 0) {
					t.Errorf("fresh switch: %s = %d (read %v), want 0", n, v, ok)
				}
			}
			var p sim.PortCongestion
			p.Port = tc.access
			p.PauseRx[3], p.PauseTx[3], p.PauseTx[5] = 40, 1200, 7
			p.Sent[3], p.Drops[3], p.ECNMarked[3] = 90000, 12, 310
			cg.Add(p)
			r := read()
			got, up := r.Of(tc.access), r.Of(tc.uplink)
			want := map[string]uint64{names.rx3: 40, names.tx3: 1200, names.drop3: 12, names.ecn3: 310, names.tx5: 7}
			for n, v := range want {
				if n != "" && got[n] != v {
					t.Errorf("%s %s = %d, want %d", tc.access, n, got[n], v)
				}
				if n != "" && up[n] != 0 {
					t.Errorf("%s %s = %d, want 0: counters landed on the wrong port", tc.uplink, n, up[n])
				}
			}
			cg.Clear()
			if got := read().Of(tc.access); got[names.tx3] != 0 {
				t.Errorf("after clearing: %s = %d", names.tx3, got[names.tx3])
			}
			fail = errors.New("the counter agent is down")
			out, err := c.c.Send(t.Context(), cmds[len(cmds)-1])
			if err == nil {
				rb := switchcfg.Readback{}
				for _, cmd := range cmds {
					rb[cmd] = []byte(out)
				}
				_, err = cr.ParseCongestion(rb)
			}
			if err == nil || !strings.Contains(err.Error()+out, "the counter agent is down") {
				t.Errorf("failing source: %v, %q; want an error saying the agent is down", err, out)
			}
		})
	}
}
