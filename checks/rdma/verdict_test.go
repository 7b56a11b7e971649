package rdma

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fabricctl/fabricctl/checks"
	"github.com/fabricctl/fabricctl/checks/evaluate"
	"github.com/fabricctl/fabricctl/checks/perftest"
	"github.com/fabricctl/fabricctl/checks/rdma/rdmatest"
)

// scripted is a sweep's run function that makes up each run from a script:
// how a pair behaves on its n-th run (1-based). Runs are counted per
// unordered pair of hosts.
type scripted struct {
	mu    sync.Mutex
	calls map[string]int
	order []string
	// behave returns the bandwidth, the sequence errors each side counts
	// and a completion error, for the n-th run of the pair a–b.
	behave func(a, b string, n int) (gbps float64, seqErrs map[string]uint64, completionError bool)
}

func key(a, b string) string {
	if a > b {
		a, b = b, a
	}
	return a + "<->" + b
}

func (s *scripted) run(_ context.Context, _ *sessionPool, srv, cli Endpoint, t Test, port func(int) int) PairRun {
	s.mu.Lock()
	if s.calls == nil {
		s.calls = map[string]int{}
	}
	k := key(srv.Host, cli.Host)
	s.calls[k]++
	n := s.calls[k]
	s.order = append(s.order, k)
	s.mu.Unlock()
	gbps, seq, cerr := s.behave(srv.Host, cli.Host, n)
	out := func(e Endpoint, role Role) *Outcome {
		o := &Outcome{Role: role, Stdout: rdmatest.Table(e.Device, gbps),
			Before: evaluate.Counters{"out_of_seq_request": 100, "rcvd_seq_err": 100, "duplicate_request": 5000, "sent_pkts": 1},
			After: evaluate.Counters{"out_of_seq_request": 100 + seq[e.Host], "rcvd_seq_err": 100 + seq[e.Host],
				"duplicate_request": 5000 + 800 + uint64(len(e.Host))*37, "sent_pkts": 9000}}
		if cerr && role == Client {
			o.Stdout, o.ExitCode = "", 1
			o.Stderr = "Completion with error at client\n Failed status 12: wr_id 0 syndrom 0x81\nscnt=128, ccnt=0\n"
		}
		return o
	}
	return PairRun{Server: srv, Client: cli, Test: t, TCPPort: port(0), ServerOut: out(srv, Server), ClientOut: out(cli, Client),
		Attempts: 1, Wall: 7 * time.Second}
}

func scriptedFleet(n int) []Endpoint {
	var eps []Endpoint
	for i := 1; i <= n; i++ {
		eps = append(eps, Endpoint{Host: "h" + string(rune('0'+i)), Device: "rxe0", RateGbps: 10})
	}
	return eps
}

func verdictSweep(s *scripted) Sweep {
	return Sweep{Test: Test{Test: perftest.WriteBW, Duration: 5 * time.Second, Bidirectional: true}, Retest: true,
		Counters:   evaluate.Rules{Sigma: DefaultSigma, MinEvents: DefaultMinEvents, Ignore: []string{"duplicate_request"}},
		Thresholds: Thresholds{RelativeFloor: 0.05}, run: s.run}
}

// TestConfirmBlamesTheLossyHostAndClearsATransientPair: h3 loses packets
// (its side counts sequence errors in every test); h1↔h2 has one spurious
// completion error, as soft RoCE under load does. The re-tests blame h3
// alone — it fails with known-good partners too — fail all of its pairs and
// only those, and clear h1↔h2, whose repeat passes.
func TestConfirmBlamesTheLossyHostAndClearsATransientPair(t *testing.T) {
	s := &scripted{behave: func(a, b string, n int) (float64, map[string]uint64, bool) {
		seq := map[string]uint64{}
		if a == "h3" || b == "h3" {
			seq["h3"] = 45
			seq[strings.Replace(a+b, "h3", "", 1)] = 40
			return 0.02, seq, false
		}
		return 0.05, seq, key(a, b) == "h1<->h2" && n == 1
	}}
	res, err := verdictSweep(s).Pairwise(t.Context(), scriptedFleet(4))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Results {
		lossy := strings.Contains(r.Target, "h3/")
		if lossy != (r.Status == checks.StatusFail) {
			t.Errorf("%s: %s %s %s", r.Target, r.Status, r.Class, r.Summary)
		}
		if lossy && (r.Class != checks.CounterEvidence || !strings.Contains(r.Summary, "h3 fails with known-good partners too")) {
			t.Errorf("%s: %s %q, want counter evidence naming h3", r.Target, r.Class, r.Summary)
		}
		if r.Target == "h1/rxe0->h2/rxe0" || r.Target == "h2/rxe0->h1/rxe0" {
			ev := strings.Join(r.Evidence, "\n")
			if r.Status != checks.StatusPass || !strings.Contains(r.Summary, "re-test passed") || !strings.Contains(ev, "first run: fail") {
				t.Errorf("transient pair %s: %s %q %q", r.Target, r.Status, r.Summary, ev)
			}
		}
	}
	if len(res.Hosts) != 1 || res.Hosts[0].Target != "h3" || res.Hosts[0].ID != IDHost || res.Hosts[0].Status != checks.StatusFail {
		t.Fatalf("host verdicts %+v, want h3 alone", res.Hosts)
	}
	if ev := strings.Join(res.Hosts[0].Evidence, "\n"); strings.Count(ev, "re-test h3 with known-good") != DefaultPartners {
		t.Errorf("h3's verdict cites %q, want its %d re-tests", ev, DefaultPartners)
	}
	// Re-tests: h3 against two good partners, and h1↔h2 once more.
	if got := s.calls["h1<->h2"]; got != 2 {
		t.Errorf("h1<->h2 ran %d times, want 2", got)
	}
	if len(res.Retests) != DefaultPartners+1 {
		t.Errorf("%d re-tests: %v", len(res.Retests), s.order[6:])
	}
	// Every test that ran keeps its own verdict for the localiser: the
	// transient pair's first run failed (completion error) though its
	// pair passes; h3's tests carry their loss as counter kinds.
	if len(res.First) != len(res.Runs) || len(res.RetestResults) != len(res.Retests) {
		t.Fatalf("%d first verdicts for %d runs, %d re-test verdicts for %d re-tests", len(res.First), len(res.Runs), len(res.RetestResults), len(res.Retests))
	}
	for i, r := range res.First {
		switch {
		case r.Target == "h1/rxe0->h2/rxe0" || r.Target == "h2/rxe0->h1/rxe0":
			if r.Status != checks.StatusFail || r.Class != checks.CompletionError || res.Results[i].Status != checks.StatusPass {
				t.Errorf("first run of %s: %s %s (pair %s), want its own completion error", r.Target, r.Status, r.Class, res.Results[i].Status)
			}
		case strings.Contains(r.Target, "h3/"):
			if !slices.Contains(r.CounterKinds, string(evaluate.SeqError)) || !slices.Contains(r.CounterKinds, string(evaluate.OutOfSequence)) {
				t.Errorf("first run of %s: counter kinds %v, want sequence-error and out-of-sequence", r.Target, r.CounterKinds)
			}
		}
	}
	for _, r := range res.RetestResults {
		if strings.Contains(r.Target, "h3/") && r.Status == checks.StatusFail && !slices.ContainsFunc(r.CounterKinds, func(k string) bool { return evaluate.Kind(k).Loss() }) {
			t.Errorf("re-test %s: counter kinds %v, want a loss kind", r.Target, r.CounterKinds)
		}
	}
}

// TestConfirmHealthyFleetUnderLoad: on a healthy fleet the first runs of
// one host all stumble (completion errors under load); its re-tests with
// known-good partners pass, so it is not blamed, its pairs run again, pass,
// and the sweep passes.
func TestConfirmHealthyFleetUnderLoad(t *testing.T) {
	s := &scripted{behave: func(a, b string, n int) (float64, map[string]uint64, bool) {
		return 0.05, nil, (a == "h2" || b == "h2") && n == 1
	}}
	res, err := verdictSweep(s).Pairwise(t.Context(), scriptedFleet(4))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Results {
		if r.Status != checks.StatusPass {
			t.Errorf("%s: %s %s %q", r.Target, r.Status, r.Summary, r.Evidence)
		}
	}
	if len(res.Hosts) != 0 {
		t.Errorf("blamed %+v on a healthy fleet", res.Hosts)
	}
}

// TestConfirmPathBetweenTwoGoodHosts: h1↔h4 fails every time while both
// pass with everybody else: no host is blamed, the pair fails, and the
// verdict says the path between them is at fault.
func TestConfirmPathBetweenTwoGoodHosts(t *testing.T) {
	s := &scripted{behave: func(a, b string, n int) (float64, map[string]uint64, bool) {
		if key(a, b) == "h1<->h4" {
			return 0.05, map[string]uint64{"h1": 30, "h4": 30}, false
		}
		return 0.05, nil, false
	}}
	res, err := verdictSweep(s).Pairwise(t.Context(), scriptedFleet(4))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Results {
		bad := strings.Contains(r.Target, "h1/") && strings.Contains(r.Target, "h4/")
		if bad != (r.Status == checks.StatusFail) {
			t.Errorf("%s: %s %s", r.Target, r.Status, r.Summary)
		}
		if bad && !strings.Contains(r.Summary, "the fault is on the path between them") {
			t.Errorf("%s: %q", r.Target, r.Summary)
		}
	}
	if len(res.Hosts) != 0 {
		t.Errorf("blamed %+v", res.Hosts)
	}
}

// TestConfirmTwoHostsCannotBlame: with two hosts there is no known-good
// partner: the failure stands, unblamed, and says it was not re-tested.
func TestConfirmTwoHostsCannotBlame(t *testing.T) {
	s := &scripted{behave: func(a, b string, n int) (float64, map[string]uint64, bool) {
		return 0.05, map[string]uint64{"h2": 50}, false
	}}
	res, err := verdictSweep(s).Pairwise(t.Context(), scriptedFleet(2))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Results) != 1 || res.Results[0].Status != checks.StatusFail || len(res.Hosts) != 0 ||
		!slices.ContainsFunc(res.Results[0].Evidence, func(e string) bool { return strings.Contains(e, "no known-good partner") }) {
		t.Errorf("%+v hosts %+v", res.Results, res.Hosts)
	}
}
