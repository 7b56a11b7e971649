package opensm

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// recordingRunner records argv and answers from a script keyed by argv[0].
type recordingRunner struct {
	calls [][]string
	stdin [][]byte
	reply func(argv []string) ([]byte, error)
}

type exitErr int

func (e exitErr) Error() string { return "exit status " + strconv.Itoa(int(e)) }
func (e exitErr) ExitCode() int { return int(e) }

func (r *recordingRunner) Run(_ context.Context, argv []string, stdin []byte) ([]byte, error) {
	r.calls = append(r.calls, append([]string(nil), argv...))
	r.stdin = append(r.stdin, stdin)
	return r.reply(argv)
}

// TestCommandRemoteArgv pins the exact commands: fixed argv, paths as single
// elements after "--" (spaces and quotes stay inside one element), never a
// shell.
func TestCommandRemoteArgv(t *testing.T) {
	const p = "/etc/open sm/it's.conf"
	r := &recordingRunner{reply: func(argv []string) ([]byte, error) {
		if argv[0] == "mktemp" {
			return []byte(p + ".fabricctl-Ab12Cd\n"), nil
		}
		return nil, nil
	}}
	if err := NewRemote(r).WriteFileAtomic(context.Background(), p, []byte("data"), p+".bak"); err != nil {
		t.Fatal(err)
	}
	want := [][]string{
		{"test", "-e", p},
		{"cp", "-p", "--", p, p + ".bak"},
		{"mktemp", p + ".fabricctl-XXXXXX"},
		{"cp", "-p", "--", p, p + ".fabricctl-Ab12Cd"},
		{"tee", "--", p + ".fabricctl-Ab12Cd"},
		{"mv", "-f", "--", p + ".fabricctl-Ab12Cd", p},
	}
	if got, w := strings.Join(flat(r.calls), "|"), strings.Join(flat(want), "|"); got != w {
		t.Errorf("argv\n got %q\nwant %q", r.calls, want)
	}
	if string(r.stdin[4]) != "data" {
		t.Errorf("tee got stdin %q", r.stdin[4])
	}

	for _, bad := range []string{"relative.conf", "/etc/../etc/x", "/etc/x\n", "/"} {
		if err := NewRemote(r).WriteFileAtomic(context.Background(), bad, nil, ""); err == nil {
			t.Errorf("path %q accepted", bad)
		}
	}
}

func flat(calls [][]string) []string {
	var out []string
	for _, c := range calls {
		out = append(out, strings.Join(c, " "))
	}
	return out
}

// TestCommandRemoteCleansUpTemp: a failed write removes its temporary file.
func TestCommandRemoteCleansUpTemp(t *testing.T) {
	r := &recordingRunner{reply: func(argv []string) ([]byte, error) {
		switch argv[0] {
		case "test":
			return nil, exitErr(1)
		case "mktemp":
			return []byte("/etc/p.conf.fabricctl-x\n"), nil
		case "tee":
			return nil, errors.New("no space left on device")
		}
		return nil, nil
	}}
	err := NewRemote(r).WriteFileAtomic(context.Background(), "/etc/p.conf", []byte("x"), "/etc/p.conf.bak")
	if err == nil || !strings.Contains(err.Error(), "no space left") {
		t.Fatalf("got %v", err)
	}
	last := strings.Join(r.calls[len(r.calls)-1], " ")
	if last != "rm -f -- /etc/p.conf.fabricctl-x" {
		t.Errorf("last command %q, want the temp file removed; calls %q", last, r.calls)
	}
	for _, c := range r.calls {
		if c[0] == "cp" {
			t.Errorf("backed up a file that did not exist: %q", c)
		}
	}
}

// TestCommandRemoteStalePIDFile: a pidfile naming a process that is not
// OpenSM (pid reused) is ignored and pidof is used.
func TestCommandRemoteStalePIDFile(t *testing.T) {
	r := &recordingRunner{reply: func(argv []string) ([]byte, error) {
		switch strings.Join(argv, " ") {
		case "cat -- /var/run/opensm.pid":
			return []byte("4242\n"), nil
		case "cat -- /proc/4242/comm":
			return []byte("bash\n"), nil
		case "pidof opensm":
			return []byte("777 778\n"), nil
		}
		return nil, nil
	}}
	err := NewRemote(r).Signal(context.Background(), Process{PIDFile: DefaultPIDFile, Name: "opensm"}, SIGHUP)
	if err != nil {
		t.Fatal(err)
	}
	got := flat(r.calls)
	want := []string{"cat -- /var/run/opensm.pid", "cat -- /proc/4242/comm", "pidof opensm", "kill -s HUP 777", "kill -s HUP 778"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("calls\n got %q\nwant %q", got, want)
	}
}

// standInEnv selects the stand-in mode when the test binary runs as the
// stand-in (see TestMain).
const standInEnv = "FABRICCTL_OPENSM_STANDIN"

func TestMain(m *testing.M) {
	switch os.Getenv(standInEnv) {
	case "":
		os.Exit(m.Run())
	case "reload":
		runStandIn(true)
	case "die":
		runStandIn(false)
	}
}

// runStandIn is the stand-in's main. With reload it reports every SIGHUP on
// stdout ("hup"), as a reload; without, SIGHUP makes it exit, as a crashing
// subnet manager would die. Either way it answers
// SIGUSR1 with "usr1" (a barrier: signals pending before it are handled
// first) and prints "ready" once its handlers are installed.
func runStandIn(reload bool) {
	// Both signals are caught explicitly: a process started with SIGHUP
	// ignored (nohup, some CI runners) inherits that, and default actions
	// would then never happen.
	ch := make(chan os.Signal, 16)
	signal.Notify(ch, syscall.SIGUSR1, syscall.SIGHUP)
	fmt.Println("ready")
	for s := range ch {
		switch {
		case s == syscall.SIGHUP && reload:
			fmt.Println("hup")
		case s == syscall.SIGHUP:
			os.Exit(128 + int(syscall.SIGHUP)) // dies as a crashing subnet manager would
		default:
			fmt.Println("usr1")
		}
	}
}

// standInProc is a running stand-in.
type standInProc struct {
	name    string // its process name (/proc/PID/comm, pidof)
	pidFile string
	cmd     *exec.Cmd
	lines   chan string   // what it printed, line by line
	done    chan struct{} // closed once it exited and was reaped
}

// standIn starts a stand-in for OpenSM: NOT OpenSM, but this test binary,
// copied under a unique name (so /proc/PID/comm and pidof see that name) and
// run in the stand-in mode of TestMain: one process, no children, so pidof
// finds exactly it. With reload it survives SIGHUP and reports each one;
// without, SIGHUP kills it. standIn returns once its signal handlers are
// installed (it says so), writes its pid to the pid file, and kills it when
// the test ends. With ignoreHUP it is started through nohup(1), which sets
// SIGHUP to SIG_IGN and execs it (same process, same name): how CI runners
// and nohup'd shells start the tests, and what made the old stand-in fail.
func standIn(t *testing.T, dir string, reload, ignoreHUP bool) *standInProc {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	s := &standInProc{name: "fsm-" + hex.EncodeToString(b), lines: make(chan string, 64), done: make(chan struct{})}
	bin := filepath.Join(dir, s.name) // 12 bytes: fits /proc/PID/comm
	copyFile(t, self, bin)
	mode := "die"
	if reload {
		mode = "reload"
	}
	s.cmd = exec.Command(bin)
	if ignoreHUP {
		nohup, err := exec.LookPath("nohup")
		if err != nil {
			t.Skipf("nohup: %v", err)
		}
		s.cmd = exec.Command(nohup, bin)
	}
	s.cmd.Env = append(os.Environ(), standInEnv+"="+mode)
	out, err := s.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			s.lines <- sc.Text()
		}
		_ = s.cmd.Wait() // reap promptly, as init would
		close(s.done)
	}()
	t.Cleanup(func() {
		_ = s.cmd.Process.Kill()
		<-s.done
	})
	s.expect(t, "ready")
	s.pidFile = filepath.Join(dir, "opensm.pid")
	if err := os.WriteFile(s.pidFile, []byte(strconv.Itoa(s.cmd.Process.Pid)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return s
}

// eventBound bounds a wait for an event that is due: it only matters when
// the event never comes, so it is generous for a loaded machine.
const eventBound = 2 * time.Minute

// expect waits for the stand-in's next line and requires it to be want.
func (s *standInProc) expect(t *testing.T, want string) {
	t.Helper()
	select {
	case got := <-s.lines:
		if got != want {
			t.Fatalf("stand-in said %q, want %q", got, want)
		}
	case <-s.done:
		t.Fatalf("the stand-in exited while we waited for %q", want)
	case <-time.After(eventBound):
		t.Fatalf("the stand-in did not say %q within %s", want, eventBound)
	}
}

// barrier sends SIGUSR1 and waits for its answer: every SIGHUP sent before
// is reported before it (the kernel delivers the lower signal number first),
// so the lines read up to the answer are all the SIGHUPs there were.
func (s *standInProc) barrier(t *testing.T) (hups int) {
	t.Helper()
	if err := s.cmd.Process.Signal(syscall.SIGUSR1); err != nil {
		t.Fatal(err)
	}
	for {
		select {
		case l := <-s.lines:
			switch l {
			case "usr1":
				return hups
			case "hup":
				hups++
			default:
				t.Fatalf("stand-in said %q", l)
			}
		case <-s.done:
			t.Fatal("the stand-in exited")
		case <-time.After(eventBound):
			t.Fatalf("the stand-in did not answer SIGUSR1 within %s", eventBound)
		}
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	src, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
}

// signalHook is a Remote that calls after once a signal was sent, before
// Push goes on: the test waits there for what the signal caused.
type signalHook struct {
	Remote
	after func(Signal)
}

func (h signalHook) Signal(ctx context.Context, p Process, sig Signal) error {
	err := h.Remote.Signal(ctx, p, sig)
	if err == nil {
		h.after(sig)
	}
	return err
}

// TestPushRealProcess runs Push through ExecRunner, i.e. the real cat, cp -p,
// mktemp, tee, mv, pidof and kill, against a temporary directory and a
// stand-in process (see standIn: it is not OpenSM), started plainly and with
// SIGHUP ignored on entry (nohup).
func TestPushRealProcess(t *testing.T) {
	t.Run("plain", func(t *testing.T) { testPushRealProcess(t, false) })
	t.Run("nohup", func(t *testing.T) { testPushRealProcess(t, true) })
}

func testPushRealProcess(t *testing.T, ignoreHUP bool) {
	dir := t.TempDir()
	si := standIn(t, dir, true, ignoreHUP)
	conf := filepath.Join(dir, "partitions.conf")
	old := "Default=0x7fff : ALL=limited, SELF=full ;\n"
	if err := os.WriteFile(conf, []byte(old), 0o640); err != nil {
		t.Fatal(err)
	}
	p := &Pusher{Remote: NewRemote(ExecRunner{}), Path: conf, Process: Process{PIDFile: si.pidFile, Name: si.name}, Settle: 200 * time.Millisecond}
	sm, guids := labIntent()
	ctx := context.Background()

	res, err := p.Push(ctx, sm, guids)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := Render(sm, guids)
	got, _ := os.ReadFile(conf)
	if string(got) != want {
		t.Errorf("file content:\n%s", got)
	}
	if b, _ := os.ReadFile(conf + BackupSuffix); string(b) != old || res.Backup != conf+BackupSuffix {
		t.Errorf("backup %q (%s)", b, res.Backup)
	}
	for _, f := range []string{conf, conf + BackupSuffix} {
		if fi, err := os.Stat(f); err != nil || fi.Mode().Perm() != 0o640 {
			t.Errorf("%s: mode not kept: %v %v", f, fi.Mode(), err)
		}
	}
	si.expect(t, "hup")
	if left, _ := filepath.Glob(conf + ".fabricctl-*"); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}

	// Same intent again: nothing written, no signal.
	if res, err := p.Push(ctx, sm, guids); err != nil || res.Changed {
		t.Fatalf("second push: %v %+v", err, res)
	}

	// Without the pidfile, pidof finds the stand-in by name.
	if err := os.Remove(si.pidFile); err != nil {
		t.Fatal(err)
	}
	sm.Partitions[1].ServiceLevel = 2 // storage: sl acts on its IPoIB broadcast group
	if _, err := p.Push(ctx, sm, guids); err != nil {
		t.Fatal(err)
	}
	si.expect(t, "hup")
	// The unchanged push sent none, and no push sent a second one.
	if n := si.barrier(t); n != 0 {
		t.Errorf("%d more SIGHUPs, want 2 in all (one per changing push)", n)
	}
	obs, err := p.Observe(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, part := range obs.Partitions {
		if part.PKey == 2 && part.ServiceLevel != 2 {
			t.Errorf("observed sl %d, want 2", part.ServiceLevel)
		}
	}
}

// TestPushRealProcessDies: the stand-in dies on SIGHUP, so verification
// fails, the previous file is restored, and the second SIGHUP finds nobody;
// also when it was started with SIGHUP ignored (nohup).
func TestPushRealProcessDies(t *testing.T) {
	t.Run("plain", func(t *testing.T) { testPushRealProcessDies(t, false) })
	t.Run("nohup", func(t *testing.T) { testPushRealProcessDies(t, true) })
}

func testPushRealProcessDies(t *testing.T, ignoreHUP bool) {
	dir := t.TempDir()
	si := standIn(t, dir, false, ignoreHUP)
	conf := filepath.Join(dir, "partitions.conf")
	old := "Default=0x7fff, ipoib : ALL=full ;\n"
	if err := os.WriteFile(conf, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	// The first SIGHUP kills the stand-in; Push's check that it still runs
	// comes only once it has exited and was reaped, however slow the machine.
	hook := signalHook{Remote: NewRemote(ExecRunner{}), after: func(sig Signal) {
		if sig != SIGHUP {
			return
		}
		select {
		case <-si.done:
		case <-time.After(eventBound):
			t.Errorf("the stand-in survived SIGHUP for %s", eventBound)
		}
	}}
	p := &Pusher{Remote: hook, Path: conf, Process: Process{PIDFile: si.pidFile, Name: si.name}, Settle: time.Millisecond}
	sm, guids := labIntent()
	res, err := p.Push(context.Background(), sm, guids)
	if !errors.Is(err, ErrVerify) || !errors.Is(err, ErrNotRunning) || !res.RolledBack {
		t.Fatalf("err %v, res %+v", err, res)
	}
	select {
	case <-si.done:
	default:
		t.Error("the stand-in is still running")
	}
	if got, _ := os.ReadFile(conf); string(got) != old {
		t.Errorf("not restored: %q", got)
	}
	if _, err := p.Remote.ReadFile(context.Background(), filepath.Join(dir, "absent")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("absent file: %v", err)
	}
}

// TestCommandRemoteZombie: kill -0 succeeds on a zombie; the state letter in
// /proc/PID/stat says it has exited.
func TestCommandRemoteZombie(t *testing.T) {
	for _, tc := range []struct {
		stat    string
		running bool
	}{
		{"4242 (opensm) S 1 4242 4242 0 -1", true},
		{"4242 (opensm) Z 1 4242 4242 0 -1", false},
		{"4242 (a) b) R 1 4242", true},
	} {
		r := &recordingRunner{reply: func(argv []string) ([]byte, error) {
			switch strings.Join(argv, " ") {
			case "cat -- /run/sm.pid":
				return []byte("4242"), nil
			case "cat -- /proc/4242/comm":
				return []byte("opensm\n"), nil
			case "cat -- /proc/4242/stat":
				return []byte(tc.stat), nil
			}
			return nil, nil
		}}
		err := NewRemote(r).Signal(context.Background(), Process{PIDFile: "/run/sm.pid", Name: "opensm"}, SignalCheck)
		if tc.running != (err == nil) || (err != nil && !errors.Is(err, ErrNotRunning)) {
			t.Errorf("stat %q: err %v", tc.stat, err)
		}
	}
}
