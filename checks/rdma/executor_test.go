package rdma

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/fabricctl/fabricctl/checks"
	"github.com/fabricctl/fabricctl/checks/perftest"
	"github.com/fabricctl/fabricctl/checks/schedule"
)

// recordingExecutor runs nothing: it records the rounds and answers every job with a run of
// bw Gb/s, except that it leaves out the last job of a round when short is set.
type recordingExecutor struct {
	mu     sync.Mutex
	rounds [][]Job
	short  bool
}

const execTable = `---------------------------------------------------------------------------------------
 #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]
 65536      1000             10.00              9.50   		   0.018
---------------------------------------------------------------------------------------
`

func (e *recordingExecutor) RunRound(_ context.Context, jobs []Job) []PairRun {
	e.mu.Lock()
	e.rounds = append(e.rounds, jobs)
	e.mu.Unlock()
	var out []PairRun
	for _, j := range jobs {
		out = append(out, PairRun{Server: j.Server, Client: j.Client, Test: j.Test, TCPPort: j.TCPPort, Attempts: 1,
			ServerOut: &Outcome{ID: "s", Role: Server}, ClientOut: &Outcome{ID: "c", Role: Client, Stdout: execTable}})
	}
	if e.short && len(out) > 0 {
		out = out[:len(out)-1]
	}
	return out
}

func TestSweepThroughAnExecutor(t *testing.T) {
	broken := &checks.Result{ID: "preflight/port-active", Target: "h3/rxe0", Status: checks.StatusFail, Class: checks.PortDown, Summary: "port 1 is DOWN"}
	var eps []Endpoint
	for _, h := range []string{"h1", "h2", "h3", "h4"} {
		e := Endpoint{Host: h, Device: "rxe0", Port: 1}
		if h == "h3" {
			e.Problem = broken
		}
		eps = append(eps, e)
	}
	ex := &recordingExecutor{}
	sw := Sweep{Test: Test{Test: perftest.WriteBW}, Schedule: schedule.KindAllPairs, Executor: ex}
	res, err := sw.Pairwise(t.Context(), eps)
	if err != nil {
		t.Fatal(err)
	}
	if len(ex.rounds) != 3 {
		t.Fatalf("%d rounds reached the executor, want 3", len(ex.rounds))
	}
	for _, r := range ex.rounds {
		for _, j := range r {
			if j.Blocked() != nil {
				t.Errorf("blocked job %s/%s reached the executor", j.Server.Host, j.Client.Host)
			}
		}
	}
	for i, r := range res.Runs {
		bad := r.Server.Host == "h3" || r.Client.Host == "h3"
		if got := res.Results[i].Status; bad != (got == checks.StatusFail) || (!bad && got != checks.StatusPass) {
			t.Errorf("%s: %s %s", r.Target(), got, res.Results[i].Summary)
		}
	}

	// an executor that loses a job: that run is undecided, not passed
	res = (Sweep{Test: Test{Test: perftest.WriteBW}, Executor: &recordingExecutor{short: true}}).Loopback(t.Context(), eps[:2])
	if res.Runs[1].Err == nil || !errors.Is(res.Runs[1].Err, ErrNoRun) || res.Results[1].Status != checks.StatusError {
		t.Errorf("lost job: %v %s", res.Runs[1].Err, res.Results[1].Status)
	}
}

// slowTable is a run at 3 Gb/s, below 93 % of the 9.5 Gb/s of execTable.
var slowTable = strings.Replace(execTable, "9.50", "3.00", 1)

// slowExecutor answers like recordingExecutor, but runs with host slow at 3 Gb/s.
type slowExecutor struct {
	recordingExecutor
	slow string
}

func (e *slowExecutor) RunRound(ctx context.Context, jobs []Job) []PairRun {
	out := e.recordingExecutor.RunRound(ctx, jobs)
	for i := range out {
		if out[i].Server.Host == e.slow || out[i].Client.Host == e.slow {
			out[i].ClientOut.Stdout = slowTable
		}
	}
	return out
}

// TestExtraRounds: further rounds after a sweep (a localiser's re-tests)
// go through the sweep's executor on its ports and are judged against the
// sweep's best; a round that names an unknown endpoint or one endpoint
// twice runs nothing.
func TestExtraRounds(t *testing.T) {
	var eps []Endpoint
	for _, h := range []string{"h1", "h2", "h3", "h4"} {
		eps = append(eps, Endpoint{Host: h, Device: "rxe0", Port: 1})
	}
	ex := &slowExecutor{slow: "h4"}
	sw := Sweep{Test: Test{Test: perftest.WriteBW}, BasePort: 20000, Executor: ex, Thresholds: Thresholds{RelativeFloor: 0.93}}
	res, err := sw.Pairwise(t.Context(), eps[:3]) // h4 not in the sweep: its best is 9.5
	if err != nil {
		t.Fatal(err)
	}
	ex.rounds = nil
	rounds := []schedule.Round{{{Server: "h1", Client: "h2"}, {Server: "h3", Client: "h4"}}, {{Server: "h4", Client: "h1"}}}
	runs, results, err := sw.Extra(t.Context(), eps, rounds, res)
	if err != nil {
		t.Fatal(err)
	}
	if len(ex.rounds) != 2 || len(ex.rounds[0]) != 2 || ex.rounds[0][1].TCPPort != 20001 || ex.rounds[1][0].TCPPort != 20000 {
		t.Fatalf("rounds at the executor: %+v", ex.rounds)
	}
	if len(runs) != 3 || len(results) != 3 {
		t.Fatalf("%d runs, %d verdicts", len(runs), len(results))
	}
	for i, want := range []checks.Status{checks.StatusPass, checks.StatusWarn, checks.StatusWarn} {
		if results[i].Status != want && !(want == checks.StatusWarn && results[i].Status == checks.StatusFail) {
			t.Errorf("%s: %s (%s), want %s", runs[i].Target(), results[i].Status, results[i].Summary, want)
		}
	}
	ex.rounds = nil
	for _, bad := range []schedule.Round{{{Server: "h1", Client: "h9"}}, {{Server: "h1", Client: "h2"}, {Server: "h1", Client: "h3"}}} {
		if _, _, err := sw.Extra(t.Context(), eps, []schedule.Round{bad}, res); !errors.Is(err, ErrExtraPair) {
			t.Errorf("%v: err %v", bad, err)
		}
	}
	if len(ex.rounds) != 0 {
		t.Errorf("a refused round ran: %+v", ex.rounds)
	}
}
