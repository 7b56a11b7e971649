package rdma

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fabricctl/fabricctl/agent/agentclient"
	"github.com/fabricctl/fabricctl/checks"
	"github.com/fabricctl/fabricctl/checks/perftest"
)

// Endpoint is one host's side of a test, as the controller knows it from
// preflight.
type Endpoint struct {
	// Host is the fabric's name of the host.
	Host  string
	Agent agentclient.Agent
	// Address is where a client reaches this host's perftest server (the
	// out-of-band TCP exchange): the host's fabric address.
	Address string
	// Device and Port are the RDMA device and port (1 when 0).
	Device string
	Port   int
	// GIDIndex is the RoCE v2 IPv4 GID index (perftest -x); nil on InfiniBand.
	GIDIndex *int
	// RateGbps is the port rate sysfs reports, for the absolute floor.
	RateGbps float64
	// Labels are the host's fabric labels (the cross-leaf schedule reads "leaf").
	Labels map[string]string
	// Problem, when set, is the preflight result that makes this endpoint
	// unusable (port down, no RoCE v2 GID, agent unreachable): its tests do
	// not run and fail with the problem's class.
	Problem *checks.Result
	// LoopDevice is a second device for loopback tests ("" = Device).
	LoopDevice string
}

// Name is "host/device", the form Result targets use.
func (e Endpoint) Name() string { return e.Host + "/" + e.Device }

// Test says which perftest to run and for how long.
type Test struct {
	Test       perftest.Test
	Size       int64         // -s (0: perftest's default)
	Duration   time.Duration // -D (whole seconds ≥ 5), or
	Iterations int           // -n
	RDMACM     bool          // -R
	// Bidirectional runs traffic both ways (-b): a fault on either host's
	// transmit path shows in every pair it is part of.
	Bidirectional bool
	// TClass, when set, is the GRH traffic class (--tclass), as NCCL_IB_TC
	// sets it for NCCL.
	TClass *int `json:",omitempty"`
	// QPTimeout, when set, is perftest's -u (perftest.Spec.QPTimeout).
	QPTimeout int `json:",omitempty"`
	// FlowLabel, when set, is the GRH flow label both sides carry
	// (perftest --flow_label, 1..0xFFFFF), which on RoCE v2 fixes the UDP
	// source port and so the ECMP path; FlowLabelAuto gives every pair
	// its own (Job.Pinned, PairFlowLabel). docs/pinned-paths.md.
	FlowLabel int `json:",omitempty"`
	// QPs, when set, is perftest's -q: queue pairs per side (bandwidth tests).
	QPs int `json:",omitempty"`
	// Timeout bounds each side from its start; 0 picks twice the duration
	// plus 30 s (or 2 minutes for iteration runs).
	Timeout time.Duration
	// Retries is how often a run that failed for a cause of the measurement
	// itself (Retryable: clock calibration, out-of-band connect, set-up
	// timeout, port in use, a broken agent session) is run again.
	Retries int
}

// describe says what one run of t is: "write_bw 5s bidirectional".
func (t Test) describe() string {
	d := t.Test.String()
	switch {
	case t.Duration > 0:
		d += " " + t.Duration.String()
	case t.Iterations > 0:
		d += fmt.Sprintf(" %d iterations", t.Iterations)
	}
	if t.Bidirectional {
		d += " both ways"
	}
	return d
}

// Bound is how long each side may run: Timeout, or twice the duration plus 30 s (2 minutes for
// iteration runs).
func (t Test) Bound() time.Duration { return t.timeout() }

func (t Test) timeout() time.Duration {
	switch {
	case t.Timeout > 0:
		return t.Timeout
	case t.Duration > 0:
		return 2*t.Duration + 30*time.Second
	}
	return 2 * time.Minute
}

// Spec is the perftest invocation of e's side on device dev: a server when peer is "", else a
// client of the server at peer.
func (t Test) Spec(e Endpoint, dev string, tcpPort int, peer string) perftest.Spec {
	return perftest.Spec{Test: t.Test, Device: dev, IBPort: e.Port, GIDIndex: e.GIDIndex, TClass: t.TClass, FlowLabel: t.literalFlowLabel(), QPTimeout: t.QPTimeout, QPs: t.QPs, TCPPort: tcpPort,
		ReportGbits: t.Test.Kind == perftest.BW, IgnoreFreq: true, Duration: t.Duration, Iterations: t.Iterations,
		Size: t.Size, RDMACM: t.RDMACM, Bidirectional: t.Bidirectional, Peer: peer}
}

// PairRun is what one test between two endpoints produced.
type PairRun struct {
	Server, Client Endpoint
	Test           Test
	TCPPort        int
	// ServerOut and ClientOut are the sides' outcomes; ClientOut is nil when
	// the server never became ready (the client did not run).
	ServerOut, ClientOut *Outcome
	// Err is set when an agent could not be reached or broke the protocol:
	// the test did not decide anything.
	Err error
	// Blocked is the endpoint problem that kept the test from running.
	Blocked *checks.Result
	// Attempts counts runs: a run that failed for a cause of the
	// measurement is run again (Test.Retries).
	Attempts int
	// Retried says why each earlier attempt was run again, oldest first.
	Retried []string
	Wall    time.Duration
}

// Loopback reports whether both sides ran on one host.
func (r PairRun) Loopback() bool { return r.Server.Host == r.Client.Host }

// Failure returns the cause of a failed run: from the outcomes when a side
// could not run or timed out, otherwise from what perftest printed.
func (r PairRun) Failure() (perftest.Failure, bool) {
	if b := r.Blocked; b != nil {
		return perftest.Failure{Class: b.Class, Text: fmt.Sprintf("not run: %s %s: %s", b.ID, b.Target, b.Summary)}, true
	}
	for _, o := range []*Outcome{r.ServerOut, r.ClientOut} {
		if o != nil && o.Class != "" && o.Class != checks.Timeout {
			return perftest.Failure{Class: o.Class, Text: o.Error}, true
		}
	}
	if f, ok := perftest.Cause(r.ServerOut.Report(), r.ClientOut.Report()); ok {
		return f, true
	}
	for _, o := range []*Outcome{r.ClientOut, r.ServerOut} {
		if o != nil && o.TimedOut {
			return perftest.Failure{Class: checks.Timeout, Text: fmt.Sprintf("%s %s", o.Role, o.Error)}, true
		}
	}
	for _, o := range []*Outcome{r.ClientOut, r.ServerOut} {
		if o != nil && o.ExitCode != 0 {
			return perftest.Failure{Class: checks.CompletionError, Text: fmt.Sprintf("%s exited %d: %s", o.Role, o.ExitCode, lastLine(o.Stderr))}, true
		}
	}
	if r.ClientOut == nil {
		return perftest.Failure{Class: checks.OOBConnect, Text: "the client did not run"}, true
	}
	return perftest.Failure{}, false
}

// RunPair runs one test: the server on srv, ready before the client starts
// on cli, both bounded by t's timeout. A run that failed for a cause of the
// measurement (Retryable) is run again, up to t.Retries times; a retry after
// "port in use" moves to tcpPort+portStride×attempt.
func RunPair(ctx context.Context, srv, cli Endpoint, t Test, tcpPort int) PairRun {
	return runPair(ctx, nil, srv, cli, t, func(attempt int) int { return tcpPort + attempt*portStride })
}

// portStride separates the ports of retries from those of first attempts:
// a sweep's concurrent pairs use BasePort+i, i < portStride.
const portStride = 1000

func runPair(ctx context.Context, pool *sessionPool, srv, cli Endpoint, t Test, port func(attempt int) int) PairRun {
	var r PairRun
	if b := (Job{Server: srv, Client: cli}).Blocked(); b != nil {
		return PairRun{Server: srv, Client: cli, Test: t, TCPPort: port(0), Blocked: b}
	}
	var retried []string
	for attempt := 0; ; attempt++ {
		r = runPairOnce(ctx, pool, srv, cli, t, port(attempt))
		r.Attempts, r.Retried = attempt+1, retried
		why, retry := r.Retryable()
		if !retry || attempt >= t.Retries || ctx.Err() != nil {
			return r
		}
		retried = append(slices.Clone(retried), fmt.Sprintf("attempt %d: %s", attempt+1, why))
	}
}

// Retryable reports whether the run failed for a cause of the measurement
// that another attempt may not meet, and says which: perftest's clock
// calibration (unless the run's bandwidth can be taken from its iteration
// count, see Estimated), its out-of-band connect, a server that did not
// listen in time or found its port taken, or an agent session that broke.
// Failures of the link (QP bring-up, completion errors, a test that did
// not finish) and of the set-up (missing tool, bad arguments, no device)
// are not retried.
func (r PairRun) Retryable() (string, bool) {
	if r.Err != nil {
		return r.Err.Error(), true
	}
	if r.Blocked != nil {
		return "", false
	}
	f, failed := r.Failure()
	if !failed {
		return "", false
	}
	switch f.Class {
	case checks.ClockCalibration:
		if _, ok := r.Estimated(); ok {
			return "", false
		}
	case checks.OOBConnect, checks.SetupTimeout, checks.PortInUse:
	default:
		return "", false
	}
	why := f.Class.Describe()
	if f.Detail != "" {
		why += " (" + f.Detail + ")"
	} else if f.Text != "" {
		why += " (" + strings.TrimSpace(f.Text) + ")"
	}
	return why, true
}

// RetryCalibration reports whether the run failed only because perftest's CPU clock calibration
// did (common under emulation): such a run is repeated once.
func (r PairRun) RetryCalibration() bool {
	f, failed := r.Failure()
	return r.Err == nil && failed && f.Class == checks.ClockCalibration
}

// Job is one test of a round: the server and the client (one endpoint twice for a loopback), the
// test and the TCP port of its out-of-band exchange.
type Job struct {
	Server, Client Endpoint
	Test           Test
	TCPPort        int
}

// Loopback reports whether both sides run on one host.
func (j Job) Loopback() bool { return j.Server.Host == j.Client.Host }

// Blocked returns the endpoint problem that keeps the job from running, nil when it can run.
func (j Job) Blocked() *checks.Result {
	for _, e := range []Endpoint{j.Server, j.Client} {
		if e.Problem != nil {
			return e.Problem
		}
	}
	return nil
}

// ServerSpec is the server side's perftest invocation.
func (j Job) ServerSpec() perftest.Spec {
	return j.Pinned().Spec(j.Server, j.Server.Device, j.TCPPort, "")
}

// ClientSpec is the client side's: on LoopDevice against 127.0.0.1 for a loopback, else on the
// client's device against the server's address.
func (j Job) ClientSpec() perftest.Spec {
	dev, peer := j.Client.Device, j.Server.Address
	if j.Loopback() {
		peer = "127.0.0.1"
		if j.Client.LoopDevice != "" {
			dev = j.Client.LoopDevice
		}
	}
	return j.Pinned().Spec(j.Client, dev, j.TCPPort, peer)
}

func runPairOnce(ctx context.Context, pool *sessionPool, srv, cli Endpoint, t Test, tcpPort int) (r PairRun) {
	r = PairRun{Server: srv, Client: cli, Test: t, TCPPort: tcpPort}
	t0 := time.Now()
	defer func() { r.Wall = time.Since(t0) }()
	// The controller's own bound: the agents' bound plus room for SSH.
	ctx, cancel := context.WithTimeout(ctx, t.timeout()+time.Minute)
	defer cancel()
	seq := runSeq.Add(1)
	srvID := fmt.Sprintf("%s-%d-%d-server", t.Test, tcpPort, seq)
	cliID := fmt.Sprintf("%s-%d-%d-client", t.Test, tcpPort, seq)
	job := Job{Server: srv, Client: cli, Test: t, TCPPort: tcpPort}
	ss, releaseS := pool.get(ctx, srv, Server)
	// The client's agent starts (SSH session, process start) while the
	// server comes up; its first request goes out once the server listens.
	cs, releaseC := pool.get(ctx, cli, Client)
	// A session that saw an error may hold an unread reply: never reuse it.
	defer func() { releaseS(r.Err == nil && r.ServerOut != nil); releaseC(r.Err == nil && r.ClientOut != nil) }()
	if err := ss.SendOp(OpStart, StartArgs{ID: srvID, Role: Server, Spec: job.ServerSpec(), Timeout: t.timeout()}); err != nil {
		r.Err = fmt.Errorf("starting the server on %s: %w", srv.Host, err)
		return r
	}
	var started Started
	if err := ss.Recv(ctx, &started); err != nil {
		r.Err = fmt.Errorf("starting the server on %s: %w", srv.Host, err)
		return r
	}
	if started.Outcome != nil {
		r.ServerOut = started.Outcome
		return r
	}

	var cerr error
	if err := cs.SendOp(OpStart, StartArgs{ID: cliID, Role: Client, Spec: job.ClientSpec(), Timeout: t.timeout()}); err != nil {
		cerr = err
	} else if err := cs.SendOp(OpWait, WaitArgs{ID: cliID}); err != nil {
		cerr = err
	}
	if cerr == nil {
		var cst Started
		if err := cs.Recv(ctx, &cst); err != nil {
			cerr = err
		} else if cst.Outcome != nil {
			r.ClientOut = cst.Outcome
			// The wait sent along answers "unknown id"; read it so that the
			// session can serve the next run.
			_ = cs.Recv(ctx, nil)
		} else {
			var out Outcome
			if err := cs.Recv(ctx, &out); err != nil {
				cerr = err
			} else {
				r.ClientOut = &out
			}
		}
	}
	if cerr != nil {
		r.Err = fmt.Errorf("running the client on %s: %w", cli.Host, cerr)
	}
	// A server whose client failed would wait for it until its deadline.
	stop := r.ClientOut == nil || r.ClientOut.ExitCode != 0
	var so Outcome
	err := ss.SendOp(OpWait, WaitArgs{ID: srvID, Stop: stop})
	if err == nil {
		err = ss.Recv(ctx, &so)
	}
	if err != nil {
		r.Err = errors.Join(r.Err, fmt.Errorf("collecting the server on %s: %w", srv.Host, err))
	} else {
		r.ServerOut = &so
	}
	return r
}

func lastLine(s string) string {
	for len(s) > 0 && (s[len(s)-1] == '\n' || s[len(s)-1] == ' ') {
		s = s[:len(s)-1]
	}
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == '\n' {
			return s[i+1:]
		}
	}
	return s
}

// runSeq makes process ids unique within an agent process that serves
// several runs.
var runSeq atomic.Int64

// sessionPool keeps idle agent processes per host for a sweep, so that a
// round does not pay for SSH sessions and agent start-ups again. A session
// serves one run at a time, in either role; a host with two runs at once (a
// loopback) gets two. The nil pool opens a session per run.
type sessionPool struct {
	ctx context.Context // the sessions' lifetime
	mu  sync.Mutex
	m   map[string][]*agentclient.Session
}

func newSessionPool(ctx context.Context) *sessionPool {
	return &sessionPool{ctx: ctx, m: map[string][]*agentclient.Session{}}
}

// get returns a session on e's host; release(true) keeps it for a later
// run, release(false) ends it (it may hold an unread reply).
func (p *sessionPool) get(ctx context.Context, e Endpoint, _ Role) (*agentclient.Session, func(ok bool)) {
	if p == nil {
		s := agentclient.Open(ctx, e.Agent)
		return s, func(bool) { s.Close(context.WithoutCancel(ctx)) }
	}
	p.mu.Lock()
	var s *agentclient.Session
	if idle := p.m[e.Host]; len(idle) > 0 {
		s, p.m[e.Host] = idle[len(idle)-1], idle[:len(idle)-1]
	}
	p.mu.Unlock()
	if s == nil {
		s = agentclient.Open(p.ctx, e.Agent)
	}
	return s, func(ok bool) {
		if !ok {
			s.Close(context.WithoutCancel(ctx))
			return
		}
		p.mu.Lock()
		p.m[e.Host] = append(p.m[e.Host], s)
		p.mu.Unlock()
	}
}

// close ends every pooled session.
func (p *sessionPool) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for k, ss := range p.m {
		for _, s := range ss {
			s.Close(context.WithoutCancel(p.ctx))
		}
		delete(p.m, k)
	}
}
