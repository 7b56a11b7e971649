package lab

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
)

// TestLabPtRetriesConnectFailures: the guest's lab-pt retries a perftest
// client whose connection failed before the test began (the server still
// listens), and only then. The outputs are perftest's as the lab saw them;
// each runs through grep -E with lab-pt's own pattern, as in the guest.
func TestLabPtRetriesConnectFailures(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("image", "guest", "bin", "lab-pt"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`retryable\(\) \{ grep -qE "([^"]+)" "\$1"; \}`).FindSubmatch(b)
	if m == nil {
		t.Fatal("lab-pt has no retryable() { grep -qE \"...\" \"$1\"; } line")
	}
	grep, err := exec.LookPath("grep")
	if err != nil {
		t.Skip("no grep")
	}
	match := func(out string) bool {
		f := filepath.Join(t.TempDir(), "out")
		if err := os.WriteFile(f, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
		err := exec.Command(grep, "-qE", string(m[1]), f).Run()
		if _, ok := err.(*exec.ExitError); err != nil && !ok {
			t.Fatal(err)
		}
		return err == nil
	}
	for _, out := range []string{
		// make test at load 11 with two busy loops (ib_send_lat -R, lab-h1 -> lab-h2): the client's
		// connect event failed and it crashed (rc 139) while the server went on listening until
		// its time bound (rc 137).
		"Failed to connect RDMA CM events.\nERRNO: Operation not supported.\n",
		" Couldn't connect to 10.99.0.12:18515\nUnable to open file descriptor for socket connection Unable to init the socket connection\n",
		"Unexpected CM event bl blka 8\n",
	} {
		if !match(out) {
			t.Errorf("not retried: %q", out)
		}
	}
	for _, out := range []string{
		" Couldn't allocate MR\n",
		" Unable to create QP.\n",
		"Completion with error at client\nFailed status 12: wr_id 0 syndrom 0x81\n",
	} {
		if match(out) {
			t.Errorf("retried, but the test itself failed: %q", out)
		}
	}
}
