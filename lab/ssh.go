package lab

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"time"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
)

// SSHConfig is the client configuration for every VM-host: user root, the lab's controller key,
// strict host key checking against the lab's known_hosts.
func (s *State) SSHConfig() (*ssh.ClientConfig, error) {
	key, err := os.ReadFile(s.KeyPath)
	if err != nil {
		return nil, fmt.Errorf("reading the lab key: %w", err)
	}
	signer, err := ssh.ParsePrivateKey(key)
	if err != nil {
		return nil, fmt.Errorf("parsing the lab key %s: %w", s.KeyPath, err)
	}
	hk, err := knownhosts.New(s.KnownHosts)
	if err != nil {
		return nil, fmt.Errorf("reading known_hosts: %w", err)
	}
	return &ssh.ClientConfig{
		User:              s.User,
		Auth:              []ssh.AuthMethod{ssh.PublicKeys(signer)},
		HostKeyCallback:   hk,
		HostKeyAlgorithms: []string{ssh.KeyAlgoED25519},
		Timeout:           15 * time.Second,
	}, nil
}

// Connect opens an SSH connection to the VM-host called host (name or address), through the
// lab namespace. The handshake is bounded by ctx. The caller closes the client.
func (s *State) Connect(ctx context.Context, host string) (*ssh.Client, error) {
	v, err := s.VM(host)
	if err != nil {
		return nil, err
	}
	cfg, err := s.SSHConfig()
	if err != nil {
		return nil, err
	}
	addr := net.JoinHostPort(v.Address.String(), "22")
	conn, err := s.Dial(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("connecting to %s: %w", v.Name, err)
	}
	deadline, ok := ctx.Deadline()
	if !ok || time.Until(deadline) > cfg.Timeout {
		deadline = time.Now().Add(cfg.Timeout)
	}
	_ = conn.SetDeadline(deadline)
	c, chans, reqs, err := ssh.NewClientConn(conn, addr, cfg)
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("ssh handshake with %s: %w", v.Name, err)
	}
	_ = conn.SetDeadline(time.Time{})
	return ssh.NewClient(c, chans, reqs), nil
}

// ErrCommandTimeout is returned when a remote command outlives its context.
var ErrCommandTimeout = errors.New("remote command timed out")

// sshPool caches one SSH connection per VM-host: a handshake costs seconds on an emulated
// guest, sessions on an open connection cost milliseconds. Safe for concurrent use.
type sshPool struct {
	mu      sync.Mutex
	clients map[string]*ssh.Client
}

func (s *State) client(ctx context.Context, host string) (*ssh.Client, error) {
	s.pool.mu.Lock()
	c := s.pool.clients[host]
	s.pool.mu.Unlock()
	if c != nil {
		return c, nil
	}
	c, err := s.Connect(ctx, host)
	if err != nil {
		return nil, err
	}
	s.pool.mu.Lock()
	defer s.pool.mu.Unlock()
	if s.pool.clients == nil {
		s.pool.clients = map[string]*ssh.Client{}
	}
	if prev := s.pool.clients[host]; prev != nil {
		c.Close()
		return prev, nil
	}
	s.pool.clients[host] = c
	return c, nil
}

func (s *State) drop(host string, c *ssh.Client) {
	s.pool.mu.Lock()
	if s.pool.clients[host] == c {
		delete(s.pool.clients, host)
	}
	s.pool.mu.Unlock()
	c.Close()
}

// Close closes the cached SSH connections.
func (s *State) Close() {
	s.pool.mu.Lock()
	defer s.pool.mu.Unlock()
	for h, c := range s.pool.clients {
		c.Close()
		delete(s.pool.clients, h)
	}
}

// session opens a session on the cached connection, reconnecting once when it has died; both
// bounded by ctx.
func (s *State) session(ctx context.Context, host string) (*ssh.Client, *ssh.Session, error) {
	var lastErr error
	for range 2 {
		c, err := s.client(ctx, host)
		if err != nil {
			return nil, nil, err
		}
		type res struct {
			sess *ssh.Session
			err  error
		}
		ch := make(chan res, 1)
		go func() { ss, err := c.NewSession(); ch <- res{ss, err} }()
		select {
		case r := <-ch:
			if r.err == nil {
				return c, r.sess, nil
			}
			lastErr = r.err
			s.drop(host, c)
		case <-ctx.Done():
			s.drop(host, c)
			return nil, nil, fmt.Errorf("opening ssh session on %s: %w", host, ctx.Err())
		}
	}
	return nil, nil, fmt.Errorf("opening ssh session on %s: %w", host, lastErr)
}

// Run runs cmd (a shell command line, run by root's bash) on host with stdout/stderr copied to
// the writers. A non-zero exit is an *ssh.ExitError. When ctx ends first the session is closed
// and the error wraps ErrCommandTimeout; the command itself may run on in the guest (sshd cannot
// signal it), so guest-side commands carry their own bounds (lab-pt uses timeout).
func (s *State) Run(ctx context.Context, host, cmd string, stdout, stderr io.Writer) error {
	c, sess, err := s.session(ctx, host)
	if err != nil {
		return err
	}
	defer sess.Close()
	sess.Stdout, sess.Stderr = stdout, stderr
	done := make(chan error, 1)
	go func() { done <- sess.Run(cmd) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		sess.Close()
		select {
		case <-done:
		case <-time.After(2 * time.Second):
			s.drop(host, c) // the connection itself is stuck
			<-done
		}
		return fmt.Errorf("running %q on %s: %w (%w)", cmd, host, ErrCommandTimeout, ctx.Err())
	}
}

// Output runs cmd on host and returns its stdout; stderr is included in the error.
func (s *State) Output(ctx context.Context, host, cmd string) ([]byte, error) {
	var out, errb bytes.Buffer
	if err := s.Run(ctx, host, cmd, &out, &errb); err != nil {
		if e := bytes.TrimSpace(errb.Bytes()); len(e) > 0 {
			return out.Bytes(), fmt.Errorf("%w: %s", err, lastLine(string(e)))
		}
		return out.Bytes(), err
	}
	return out.Bytes(), nil
}

func lastLine(s string) string {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == '\n' {
			return s[i+1:]
		}
	}
	return s
}
