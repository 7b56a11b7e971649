package lab

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
)

func readCmdline(pid int) string {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	return string(b)
}

// Samples of /proc/PID/stat: a user process (flags 4194304) and kthreadd (flags 2129984, which
// has PF_KTHREAD), as this machine's kernel 6.18 prints them.
const (
	statUser    = "18773 (fabricctl) S 18730 18730 18215 0 -1 4194304 100 0 0 0 0 0 0 0 20 0 1 0 2923298 3133440 416"
	statZombie  = "18773 (fabricctl) Z 18730 18730 18215 0 -1 4194316 100 0 0 0 0 0 0 0 20 0 1 0 2923298 0 0"
	statKthread = "2 (kthreadd) S 0 0 0 0 -1 2129984 0 0 0 0 0 1 0 0 20 0 1 0 26 0 0"
	statOddComm = "18773 (a) b (c) S 18730 18730 18215 0 -1 4194304 100 0 0 0 0 0 0 0 20 0 1 0 2923298 3133440 416"
)

func TestProcRuns(t *testing.T) {
	const key = "/var/lib/fabricctl-lab/switches/leaf-01/ssh_host_ed25519_key"
	argv := "ip\x00netns\x00exec\x00fabricctl-lab\x00fabricctl\x00switch-sim\x00--host-key\x00" + key + "\x00"
	for _, c := range []struct {
		name, cmdline, stat string
		want                bool
	}{
		{"ours", argv, statUser, true},
		{"recycled pid runs something else", "sleep\x0060\x00", statUser, false},
		{"zombie", "", statZombie, false},
		// The regression: CI's `lab up` saw the simulator it had just started as exited, with an
		// empty log, because the check read the command line while the process was inside execve.
		{"inside execve (empty command line)", "", statUser, true},
		{"kernel thread on a recycled pid", "", statKthread, false},
		{"comm with spaces and parentheses", argv, statOddComm, true},
		{"truncated stat", "", "18773 (x", false},
		{"garbage stat", "", "18773 (x) S 1", false},
	} {
		if got := procRuns([]byte(c.cmdline), []byte(c.stat), key); got != c.want {
			t.Errorf("%s: procRuns = %v, want %v", c.name, got, c.want)
		}
	}
}

// TestPidRunsRealProcess checks the /proc reading against a real child: alive while it runs
// with the marker on its command line, dead once it has exited (zombie) and once reaped.
func TestPidRunsRealProcess(t *testing.T) {
	marker := t.TempDir() + "/marker"
	cmd := exec.Command("sh", "-c", "sleep 30; : "+marker)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	// Right after Start the child may still be inside execve (an empty command line, which
	// pidRuns takes as ours): it must be alive then too.
	if !pidRuns(pid, marker) {
		t.Fatalf("pidRuns(%d) = false for a running child", pid)
	}
	// Once its command line is written, another marker is not it.
	for !strings.Contains(readCmdline(pid), marker) {
		if !pidRuns(pid, marker) {
			t.Fatalf("pidRuns(%d) = false while its command line was being written", pid)
		}
		runtime.Gosched()
	}
	if pidRuns(pid, marker+"-other") {
		t.Fatalf("pidRuns(%d) = true for another marker", pid)
	}
	_ = cmd.Process.Signal(os.Kill)
	_ = cmd.Wait()
	if pidRuns(pid, marker) {
		t.Fatalf("pidRuns(%d) = true after the child was reaped", pid)
	}
}
