package sim_test

import (
	"bytes"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/fabricctl/fabricctl/switchcfg/sim/simtest"
)

// rawShell is an interactive SSH shell without scrapligo: the test types
// bytes and waits for text, like a person at a terminal.
type rawShell struct {
	t    *testing.T
	in   io.Writer
	mu   sync.Mutex
	out  bytes.Buffer
	seen int
}

func openRaw(t *testing.T, sw *simtest.Switch) *rawShell {
	t.Helper()
	hk, err := knownhosts.New(sw.KnownHosts)
	if err != nil {
		t.Fatal(err)
	}
	client, err := ssh.Dial("tcp", sw.Addr(), &ssh.ClientConfig{User: sw.User(),
		Auth: []ssh.AuthMethod{ssh.Password(sw.Password)}, HostKeyCallback: hk, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = client.Close() })
	sess, err := client.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	if err := sess.RequestPty("xterm", 80, 200, ssh.TerminalModes{ssh.ECHO: 1}); err != nil {
		t.Fatal(err)
	}
	in, err := sess.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	outPipe, err := sess.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := sess.Shell(); err != nil {
		t.Fatal(err)
	}
	r := &rawShell{t: t, in: in}
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := outPipe.Read(buf)
			r.mu.Lock()
			r.out.Write(buf[:n])
			r.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	return r
}

func (r *rawShell) send(s string) {
	r.t.Helper()
	if _, err := io.WriteString(r.in, s); err != nil {
		r.t.Fatal(err)
	}
}

// expect waits for text after what earlier calls consumed and returns the
// output up to and including it.
func (r *rawShell) expect(text string) string {
	r.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		r.mu.Lock()
		all := strings.ReplaceAll(r.out.String(), "\r", "")
		r.mu.Unlock()
		if i := strings.Index(all[r.seen:], text); i >= 0 {
			got := all[r.seen : r.seen+i+len(text)]
			r.seen += i + len(text)
			return got
		}
		time.Sleep(5 * time.Millisecond)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.t.Fatalf("waiting for %q; got:\n%s", text, strings.ReplaceAll(r.out.String()[r.seen:], "\r", ""))
	return ""
}
