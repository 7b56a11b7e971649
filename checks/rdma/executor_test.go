package rdma

import (
	"context"
	"errors"
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
