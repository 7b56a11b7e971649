package congestion

import (
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/checks"
)

// TestLocateLoss: a sender's sequence-error NAKs are its flows' loss; where
// the receiver counted the loss itself, the receiver is blamed, with the
// senders' NAKs in its evidence, and the senders pass. Without a port that
// counted the loss, or with a drop of the sender's own, the sender fails.
func TestLocateLoss(t *testing.T) {
	const s = 10
	seq := func(n uint64) map[string]uint64 { return map[string]uint64{"hw_counters/rcvd_seq_err": n} }
	recvLoss := Port{Target: "h3", Port: "rxe0:1", Role: Receiver, Seconds: s, Before: rxe(5, nil),
		After: rxe(5, map[string]uint64{"hw_counters/out_of_seq_request": 108})}
	recvClean := Port{Target: "h3", Port: "rxe0:1", Role: Receiver, Seconds: s, Before: rxe(5, nil), After: rxe(5, nil)}
	sender := func(name string, moves map[string]uint64) Port {
		return Port{Target: name, Port: "rxe0:1", Role: Sender, Seconds: s, Before: rxe(5, nil), After: rxe(5, moves)}
	}
	ownDrop := sender("h4", nil)
	ownDrop.Before["hw_counters/out_of_seq_request"], ownDrop.After["hw_counters/out_of_seq_request"] = 0, 2
	ownDrop.After["hw_counters/rcvd_seq_err"] += 7

	cases := []struct {
		name  string
		ports []Port
		fail  []string // targets whose lossless verdict fails
		inEv  string   // a line the receiver's evidence must hold ("" none)
	}{
		{"receiver counted it", []Port{recvLoss, sender("h1", seq(32)), sender("h2", seq(28))}, []string{"h3"}, "seen by sender h1/rxe0:1: hw_counters/rcvd_seq_err +32"},
		{"nobody else counted it", []Port{recvClean, sender("h1", seq(32)), sender("h2", nil)}, []string{"h1"}, ""},
		{"sender lost on its own too", []Port{recvLoss, sender("h1", seq(3)), ownDrop}, []string{"h3", "h4"}, "seen by sender h1/rxe0:1"},
		{"healthy", []Port{recvClean, sender("h1", nil), sender("h2", nil)}, nil, ""},
	}
	for _, c := range cases {
		var fail []string
		var recvEv string
		for _, r := range Evaluate(intent, c.ports) {
			if r.ID != IDLossless {
				continue
			}
			if r.Status == checks.StatusFail {
				fail = append(fail, strings.SplitN(r.Target, "/", 2)[0])
			}
			if strings.HasPrefix(r.Target, "h3/") {
				recvEv = strings.Join(r.Evidence, "\n")
			}
			if r.Status == checks.StatusPass && strings.Contains(r.Summary, "NAKs") && !strings.Contains(r.Summary, "counted at h3/rxe0:1") {
				t.Errorf("%s: %s passes without naming where the loss was counted: %s", c.name, r.Target, r.Summary)
			}
		}
		if strings.Join(fail, ",") != strings.Join(c.fail, ",") {
			t.Errorf("%s: lossless fails on %v, want %v", c.name, fail, c.fail)
		}
		if c.inEv != "" && !strings.Contains(recvEv, c.inEv) {
			t.Errorf("%s: receiver's evidence lacks %q:\n%s", c.name, c.inEv, recvEv)
		}
	}
}
