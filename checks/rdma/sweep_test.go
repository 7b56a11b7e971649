package rdma

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/fabricctl/fabricctl/agent"
	"github.com/fabricctl/fabricctl/agent/agentclient"
	"github.com/fabricctl/fabricctl/checks"
	"github.com/fabricctl/fabricctl/checks/evaluate"
	"github.com/fabricctl/fabricctl/checks/perftest"
	"github.com/fabricctl/fabricctl/checks/rdma/rdmatest"
)

// fleet builds one in-process agent per host, all on this machine; each
// endpoint's device name steers the fake perftest (slow*, hang*).
func fleet(t *testing.T, devs map[string]string, mutate func(host string, a *Agent, e *Endpoint)) ([]Endpoint, []*Agent) {
	t.Helper()
	var eps []Endpoint
	var agents []*Agent
	gid := 1
	for _, h := range []string{"h1", "h2", "h3", "h4"} {
		dev, ok := devs[h]
		if !ok {
			dev = "rxe0"
		}
		a := &Agent{StateDir: t.TempDir()}
		e := Endpoint{Host: h, Address: "127.0.0.1", Device: dev, GIDIndex: &gid, RateGbps: 10}
		if mutate != nil {
			mutate(h, a, &e)
		}
		a.Sys = rdmatest.Sys(t, e.Device) // the host has the device the endpoint names
		hd := &agent.Handler{}
		a.Register(hd)
		e.Agent = agentclient.Local{Handler: hd}
		eps = append(eps, e)
		agents = append(agents, a)
	}
	t.Cleanup(func() {
		for _, a := range agents {
			if ids := a.Running(); len(ids) > 0 {
				t.Errorf("perftest processes left running: %v", ids)
			}
		}
	})
	return eps, agents
}

func byTarget(res SweepResult) map[string]checks.Result {
	m := map[string]checks.Result{}
	for _, r := range res.Results {
		m[r.Target] = r
	}
	return m
}

func TestPairwiseFlagsExactlyTheSlowHost(t *testing.T) {
	usePath(t, fakePath(t, ""))
	eps, _ := fleet(t, map[string]string{"h3": "slowrxe0"}, nil)
	sw := Sweep{Test: Test{Test: perftest.WriteBW, Iterations: 100, Timeout: 20 * time.Second}, Retest: true, BasePort: freePort(t)}
	var progress int
	sw.Progress = func(done, total int, r PairRun) { progress++ }
	res, err := sw.Pairwise(t.Context(), eps)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Plan.Rounds) != 3 || len(res.Results) != 6 {
		t.Fatalf("%d rounds, %d results; want 3 rounds of 2 pairs", len(res.Plan.Rounds), len(res.Results))
	}
	for _, r := range res.Results {
		involved := strings.Contains(r.Target, "h3/")
		bw, _ := r.Measurement(MeasBWAverage)
		switch {
		case involved && (r.Status != checks.StatusFail || r.Class != checks.LowBandwidth):
			t.Errorf("%s: %s %s (%s), want a confirmed low-bandwidth failure", r.Target, r.Status, r.Class, r.Summary)
		case !involved && r.Status != checks.StatusPass:
			t.Errorf("%s: %s %s (%s), want pass", r.Target, r.Status, r.Class, r.Summary)
		case !involved && bw.Value != 0.25:
			t.Errorf("%s: bandwidth %v", r.Target, bw)
		}
		if involved && !strings.Contains(strings.Join(r.Evidence, "\n"), "re-test") {
			t.Errorf("%s: no re-test evidence: %q", r.Target, r.Evidence)
		}
	}
	if len(res.Retests) != DefaultPartners {
		t.Errorf("%d re-tests, want the suspect against %d good partners", len(res.Retests), DefaultPartners)
	}
	if progress != 6+len(res.Retests) {
		t.Errorf("progress told %d times", progress)
	}
}

// TestBadInputKeepsTheSweepGoing: a host without perftest, a host whose
// perftest hangs, a host unreachable on the OOB port; every pair of theirs
// ends with its cause, the healthy pair passes, and nothing is left running.
func TestBadInputKeepsTheSweepGoing(t *testing.T) {
	usePath(t, fakePath(t, ""))
	eps, _ := fleet(t, map[string]string{"h2": "hang0"}, func(h string, a *Agent, e *Endpoint) {
		switch h {
		case "h1":
			a.LookPath = func(string) (string, error) {
				return "", errors.New(`exec: "ib_write_bw": executable file not found in $PATH`)
			}
		case "h3":
			e.Address = "192.0.2.1" // TEST-NET-1: nobody answers
		}
	})
	// 4 s bounds: with 2 s, a loaded machine (make test beside other work on
	// 2 cores) once started a healthy fake server too late and its pairs
	// read setup-timeout.
	sw := Sweep{Test: Test{Test: perftest.WriteBW, Iterations: 100, Timeout: 4 * time.Second}, BasePort: freePort(t)}
	t0 := time.Now()
	res, err := sw.Pairwise(t.Context(), eps)
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(t0); took > 60*time.Second {
		t.Errorf("sweep took %s with 4 s bounds", took)
	}
	want := map[string]checks.FailureClass{}
	for _, r := range res.Runs {
		p := r.Server.Host + r.Client.Host
		switch {
		case strings.Contains(p, "h1"):
			want[r.Target()] = checks.MissingTool
		case r.Server.Host == "h2":
			// The server never listened: nothing about the link was tested.
			want[r.Target()] = checks.SetupTimeout
		case r.Client.Host == "h2":
			want[r.Target()] = checks.Timeout
		case r.Server.Host == "h3":
			want[r.Target()] = checks.OOBConnect
		default:
			want[r.Target()] = ""
		}
	}
	for target, r := range byTarget(res) {
		if r.Class != want[target] {
			t.Errorf("%s: %s class %q (%s), want class %q", target, r.Status, r.Class, r.Summary, want[target])
		}
		if want[target] == "" && r.Status != checks.StatusPass {
			t.Errorf("%s: %s, want pass", target, r.Status)
		}
		// Measurement failures are errors of the measurement, never
		// verdicts on the link.
		if c := want[target]; c.Measurement() != (r.Status == checks.StatusError) && c != "" {
			t.Errorf("%s: %s class %s: measurement failures are errors, link failures fail", target, r.Status, c)
		}
	}
	if strays := strayFakes(t); len(strays) > 0 {
		t.Errorf("stray perftest processes: %v", strays)
	}
}

// strayFakes lists processes of this test binary running as ib_*.
func strayFakes(t *testing.T) []string {
	t.Helper()
	self, _ := os.Executable()
	entries, _ := os.ReadDir("/proc")
	var out []string
	for _, e := range entries {
		exe, err := os.Readlink("/proc/" + e.Name() + "/exe")
		if err != nil || exe != self {
			continue
		}
		cmd, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if strings.Contains(string(cmd), "ib_") {
			if st, err := os.ReadFile("/proc/" + e.Name() + "/stat"); err == nil && !strings.Contains(string(st), ") Z") {
				out = append(out, e.Name()+":"+strings.ReplaceAll(string(cmd), "\x00", " "))
			}
		}
	}
	return out
}

func TestLoopbackRunsEveryHost(t *testing.T) {
	usePath(t, fakePath(t, ""))
	eps, _ := fleet(t, nil, nil)
	sw := Sweep{Test: Test{Test: perftest.WriteBW, Iterations: 100, Timeout: 20 * time.Second}, BasePort: freePort(t),
		Thresholds: Thresholds{MinPercentOfPortRate: 1}}
	res := sw.Loopback(t.Context(), eps)
	if len(res.Results) != 4 {
		t.Fatalf("%d results", len(res.Results))
	}
	for _, r := range res.Results {
		if r.ID != "loopback/write_bw" || r.Status != checks.StatusPass || strings.Contains(r.Target, "->") {
			t.Errorf("%s %s: %s %s", r.ID, r.Target, r.Status, r.Summary)
		}
	}
	sw.Thresholds.MinPercentOfPortRate = 50 // 0.25 of 10 Gb/s is 2.5%
	sw.BasePort = freePort(t)
	res = sw.Loopback(context.WithoutCancel(t.Context()), eps)
	for _, r := range res.Results {
		if r.Status != checks.StatusFail || r.Class != checks.LowBandwidth {
			t.Errorf("%s: %s %s, want the absolute floor to fail", r.Target, r.Status, r.Summary)
		}
	}
}

// TestCounterEvidenceAgainstHealthyBaseline: soft RoCE retransmits a little
// everywhere; a side is judged against the spread (per GB moved) of the runs
// its host took no part in, so the lossy host's own runs never excuse it and
// only its pairs are flagged, with the counter and the baseline named.
func TestCounterEvidenceAgainstHealthyBaseline(t *testing.T) {
	mk := func(srv, cli string, gbps float64, retries uint64) PairRun {
		out := func(role Role, moved uint64) *Outcome {
			return &Outcome{Role: role, Stdout: rdmatest.Table("rxe0", gbps),
				Before: evaluate.Counters{"completer_retry_err": 100, "out_of_seq_request": 7, "sent_pkts": 1},
				After:  evaluate.Counters{"completer_retry_err": 100 + moved, "out_of_seq_request": 7 + moved/2, "sent_pkts": 9000}}
		}
		return PairRun{Server: Endpoint{Host: srv, Device: "rxe0"}, Client: Endpoint{Host: cli, Device: "rxe0"},
			Test: Test{Test: perftest.WriteBW, Duration: 5 * time.Second}, ServerOut: out(Server, retries), ClientOut: out(Client, retries)}
	}
	runs := []PairRun{
		mk("h2", "h3", 0.25, 13), mk("h3", "h4", 0.24, 25), mk("h2", "h4", 0.25, 14), // emulation noise
		mk("h1", "h2", 0.24, 400), mk("h3", "h1", 0.25, 900), mk("h1", "h4", 0.23, 350),
	}
	rules := evaluate.Rules{Sigma: DefaultSigma, MinEvents: DefaultMinEvents}
	results := newSweepJudge(runs, Thresholds{}, rules, nil).judgeAll(runs)
	for i, r := range results {
		lossy := strings.Contains(r.Target, "h1/")
		ev := strings.Join(r.Evidence, "\n")
		if lossy != (r.Status == checks.StatusFail && r.Class == checks.CounterEvidence) {
			t.Errorf("%s (run %d): %s %s %q", r.Target, i, r.Status, r.Class, r.Evidence)
		}
		if lossy && (!strings.Contains(ev, "lab-h1") && !strings.Contains(ev, "h1/rxe0: completer_retry_err") || !strings.Contains(ev, "healthy baseline")) {
			t.Errorf("%s: evidence does not name h1's counter and the baseline: %q", r.Target, ev)
		}
	}
	// The same counts judged as a given baseline of these healthy runs.
	healthy := newSweepJudge(runs[:3], Thresholds{}, rules, nil)
	base := healthy.passedSpreads(runs[:3], healthy.judgeAll(runs[:3]))
	if base.Samples != 6 || base.PerGB["completer_retry_err"].N != 6 {
		t.Fatalf("baseline of the healthy runs: %+v", base)
	}
	for _, r := range newSweepJudge(runs, Thresholds{}, rules, &base).judgeAll(runs) {
		if lossy := strings.Contains(r.Target, "h1/"); lossy != (r.Status == checks.StatusFail) {
			t.Errorf("against the given baseline, %s: %s %s", r.Target, r.Status, r.Summary)
		}
	}
}

// TestCounterEvidenceWhenMostPairsShareAFault: the two-leaf lab with its
// inter-leaf link at 5 % loss (h1, h2 on leaf-01; h3, h4 on leaf-02), with
// the numbers measured there: the 4 crossing pairs fell to ~0.004 Gb/s and
// moved the sequence counters 59-84 each; the 2 same-leaf pairs ran at
// 0.044 Gb/s and moved them 0-2. Every host's baseline (the runs it took no
// part in) is 2/3 lossy, so the fleet's spread alone excuses every pair;
// with the declared healthy ceiling exactly the crossing pairs fail on
// their counters, and the same-leaf pairs still pass.
func TestCounterEvidenceWhenMostPairsShareAFault(t *testing.T) {
	mk := func(srv, cli string, gbps float64, seq uint64) PairRun {
		out := func(role Role) *Outcome {
			return &Outcome{Role: role, Stdout: rdmatest.Table("rxe0", gbps),
				Before: evaluate.Counters{"out_of_seq_request": 3, "rcvd_seq_err": 5, "sent_pkts": 1},
				After:  evaluate.Counters{"out_of_seq_request": 3 + seq, "rcvd_seq_err": 5 + seq - seq/8, "sent_pkts": 9000}}
		}
		return PairRun{Server: Endpoint{Host: srv, Device: "rxe0"}, Client: Endpoint{Host: cli, Device: "rxe0"},
			Test: Test{Test: perftest.WriteBW, Duration: 5 * time.Second}, ServerOut: out(Server), ClientOut: out(Client)}
	}
	leaf := map[string]int{"h1": 1, "h2": 1, "h3": 2, "h4": 2}
	runs := []PairRun{
		mk("h1", "h4", 0.38, 67), mk("h2", "h3", 0.35, 78), // round 1
		mk("h3", "h1", 0.38, 84), mk("h4", "h2", 0.42, 65), // round 2
		mk("h1", "h2", 4.4, 2), mk("h3", "h4", 4.4, 0), // round 3
	}
	crossing := func(r checks.Result) bool {
		var hs []int
		for h, l := range leaf {
			if strings.Contains(r.Target, h+"/") {
				hs = append(hs, l)
			}
		}
		return len(hs) == 2 && hs[0] != hs[1]
	}
	// The lab's floors (1 % of the port rate, 2 % of the best), everything
	// ×100 because the fake perftest table prints two decimals.
	th := Thresholds{MinPercentOfPortRate: 1, PortRateGbps: 10, RelativeFloor: 0.02}
	rules := evaluate.Rules{Sigma: DefaultSigma, MinEvents: DefaultMinEvents}
	for _, r := range newSweepJudge(runs, th, rules, nil).judgeAll(runs) {
		if r.Status == checks.StatusFail && r.Class == checks.CounterEvidence {
			t.Fatalf("without a ceiling the lossy baseline should excuse %s (the gap): %q", r.Target, r.Evidence)
		}
	}
	rules.MaxHealthyPerTest = 8
	for _, r := range newSweepJudge(runs, th, rules, nil).judgeAll(runs) {
		if got := r.Status == checks.StatusFail && r.Class == checks.CounterEvidence; got != crossing(r) {
			t.Errorf("%s: %s %s %q (crossing: %v)", r.Target, r.Status, r.Class, r.Evidence, crossing(r))
		}
		if crossing(r) && !strings.Contains(strings.Join(r.Evidence, "\n"), "declared healthy ceiling of 8") {
			t.Errorf("%s: evidence does not name the ceiling: %q", r.Target, r.Evidence)
		}
	}
}

// TestZeroBandwidthFails: perftest in duration mode ends on time even on a
// black-holed path and prints 0 Gb/s; that is a failure, floor or not.
func TestZeroBandwidthFails(t *testing.T) {
	run := PairRun{Server: Endpoint{Host: "a", Device: "rxe0"}, Client: Endpoint{Host: "b", Device: "rxe0"},
		Test: Test{Test: perftest.WriteBW}, ServerOut: &Outcome{Role: Server}, ClientOut: &Outcome{Role: Client, Stdout: rdmatest.Table("rxe0", 0)}}
	if r := Judge(run, Thresholds{}); r.Status != checks.StatusFail || r.Class != checks.LowBandwidth {
		t.Errorf("0 Gb/s: %s %s %s", r.Status, r.Class, r.Summary)
	}
}
