package session

import (
	"fmt"
	"io"
	"net"
	"strconv"

	"github.com/fabricctl/fabricctl/internal/knownhosts"
	"github.com/scrapli/scrapligo/transport"
	"golang.org/x/crypto/ssh"
)

// sshTransport is scrapligo's transport over x/crypto/ssh, as its standard
// transport is, but checking the host key as OpenSSH does
// (internal/knownhosts) instead of through x/crypto's knownhosts: the
// standard transport cannot be given another host key callback.
type sshTransport struct {
	known *knownhosts.DB
	key   []byte // private key for public-key authentication, or nil

	client  *ssh.Client
	session *ssh.Session
	w       io.WriteCloser
	r       io.Reader
}

var _ transport.Implementation = (*sshTransport)(nil)

// Open connects, authenticates, checks the host key, and starts a shell on
// a pty as the standard transport does.
func (t *sshTransport) Open(a *transport.Args) error {
	var auth []ssh.AuthMethod
	if len(t.key) > 0 {
		signer, err := ssh.ParsePrivateKey(t.key)
		if err != nil {
			return fmt.Errorf("parsing the identity file: %w", err)
		}
		auth = append(auth, ssh.PublicKeys(signer))
	}
	if a.Password != "" {
		pw := a.Password
		auth = append(auth, ssh.Password(pw), ssh.KeyboardInteractive(func(_, _ string, qs []string, _ []bool) ([]string, error) {
			answers := make([]string, len(qs))
			for i := range answers {
				answers[i] = pw
			}
			return answers, nil
		}))
	}
	cfg := &ssh.ClientConfig{
		User: a.User, Auth: auth, Timeout: a.TimeoutSocket,
		HostKeyCallback:   t.known.Callback(a.Host, a.Port),
		HostKeyAlgorithms: t.known.Algorithms(a.Host, a.Port),
	}
	client, err := ssh.Dial("tcp", net.JoinHostPort(a.Host, strconv.Itoa(a.Port)), cfg)
	if err != nil {
		return err
	}
	s, err := client.NewSession()
	if err == nil {
		t.w, err = s.StdinPipe()
	}
	if err == nil {
		t.r, err = s.StdoutPipe()
	}
	if err == nil {
		err = s.RequestPty("xterm", a.TermHeight, a.TermWidth, ssh.TerminalModes{
			ssh.ECHO: 1, ssh.TTY_OP_ISPEED: 115200, ssh.TTY_OP_OSPEED: 115200})
	}
	if err == nil {
		err = s.Shell()
	}
	if err != nil {
		if s != nil {
			s.Close()
		}
		client.Close()
		return err
	}
	t.client, t.session = client, s
	return nil
}

// Close ends the shell and the connection.
func (t *sshTransport) Close() error {
	var err error
	if t.session != nil {
		err = t.session.Close()
		t.session = nil
	}
	if t.client != nil {
		if cerr := t.client.Close(); err == nil {
			err = cerr
		}
		t.client = nil
	}
	if err == io.EOF {
		err = nil // the shell had already ended
	}
	return err
}

// IsAlive reports whether the shell is open.
func (t *sshTransport) IsAlive() bool { return t.session != nil }

// Read reads at most n bytes of the shell's output.
func (t *sshTransport) Read(n int) ([]byte, error) {
	b := make([]byte, n)
	n, err := t.r.Read(b)
	if err != nil {
		return nil, err
	}
	return b[:n], nil
}

// Write writes b to the shell.
func (t *sshTransport) Write(b []byte) error {
	_, err := t.w.Write(b)
	return err
}
