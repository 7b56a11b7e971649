package rdma

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/fabricctl/fabricctl/checks"
	"github.com/fabricctl/fabricctl/checks/perftest"
)

// TestIncastThreeToOne: three clients write to one server endpoint at
// once, each on its own port, and each run measures; the perftest argv
// carries -q and the traffic class.
func TestIncastThreeToOne(t *testing.T) {
	usePath(t, fakePath(t, ""))
	eps, _ := fleet(t, nil, nil)
	tc := 106
	test := Test{Test: perftest.WriteBW, Iterations: 100, QPs: 2, TClass: &tc, Timeout: 20 * time.Second}
	base := freePort(t)
	var jobs []Job
	for i, c := range eps[1:] {
		jobs = append(jobs, Job{Server: eps[0], Client: c, TCPPort: base + i})
	}
	var told int
	sw := Sweep{Test: test, Progress: func(done, total int, r PairRun) { told++ }}
	runs, err := sw.Incast(t.Context(), jobs)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 3 || told != 3 {
		t.Fatalf("%d runs, progress told %d times; want 3", len(runs), told)
	}
	for i, r := range runs {
		res := Judge(r, Thresholds{})
		if res.Status != checks.StatusPass || r.Client.Host != jobs[i].Client.Host || r.TCPPort != jobs[i].TCPPort {
			t.Errorf("run %d: %s %s (%s) port %d", i, r.Target(), res.Status, res.Summary, r.TCPPort)
		}
		if r.ClientOut == nil {
			t.Fatalf("no client: server %+v", r.ServerOut)
		}
		argv := strings.Join(r.ClientOut.Argv, " ")
		if !strings.Contains(argv, "-q 2") || !strings.Contains(argv, "--tclass=106") {
			t.Errorf("client argv %q lacks -q 2 or --tclass=106", argv)
		}
	}
}

// TestIncastRefuses: a host both sending and receiving, or one server port
// used twice (or a retry's port), is refused before anything runs.
func TestIncastRefuses(t *testing.T) {
	eps := []Endpoint{{Host: "h1"}, {Host: "h2"}, {Host: "h3"}}
	test := Test{Test: perftest.WriteBW}
	for _, c := range []struct {
		jobs []Job
		want string
	}{
		{[]Job{{Server: eps[0], Client: eps[1], Test: test, TCPPort: 18600}, {Server: eps[1], Client: eps[2], Test: test, TCPPort: 18601}}, "h2 would both receive and send"},
		{[]Job{{Server: eps[0], Client: eps[1], Test: test, TCPPort: 18600}, {Server: eps[0], Client: eps[2], Test: test, TCPPort: 18600}}, "TCP port 18600 is taken"},
		{[]Job{{Server: eps[0], Client: eps[1], Test: test, TCPPort: 18600}, {Server: eps[0], Client: eps[2], Test: test, TCPPort: 18600 + portStride}}, "is taken by another job on h1"},
	} {
		runs, err := (Sweep{}).Incast(t.Context(), c.jobs)
		if !errors.Is(err, ErrIncastRound) || !strings.Contains(err.Error(), c.want) || runs != nil {
			t.Errorf("%v: %v, want %q", c.jobs, err, c.want)
		}
	}
	// Two servers on two hosts, each with its own port range, are fine to plan.
	if _, err := (Sweep{}).Incast(t.Context(), nil); err != nil {
		t.Errorf("an empty round: %v", err)
	}
}
