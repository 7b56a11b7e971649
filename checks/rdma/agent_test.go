package rdma

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fabricctl/fabricctl/agent"
	"github.com/fabricctl/fabricctl/agent/agentclient"
	"github.com/fabricctl/fabricctl/checks"
	"github.com/fabricctl/fabricctl/checks/perftest"
	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/hostcfg/sysfs"
)

// rxeSys is the rxe fixture host of hostcfg (rxe0, port 1, hw_counters).
var rxeSys = sysfs.NewFS(filepath.Join("..", "..", "hostcfg", "testdata", "hosts", "rxe", "sys"))

func usePath(t *testing.T, dir string) {
	t.Helper()
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
}

func newAgent(t *testing.T) *Agent {
	t.Helper()
	a := &Agent{Sys: rxeSys, StateDir: t.TempDir()}
	t.Cleanup(func() {
		if ids := a.Running(); len(ids) > 0 {
			t.Errorf("processes left running: %v", ids)
		}
		a.Cleanup(context.Background())
	})
	return a
}

func spec(port int, peer string) perftest.Spec {
	gid := 1
	return perftest.Spec{Test: perftest.WriteBW, Device: "rxe0", GIDIndex: &gid, TCPPort: port,
		ReportGbits: true, IgnoreFreq: true, Size: 65536, Iterations: 1000, Peer: peer}
}

// alive reports whether pid runs (a zombie does not).
func alive(pid int) bool {
	_, err := procStart("/proc", pid)
	return err == nil
}

func TestServerReadyBeforeClient(t *testing.T) {
	usePath(t, fakePath(t, ""))
	// The server listens only after 400 ms; a client started earlier fails.
	t.Setenv("FAKE_LISTEN_DELAY", "400ms")
	a := newAgent(t)
	ctx := t.Context()
	port := freePort(t)
	st, err := a.Start(ctx, StartArgs{ID: "s", Role: Server, Spec: spec(port, ""), Timeout: 20 * time.Second})
	if err != nil || !st.Ready || st.Outcome != nil {
		t.Fatalf("server start: %+v %v", st, err)
	}
	if !listening("/proc", port, st.PID) {
		t.Fatal("Start returned before the server listened")
	}
	cs, err := a.Start(ctx, StartArgs{ID: "c", Role: Client, Spec: spec(port, "127.0.0.1"), Timeout: 20 * time.Second})
	if err != nil || !cs.Ready {
		t.Fatalf("client start: %+v %v", cs, err)
	}
	co, err := a.Wait(ctx, WaitArgs{ID: "c"})
	if err != nil {
		t.Fatal(err)
	}
	so, err := a.Wait(ctx, WaitArgs{ID: "s"})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range []Outcome{co, so} {
		if o.ExitCode != 0 || o.TimedOut || o.Class != "" {
			t.Fatalf("%s: exit %d timedOut %v class %q stderr %q", o.Role, o.ExitCode, o.TimedOut, o.Class, o.Stderr)
		}
		row, ok := o.Report().Final()
		if !ok || row.BWAverage != 0.25 || row.Bytes != 65536 {
			t.Errorf("%s: report row %+v %v from %q", o.Role, row, ok, o.Stdout)
		}
		if o.Before["sent_pkts"] == 0 && len(o.Before) == 0 || len(o.After) == 0 {
			t.Errorf("%s: counters not read: before %v after %v (%s)", o.Role, o.Before, o.After, o.CounterError)
		}
	}
	if got := strings.Join(co.Argv, " "); !strings.HasPrefix(got, "ib_write_bw -d rxe0 -x 1 -p "+strconv.Itoa(port)) || !strings.HasSuffix(got, " 127.0.0.1") {
		t.Errorf("client argv %q", got)
	}
	if _, err := a.Wait(ctx, WaitArgs{ID: "c"}); !errors.Is(err, ErrUnknownID) {
		t.Errorf("second wait: %v, want ErrUnknownID", err)
	}
}

func TestTimeoutKillsProcessGroup(t *testing.T) {
	usePath(t, fakePath(t, "hang.sh"))
	pidfile := filepath.Join(t.TempDir(), "child")
	t.Setenv("FAKE_CHILD_PIDFILE", pidfile)
	a := newAgent(t)
	t0 := time.Now()
	st, err := a.Start(t.Context(), StartArgs{ID: "c", Role: Client, Spec: spec(18515, "10.0.0.2"), Timeout: 700 * time.Millisecond})
	if err != nil || !st.Ready {
		t.Fatalf("start: %+v %v", st, err)
	}
	out, err := a.Wait(t.Context(), WaitArgs{ID: "c"})
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(t0); took > 5*time.Second {
		t.Errorf("a 700ms bound took %s", took)
	}
	if !out.TimedOut || out.Class != checks.Timeout || out.ExitCode != -1 {
		t.Errorf("outcome: timedOut %v class %q exit %d", out.TimedOut, out.Class, out.ExitCode)
	}
	if !strings.Contains(out.Stdout, "RDMA_Write BW Test") {
		t.Errorf("output before the kill lost: %q", out.Stdout)
	}
	b, err := os.ReadFile(pidfile)
	if err != nil {
		t.Fatal(err)
	}
	child, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	deadline := time.Now().Add(2 * time.Second)
	for alive(child) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if alive(child) {
		syscall.Kill(child, syscall.SIGKILL)
		t.Errorf("the hung perftest's child %d survived the kill: the process group was not killed", child)
	}
	if entries, _ := os.ReadDir(a.StateDir); len(entries) != 0 {
		t.Errorf("pid files left: %v", entries)
	}
}

func TestServerThatNeverListensTimesOut(t *testing.T) {
	usePath(t, fakePath(t, ""))
	t.Setenv("FAKE_PERFTEST", "hang")
	a := newAgent(t)
	st, err := a.Start(t.Context(), StartArgs{ID: "s", Role: Server, Spec: spec(freePort(t), ""),
		Timeout: time.Minute, ReadyTimeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if st.Ready || st.Outcome == nil || st.Outcome.Class != checks.SetupTimeout || !alive(os.Getpid()) {
		t.Fatalf("started: %+v", st)
	}
	if alive(st.PID) {
		t.Errorf("server %d still runs", st.PID)
	}
}

func TestFailuresBecomeOutcomes(t *testing.T) {
	cases := []struct {
		name   string
		script string // "" = no binary at all
		role   Role
		spec   perftest.Spec
		class  checks.FailureClass // from the outcome or its report
	}{
		{"missing binary", "-", Client, spec(18515, "10.0.0.2"), checks.MissingTool},
		{"bad arguments", "", Client, perftest.Spec{Test: perftest.WriteBW, Peer: "10.0.0.2"}, checks.ArgumentError},
		{"peer not listening", "oob.sh", Client, spec(18515, "10.0.0.2"), checks.OOBConnect},
		{"device not found", "baddev.sh", Server, spec(freePortStatic(), ""), checks.NoDevice},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.script == "-" {
				t.Setenv("PATH", t.TempDir())
			} else {
				usePath(t, fakePath(t, c.script))
			}
			a := newAgent(t)
			st, err := a.Start(t.Context(), StartArgs{ID: "x", Role: c.role, Spec: c.spec, Timeout: 10 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			out := st.Outcome
			if out == nil {
				o, err := a.Wait(t.Context(), WaitArgs{ID: "x"})
				if err != nil {
					t.Fatal(err)
				}
				out = &o
			}
			got := out.Class
			if got == "" {
				if f, ok := perftest.Cause(out.Report()); ok {
					got = f.Class
				}
			}
			if got != c.class {
				t.Errorf("class %q, want %q (outcome %+v)", got, c.class, out)
			}
		})
	}
}

func freePortStatic() int { return 20000 + os.Getpid()%20000 }

func TestCleanupKillsStraysOfADeadAgent(t *testing.T) {
	usePath(t, fakePath(t, ""))
	t.Setenv("FAKE_PERFTEST", "hang")
	dir := t.TempDir()
	first := &Agent{Sys: rxeSys, StateDir: dir}
	st, err := first.Start(t.Context(), StartArgs{ID: "c", Role: Client, Spec: spec(18515, "10.0.0.2"), Timeout: time.Hour})
	if err != nil || !st.Ready {
		t.Fatalf("%+v %v", st, err)
	}
	// A later agent process (the first one's SSH session died) cleans up.
	second := &Agent{Sys: rxeSys, StateDir: dir}
	res, err := second.Cleanup(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Killed) != 1 || res.Killed[0] != st.PID {
		t.Errorf("killed %v, want [%d]", res.Killed, st.PID)
	}
	out, _ := first.Wait(t.Context(), WaitArgs{ID: "c"})
	if out.ExitCode != -1 || alive(st.PID) {
		t.Errorf("stray survived: exit %d alive %v", out.ExitCode, alive(st.PID))
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("pid files left: %v", entries)
	}
	// A pid file naming a process that is not the recorded one (reused pid) is not killed.
	os.WriteFile(filepath.Join(dir, strconv.Itoa(os.Getpid())), []byte("1\n"), 0o600)
	if res, _ := second.Cleanup(t.Context()); len(res.Killed) != 0 {
		t.Errorf("cleanup killed %v for a stale pid file", res.Killed)
	}
}

// TestOpsOverTheProtocol drives a pair through two agent.Handlers the way
// the controller does: the server's start and wait go to one agent process.
func TestOpsOverTheProtocol(t *testing.T) {
	usePath(t, fakePath(t, ""))
	t.Setenv("FAKE_LISTEN_DELAY", "200ms")
	srvAgent, cliAgent := newAgent(t), newAgent(t)
	hs, hc := &agent.Handler{}, &agent.Handler{}
	srvAgent.Register(hs)
	cliAgent.Register(hc)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	port := freePort(t)
	s := agentclient.Open(ctx, agentclient.Local{Handler: hs})
	defer s.Close(ctx)
	if err := s.SendOp(OpStart, StartArgs{ID: "s", Role: Server, Spec: spec(port, ""), Timeout: 20 * time.Second}); err != nil {
		t.Fatal(err)
	}
	var st Started
	if err := s.Recv(ctx, &st); err != nil || !st.Ready {
		t.Fatalf("server: %+v %v", st, err)
	}
	c := agentclient.Open(ctx, agentclient.Local{Handler: hc})
	defer c.Close(ctx)
	c.SendOp(OpStart, StartArgs{ID: "c", Role: Client, Spec: spec(port, "127.0.0.1"), Timeout: 20 * time.Second})
	c.SendOp(OpWait, WaitArgs{ID: "c"})
	var cst Started
	var co, so Outcome
	if err := c.Recv(ctx, &cst); err != nil {
		t.Fatal(err)
	}
	if err := c.Recv(ctx, &co); err != nil || co.ExitCode != 0 {
		t.Fatalf("client: %+v %v", co, err)
	}
	s.SendOp(OpWait, WaitArgs{ID: "s"})
	if err := s.Recv(ctx, &so); err != nil || so.ExitCode != 0 {
		t.Fatalf("server: %+v %v", so, err)
	}
	// Unknown ids and bad arguments are protocol errors, not hangs.
	s.SendOp(OpWait, WaitArgs{ID: "nope"})
	if err := s.Recv(ctx, nil); !errors.Is(err, agentclient.ErrAgent) || !strings.Contains(err.Error(), "unknown perftest id") {
		t.Errorf("unknown id: %v", err)
	}
}

// handle sends one request for op with raw args to a fresh agent on the
// rxe fixture host.
func handle(t *testing.T, a *Agent, op, raw string) agent.Reply {
	t.Helper()
	h := &agent.Handler{}
	a.Register(h)
	return h.Handle(t.Context(), agent.Request{APIVersion: fabric.APIVersion, Protocol: agent.Protocol, Op: op, Args: json.RawMessage(raw)})
}

// TestOpsRefuseHostileArgs: every op decodes its args strictly, a
// request cannot name a file for perftest to write (spec.JSONFile), and a
// device, port or GID index the host does not have — or a name that would
// leave /sys/class/infiniband — is a bad request naming it, refused
// before any counter is read or any process started.
func TestOpsRefuseHostileArgs(t *testing.T) {
	usePath(t, fakePath(t, ""))
	out := filepath.Join(t.TempDir(), "written.json")
	start := func(spec string) string {
		return `{"id":"s","role":"server","timeout":10000000000,"spec":{"Test":"write_bw","Device":"rxe0","TCPPort":18515` + spec + `}}`
	}
	for _, c := range []struct{ op, args, want string }{
		{OpStart, start(`,"JSONFile":"` + out + `"`), "spec.JSONFile is not part of the protocol"},
		{OpStart, start(`,"jsonfile":null`), "spec.JSONFile is not part of the protocol"},
		{OpStart, start(`,"Bogus":1`), `unknown field "Bogus"`},
		{OpStart, `{"id":"s","role":"server","timeout":1,"bogus":1,"spec":{}}`, `unknown field "bogus"`},
		{OpStart, start(`,"Device":"../../../../etc"`), `spec.Device "../../../../etc" is not a name`},
		{OpStart, start(`,"Device":"rxe0\u001b[2J"`), "control character"},
		{OpStart, start(`,"Device":"mlx5_9"`), `spec.Device "mlx5_9": this host has no such RDMA device (it has rxe0)`},
		{OpStart, start(`,"IBPort":2`), `spec.IBPort "2": this host has no such port of rxe0 (it has 1)`},
		{OpStart, start(`,"IBPort":-1`), `spec.IBPort "-1"`},
		{OpStart, start(`,"GIDIndex":7`), `spec.GIDIndex "7": this host has no such GID index of rxe0 port 1 (it has 0, 1)`},
		{OpStart, start(`,"Size":1e30`), "Size"},
		{OpStart, start(`,"Iterations":99999999999999999999`), "Iterations"},
		{OpStart, `{"id":"c","role":"client","timeout":1000000000,"spec":{"Test":"write_bw","Device":"rxe0","Peer":"-x"}}`, `spec.Peer "-x"`},
		{OpStart, `{"id":"c","role":"client","timeout":1000000000,"spec":{"Test":"write_bw","Device":"rxe0","Peer":"a\u0000b"}}`, "control character"},
		{OpStart, `{"id":"s","role":"server","timeout":-1,"spec":{}}`, "timeout -1ns is not positive"},
		{OpStart, `{"id":"s","role":"both","timeout":1,"spec":{}}`, `role "both" is not server or client`},
		{OpStart, `{"id":"s","role":"server","timeout":1000000000,"readyTimeout":-1,"spec":{"Device":"rxe0"}}`, "readyTimeout -1ns is negative"},
		{OpStart, `{"id":"` + strings.Repeat("i", 200) + `","role":"server","timeout":1000000000,"spec":{}}`, "id is 200 bytes"},
		{OpStart, ``, "none given"},
		{OpWait, `{"id":"s","bogus":true}`, `unknown field "bogus"`},
		{OpWait, `{"id":"s"} {}`, "more data after the JSON value"},
		{OpCleanup, `{"all":true}`, `unknown field "all"`},
	} {
		r := handle(t, newAgent(t), c.op, c.args)
		if r.OK || r.Error.Kind != agent.ErrorBadRequest || !strings.Contains(r.Error.Message, c.want) {
			t.Errorf("%s %.90s: reply %+v, want a bad request saying %q", c.op, c.args, r.Error, c.want)
		}
	}
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a request made the agent write %s: %v", out, err)
	}
	// A well-formed spec with the host's own names is served.
	if r := handle(t, newAgent(t), OpCleanup, ``); !r.OK {
		t.Errorf("cleanup without args: %+v", r.Error)
	}
}

// TestStartArgsWire: StartArgs travel with every Spec field but JSONFile,
// which cannot be sent.
func TestStartArgsWire(t *testing.T) {
	gid, tc := 3, 106
	want := StartArgs{ID: "x", Role: Client, Timeout: time.Minute, ReadyTimeout: time.Second, Spec: perftest.Spec{
		Test: perftest.SendBW, Device: "mlx5_0", IBPort: 2, GIDIndex: &gid, TClass: &tc, FlowLabel: 0x1a2b, QPTimeout: 20, TCPPort: 18600,
		ReportGbits: true, IgnoreFreq: true, Duration: 10 * time.Second, Iterations: 5, Size: 65536, AllSizes: true, QPs: 4,
		RDMACM: true, Bidirectional: true, Peer: "10.0.0.2"}}
	// Every field but JSONFile is set: a new Spec field fails here until it is.
	v := reflect.ValueOf(want.Spec)
	for i := range v.NumField() {
		if name := v.Type().Field(i).Name; name != "JSONFile" && v.Field(i).IsZero() {
			t.Errorf("field %s is not set in this test", name)
		}
	}
	b, err := json.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	var got StartArgs
	if err := agent.DecodeArgs(b, &got); err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("round trip of %s:\n%+v, %v\nwant %+v", b, got, err, want)
	}
	want.Spec.JSONFile = "/tmp/out.json"
	if _, err := json.Marshal(want); err == nil || !strings.Contains(err.Error(), "JSONFile") {
		t.Errorf("a spec with JSONFile was encoded: %v", err)
	}
}
