package simtest

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/fabricctl/fabricctl/switchcfg/session"
	"github.com/fabricctl/fabricctl/switchcfg/sim"
)

// Password is the login password Start gives a simulator when the options
// carry neither a password nor authorized keys.
const Password = "sim-password"

// Switch is a running simulator plus what a session needs to reach it.
type Switch struct {
	*sim.Server
	// KnownHosts is a known_hosts file holding the simulator's host key.
	KnownHosts string
	// Password is the login password ("" with key authentication only).
	Password string
}

// Start runs a simulator on 127.0.0.1 for the rest of the test.
func Start(t testing.TB, opt sim.Options) *Switch {
	t.Helper()
	if opt.Password == "" && len(opt.AuthorizedKeys) == 0 {
		opt.Password = Password
	}
	srv, err := sim.New(opt)
	if err != nil {
		t.Fatalf("starting simulator: %v", err)
	}
	if err := srv.Listen("127.0.0.1:0"); err != nil {
		t.Fatalf("starting simulator: %v", err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	kh := filepath.Join(t.TempDir(), "known_hosts")
	if err := srv.WriteKnownHosts(kh); err != nil {
		t.Fatalf("writing known_hosts: %v", err)
	}
	return &Switch{Server: srv, KnownHosts: kh, Password: opt.Password}
}

// Options returns session options that reach the simulator, with short
// timeouts suited to tests.
func (s *Switch) Options() session.Options {
	return session.Options{
		Platform:       s.Platform(),
		Address:        s.Addr(),
		User:           s.User(),
		Password:       s.Password,
		KnownHostsFile: s.KnownHosts,
		ConnectTimeout: 10 * time.Second,
		CommandTimeout: 10 * time.Second,
	}
}

// Dial opens a session with Options and closes it at the end of the test.
func (s *Switch) Dial(t testing.TB) *session.Conn {
	t.Helper()
	return s.DialWith(t, s.Options())
}

// DialWith opens a session with opt and closes it at the end of the test.
func (s *Switch) DialWith(t testing.TB, opt session.Options) *session.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := session.Dial(ctx, opt)
	if err != nil {
		t.Fatalf("dialling simulated %s: %v", s.Platform(), err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}
