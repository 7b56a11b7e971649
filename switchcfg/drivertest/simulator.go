package drivertest

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/fabricctl/fabricctl/switchcfg"
	"github.com/fabricctl/fabricctl/switchcfg/session"
	"github.com/fabricctl/fabricctl/switchcfg/sim"
)

// Password is the login password StartSimulator gives a simulator when the
// options carry neither a password nor authorized keys.
const Password = "sim-password"

// Simulator is a running switch simulator plus what a session needs to
// reach it over SSH.
type Simulator struct {
	*sim.Server
	// KnownHosts is a known_hosts file holding the simulator's host key.
	KnownHosts string
	// Password is the login password ("" with key authentication only).
	Password string
	// Spec is the platform's session spec (its driver's Info().Session).
	Spec switchcfg.SessionSpec
}

// StartSimulator runs a simulator of d's platform (opt.Platform when set) on
// 127.0.0.1 for the rest of the test.
func StartSimulator(t testing.TB, d switchcfg.Driver, opt sim.Options) *Simulator {
	t.Helper()
	if opt.Platform == "" {
		opt.Platform = d.Info().Name
	}
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
	return &Simulator{Server: srv, KnownHosts: kh, Password: opt.Password, Spec: d.Info().Session}
}

// Options returns session options that reach the simulator, with short
// timeouts suited to tests.
func (s *Simulator) Options() session.Options {
	return session.Options{
		Platform:       s.Platform(),
		Spec:           s.Spec,
		Address:        s.Addr(),
		User:           s.User(),
		Password:       s.Password,
		KnownHostsFile: s.KnownHosts,
		ConnectTimeout: 10 * time.Second,
		CommandTimeout: 10 * time.Second,
	}
}

// Dial opens a session with Options and closes it at the end of the test.
func (s *Simulator) Dial(t testing.TB) *session.Conn {
	t.Helper()
	return s.DialWith(t, s.Options())
}

// DialWith opens a session with opt and closes it at the end of the test.
func (s *Simulator) DialWith(t testing.TB, opt session.Options) *session.Conn {
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
