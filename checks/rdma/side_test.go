package rdma

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fabricctl/fabricctl/checks"
	"github.com/fabricctl/fabricctl/checks/perftest"
)

func sideJob(port int, peer string) Job {
	gid := 1
	srv := Endpoint{Host: "h1", Address: "127.0.0.1", Device: "rxe0", Port: 1, GIDIndex: &gid}
	cli := Endpoint{Host: "h2", Address: peer, Device: "rxe0", Port: 1, GIDIndex: &gid}
	return Job{Server: srv, Client: cli, Test: Test{Test: perftest.WriteBW, Size: 65536, Iterations: 1000, Timeout: 20 * time.Second}, TCPPort: port}
}

// TestRunSideClientBeforeServer: the two sides of a launcher step start in any order; a client
// that finds nobody listening yet ("Couldn't connect to") runs again until its server listens.
func TestRunSideClientBeforeServer(t *testing.T) {
	usePath(t, fakePath(t, ""))
	t.Setenv("FAKE_LISTEN_DELAY", "600ms")
	srvAgent, cliAgent := newAgent(t), newAgent(t)
	j := sideJob(freePort(t), "127.0.0.1")
	var wg sync.WaitGroup
	var so, co Outcome
	// the server listens only 600 ms after its start: the client finds nobody at first
	wg.Go(func() { co = cliAgent.RunSide(t.Context(), j, Client, "c") })
	wg.Go(func() { so = srvAgent.RunSide(t.Context(), j, Server, "s") })
	wg.Wait()
	if co.ExitCode != 0 || so.ExitCode != 0 {
		t.Fatalf("client %d %q %q, server %d %q", co.ExitCode, co.Stderr, co.Error, so.ExitCode, so.Stderr)
	}
	r := PairRun{Server: j.Server, Client: j.Client, Test: j.Test, ServerOut: &so, ClientOut: &co}
	if v, ok := r.Value(); !ok || v <= 0 {
		t.Errorf("no bandwidth from the pair: %v %v", v, ok)
	}
}

// TestRunSideClientGivesUp: without a server the client stops retrying after its readiness
// bound and reports the out-of-band connect failure.
func TestRunSideClientGivesUp(t *testing.T) {
	usePath(t, fakePath(t, ""))
	j := sideJob(freePort(t), "127.0.0.1")
	j.Test.Timeout = 2 * time.Second // readiness bound: 1 s
	t0 := time.Now()
	co := newAgent(t).RunSide(t.Context(), j, Client, "c")
	if d := time.Since(t0); d < time.Second || d > 10*time.Second {
		t.Errorf("client gave up after %s, want about 1 s", d)
	}
	r := PairRun{Server: j.Server, Client: j.Client, Test: j.Test, ServerOut: &Outcome{ExitCode: -1, Stopped: true}, ClientOut: &co}
	if f, failed := r.Failure(); !failed || f.Class != checks.OOBConnect || !strings.Contains(co.Stdout+co.Stderr, "Couldn't connect") {
		t.Errorf("failure %+v %v; client output %q", f, failed, co.Stdout+co.Stderr)
	}
}

func TestRunLoopback(t *testing.T) {
	usePath(t, fakePath(t, ""))
	gid := 1
	e := Endpoint{Host: "h1", Address: "10.0.0.1", Device: "rxe0", Port: 1, GIDIndex: &gid}
	j := Job{Server: e, Client: e, Test: Test{Test: perftest.WriteBW, Iterations: 1000, Timeout: 20 * time.Second}, TCPPort: freePort(t)}
	if !j.Loopback() || j.ClientSpec().Peer != "127.0.0.1" {
		t.Fatalf("loopback job: %+v", j.ClientSpec())
	}
	so, co := newAgent(t).RunLoopback(t.Context(), j, "l")
	if so.ExitCode != 0 || co.ExitCode != 0 || so.Role != Server || co.Role != Client {
		t.Errorf("loopback: server %+v client %+v", so, co)
	}
}
