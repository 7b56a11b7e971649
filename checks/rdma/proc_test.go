package rdma

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

const procNetTCP = `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 00000000:48A8 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 2301 1 0000000000000000 100 0 0 10 0
   1: 0B00630A:0016 0100630A:D2F4 01 00000000:00000000 02:0009C7A1 00000000     0        0 2388 4 0000000000000000 20 4 31 10 -1
   2: 0B00630A:48A9 0C00630A:9A10 06 00000000:00000000 03:00001583 00000000     0        0 0 3 0000000000000000
`

func TestListensOn(t *testing.T) {
	cases := map[int]bool{
		18600: true,  // 0x48A8 in LISTEN
		22:    false, // established, not listening
		18601: false, // TIME_WAIT
		4853:  false,
	}
	for port, want := range cases {
		if got := listensOn([]byte(procNetTCP), port); got != want {
			t.Errorf("port %d: listening %v, want %v", port, got, want)
		}
	}
}

func TestStatStart(t *testing.T) {
	good := "4242 (ib_write_bw (x) y) S 1 4242 4242 0 -1 4194560 125 0 0 0 1 2 0 0 20 0 1 0 987654 12345 67 18446744073709551615"
	if v, err := statStart([]byte(good)); err != nil || v != 987654 {
		t.Errorf("start %d %v, want 987654", v, err)
	}
	zombie := "4242 (ib_write_bw) Z 1 4242 4242 0 -1 4194560 125 0 0 0 1 2 0 0 20 0 1 0 987654 0 0"
	if _, err := statStart([]byte(zombie)); !errors.Is(err, errExited) {
		t.Errorf("zombie: %v", err)
	}
	for _, bad := range []string{"", "4242 ib_write_bw S 1", "4242 (x) S 1 2 3", "1 (x) S 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 -5 0"} {
		if _, err := statStart([]byte(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func FuzzStatStart(f *testing.F) {
	f.Add([]byte("4242 (ib_write_bw (x) y) S 1 4242 4242 0 -1 4194560 125 0 0 0 1 2 0 0 20 0 1 0 987654 12345"))
	f.Add([]byte("1 (a) Z"))
	f.Fuzz(func(t *testing.T, b []byte) {
		statStart(b) // must not panic
	})
}

func FuzzListensOn(f *testing.F) {
	f.Add([]byte(procNetTCP), 18600)
	f.Fuzz(func(t *testing.T, b []byte, port int) {
		listensOn(b, port) // must not panic
	})
}

func TestListenInodes(t *testing.T) {
	if got := listenInodes([]byte(procNetTCP), 18600); len(got) != 1 || got[0] != "2301" {
		t.Errorf("inodes %v, want [2301]", got)
	}
	if got := listenInodes([]byte(procNetTCP), 22); got != nil {
		t.Errorf("port 22: %v", got)
	}
}

// TestListeningOwnSocketOnly: a listener on the port that belongs to
// another process is not the started server's.
func TestListeningOwnSocketOnly(t *testing.T) {
	root := t.TempDir()
	write := func(p, s string) {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, p), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("net/tcp", procNetTCP)
	fd := filepath.Join(root, "4242", "fd")
	if err := os.MkdirAll(fd, 0o755); err != nil {
		t.Fatal(err)
	}
	os.Symlink("socket:[9999]", filepath.Join(fd, "3"))
	os.Symlink("/dev/null", filepath.Join(fd, "0"))
	if listening(root, 18600, 4242) {
		t.Error("pid 4242 does not own the listener (inode 2301)")
	}
	os.Symlink("socket:[2301]", filepath.Join(fd, "4"))
	if !listening(root, 18600, 4242) {
		t.Error("pid 4242 owns the listener now")
	}
	if listening(root, 18601, 4242) {
		t.Error("nothing listens on 18601")
	}
	// A process that is gone listens on nothing.
	if listening(root, 18600, 1) {
		t.Error("pid 1 has no descriptors here: it is gone")
	}
}
