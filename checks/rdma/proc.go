package rdma

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/fabricctl/fabricctl/checks/perftest"
)

// perftestArgs builds the argv of one side; the binary comes first.
func perftestArgs(s perftest.Spec) ([]string, error) {
	argv, err := perftest.Args(s)
	if err != nil {
		if b := s.Test.Binary(); s.Test.Valid() {
			return []string{b}, err
		}
		return []string{"ib_?"}, err
	}
	return argv, nil
}

// listening reports whether process pid listens on TCP port: a LISTEN
// socket on the port in <procRoot>/net/tcp or tcp6 whose inode is one of
// pid's open sockets (<procRoot>/<pid>/fd/* → "socket:[inode]"). Another
// process holding the port does not count: the started server then fails
// to bind and says so. When pid's descriptors may not be read, any
// listener on the port counts; when they are gone, the process is too.
func listening(procRoot string, port, pid int) bool {
	var inodes []string
	for _, f := range []string{"tcp", "tcp6"} {
		if b, err := os.ReadFile(filepath.Join(procRoot, "net", f)); err == nil {
			inodes = append(inodes, listenInodes(b, port)...)
		}
	}
	if len(inodes) == 0 {
		return false
	}
	mine, err := socketInodes(procRoot, pid)
	if errors.Is(err, fs.ErrPermission) {
		return true
	}
	for _, in := range inodes {
		if mine[in] {
			return true
		}
	}
	return false
}

// listensOn reports whether a /proc/net/tcp table has a socket in LISTEN on port.
func listensOn(table []byte, port int) bool { return len(listenInodes(table, port)) > 0 }

// listenInodes reads a /proc/net/tcp table: the inodes of the lines whose
// local_address ends in the port in hex ("0100007F:4853") and whose st is
// 0A (LISTEN).
func listenInodes(table []byte, port int) []string {
	want := fmt.Sprintf(":%04X", port)
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(table))
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 10 && fields[3] == "0A" && strings.HasSuffix(fields[1], want) {
			out = append(out, fields[9])
		}
	}
	return out
}

// socketInodes returns the inodes of the sockets process pid has open,
// from the links <procRoot>/<pid>/fd/N → "socket:[inode]".
func socketInodes(procRoot string, pid int) (map[string]bool, error) {
	dir := filepath.Join(procRoot, strconv.Itoa(pid), "fd")
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("reading the descriptors of pid %d: %w", pid, err)
	}
	out := map[string]bool{}
	for _, e := range entries {
		l, err := os.Readlink(filepath.Join(dir, e.Name()))
		if err != nil {
			continue // closed meanwhile
		}
		if in, ok := strings.CutPrefix(l, "socket:["); ok {
			out[strings.TrimSuffix(in, "]")] = true
		}
	}
	return out, nil
}

// procStart reads a process's start time in clock ticks from <procRoot>/<pid>/stat.
func procStart(procRoot string, pid int) (uint64, error) {
	b, err := os.ReadFile(filepath.Join(procRoot, strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0, fmt.Errorf("reading the start time of pid %d: %w", pid, err)
	}
	v, err := statStart(b)
	if err != nil {
		return 0, fmt.Errorf("reading the start time of pid %d: %w", pid, err)
	}
	return v, nil
}

// errExited: the stat file is a zombie's; nothing is left to kill.
var errExited = errors.New("the process has exited")

// statStart reads field 22 (starttime) of a /proc/<pid>/stat line, after
// the parenthesised command name, which may itself hold spaces and
// parentheses.
func statStart(b []byte) (uint64, error) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, errors.New("no command name in stat")
	}
	fields := strings.Fields(string(b[i+1:]))
	// fields[0] is field 3 (state); field 22 is fields[19].
	if len(fields) < 20 {
		return 0, fmt.Errorf("stat has %d fields, want at least 22", len(fields)+2)
	}
	if fields[0] == "Z" || fields[0] == "X" {
		return 0, errExited
	}
	v, err := strconv.ParseUint(fields[19], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("parsing starttime: %w", err)
	}
	return v, nil
}

// tailBuffer keeps the last max bytes written to it. Safe for concurrent use.
type tailBuffer struct {
	mu      sync.Mutex
	max     int
	b       []byte
	dropped bool
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if over := len(t.b) - t.max; over > 0 {
		t.b = append(t.b[:0], t.b[over:]...)
		t.dropped = true
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	if t == nil {
		return ""
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.dropped {
		return "[… earlier output dropped]\n" + string(t.b)
	}
	return string(t.b)
}
