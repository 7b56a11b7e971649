package opensm

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
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

// standIn starts a stand-in for OpenSM: NOT OpenSM, but a copy of /bin/sh
// under a unique name (so /proc/PID/comm and pidof see that name) running a
// loop. With trapHUP it appends "hup" to hupFile on every SIGHUP, as a
// reload; without it SIGHUP kills it, as a crashing subnet manager would die.
// It writes its pid to pidFile and is killed when the test ends.
func standIn(t *testing.T, dir string, trapHUP bool) (name, pidFile, hupFile string, done <-chan struct{}) {
	t.Helper()
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	sh, err = filepath.EvalSymlinks(sh)
	if err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	name = "fsm-" + hex.EncodeToString(b) // 12 bytes: fits /proc/PID/comm
	bin := filepath.Join(dir, name)
	src, err := os.Open(sh)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := os.OpenFile(bin, os.O_CREATE|os.O_WRONLY, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
	hupFile = filepath.Join(dir, "hups")
	script := `while :; do sleep 0.05; done`
	if trapHUP {
		script = `trap 'echo hup >> "$0"' HUP; ` + script
	}
	cmd := exec.Command(bin, "-c", script, hupFile) // hupFile is $0, never part of the script text
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ch := make(chan struct{})
	go func() { _ = cmd.Wait(); close(ch) }() // reap promptly, as init would
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-ch
	})
	pidFile = filepath.Join(dir, "opensm.pid")
	if err := os.WriteFile(pidFile, []byte(strconv.Itoa(cmd.Process.Pid)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return name, pidFile, hupFile, ch
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func countHUPs(path string) int {
	b, _ := os.ReadFile(path)
	return strings.Count(string(b), "hup\n")
}

// TestPushRealProcess runs Push through ExecRunner, i.e. the real cat, cp -p,
// mktemp, tee, mv, pidof and kill, against a temporary directory and a
// stand-in process (see standIn: it is not OpenSM).
func TestPushRealProcess(t *testing.T) {
	dir := t.TempDir()
	name, pidFile, hupFile, _ := standIn(t, dir, true)
	conf := filepath.Join(dir, "partitions.conf")
	old := "Default=0x7fff : ALL=limited, SELF=full ;\n"
	if err := os.WriteFile(conf, []byte(old), 0o640); err != nil {
		t.Fatal(err)
	}
	p := &Pusher{Remote: NewRemote(ExecRunner{}), Path: conf, Process: Process{PIDFile: pidFile, Name: name}, Settle: 200 * time.Millisecond}
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
	waitFor(t, "the stand-in to see one SIGHUP", func() bool { return countHUPs(hupFile) == 1 })
	if left, _ := filepath.Glob(conf + ".fabricctl-*"); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}

	// Same intent again: nothing written, no signal.
	if res, err := p.Push(ctx, sm, guids); err != nil || res.Changed {
		t.Fatalf("second push: %v %+v", err, res)
	}

	// Without the pidfile, pidof finds the stand-in by name.
	if err := os.Remove(pidFile); err != nil {
		t.Fatal(err)
	}
	sm.Partitions[1].ServiceLevel = 2 // storage: sl acts on its IPoIB broadcast group
	if _, err := p.Push(ctx, sm, guids); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "a second SIGHUP through pidof", func() bool { return countHUPs(hupFile) == 2 })
	time.Sleep(100 * time.Millisecond)
	if n := countHUPs(hupFile); n != 2 {
		t.Errorf("%d SIGHUPs, want 2 (one per changing push)", n)
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
// fails, the previous file is restored, and the second SIGHUP finds nobody.
func TestPushRealProcessDies(t *testing.T) {
	dir := t.TempDir()
	name, pidFile, _, done := standIn(t, dir, false)
	conf := filepath.Join(dir, "partitions.conf")
	old := "Default=0x7fff, ipoib : ALL=full ;\n"
	if err := os.WriteFile(conf, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	p := &Pusher{Remote: NewRemote(ExecRunner{}), Path: conf, Process: Process{PIDFile: pidFile, Name: name}, Settle: 300 * time.Millisecond}
	sm, guids := labIntent()
	res, err := p.Push(context.Background(), sm, guids)
	if !errors.Is(err, ErrVerify) || !errors.Is(err, ErrNotRunning) || !res.RolledBack {
		t.Fatalf("err %v, res %+v", err, res)
	}
	select {
	case <-done:
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
