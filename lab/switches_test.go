package lab

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/fabricctl/fabricctl/internal/testutil"
)

func switchTopology() Topology {
	t := DefaultTopology()
	t.Switches = []Switch{
		{Name: "leaf-01", Platform: "cumulus-nvue", Address: netip.MustParseAddr("10.99.0.101"), User: "cumulus"},
		{Name: "leaf-02", Platform: "sonic", Address: netip.MustParseAddr("10.99.0.102")},
	}
	return t
}

func TestValidateSwitches(t *testing.T) {
	if err := switchTopology().Validate(); err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct {
		mod  func(*Topology)
		want string
	}{
		"address not on the bridge": {func(t *Topology) { t.Switches[0].Address = netip.MustParseAddr("10.99.0.50") },
			"switches[0] leaf-01: address 10.99.0.50 is not one of the bridge's extra addresses"},
		"name of a host": {func(t *Topology) { t.Switches[1].Name = "lab-h1" }, "switches[1]: name lab-h1 used twice"},
		"no platform":    {func(t *Topology) { t.Switches[1].Platform = "" }, "switches[1] leaf-02: no platform"},
		"bad name":       {func(t *Topology) { t.Switches[0].Name = "Leaf_1" }, `switches[0]: name "Leaf_1"`},
	} {
		t.Run(name, func(t *testing.T) {
			topo := switchTopology()
			topo.Switches = slices.Clone(topo.Switches)
			tc.mod(&topo)
			err := topo.Validate()
			if !errors.Is(err, ErrBadTopology) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Validate() = %v, want %q", err, tc.want)
			}
		})
	}
}

func TestSwitchSimArgs(t *testing.T) {
	w := SwitchSim{Switch: switchTopology().Switches[0], HostKey: "/run/x/switches/leaf-01/ssh_host_ed25519_key"}
	got := strings.Join(switchSimArgs(w), " ")
	want := "switch-sim --platform cumulus-nvue --listen 10.99.0.101:22 --password-env LAB_SWITCH_PASSWORD" +
		" --host-key /run/x/switches/leaf-01/ssh_host_ed25519_key --hostname leaf-01 --user cumulus"
	if got != want {
		t.Errorf("argv\n got %s\nwant %s", got, want)
	}
	w.Port, w.User = 2222, ""
	if got := switchSimArgs(w); !slices.Contains(got, "10.99.0.101:2222") || slices.Contains(got, "--user") {
		t.Errorf("argv with port 2222 and default user: %v", got)
	}
}

// TestSwitchSimulatorsInNetns starts the simulators of switchTopology in a namespace of its own
// (no VMs), logs in to each with the stored password while checking its host key against the
// lab's known_hosts, and checks that Down stops them and removes the password. Root only.
func TestSwitchSimulatorsInNetns(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root (network namespace)")
	}
	if _, err := exec.LookPath("ip"); err != nil {
		t.Skip("needs ip")
	}
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	bin := filepath.Join(t.TempDir(), "fabricctl")
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/fabricctl")
	build.Dir = testutil.RepoRoot(t)
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building fabricctl: %v\n%s", err, out)
	}
	topo := switchTopology()
	topo.Hosts = topo.Hosts[:1]
	// A namespace of this process's own: two checkouts testing at once (engineers sharing a
	// machine) must not delete each other's.
	s, err := Plan(topo, Options{StateDir: t.TempDir(), Netns: fmt.Sprintf("fabricctl-swtest-%d", os.Getpid())})
	if err != nil {
		t.Fatal(err)
	}
	s.VMs = nil // the simulators only
	_ = command(ctx, "ip", "netns", "del", s.Netns)
	t.Cleanup(func() { _ = s.Down(context.Background(), nil) })
	if err := s.setupNetwork(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.startSwitches(ctx, bin); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(s.SwitchPasswordPath())
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("password file %v mode %v, want 0600", err, st)
	}
	pw, err := s.SwitchPassword()
	if err != nil || len(pw) < 16 {
		t.Fatalf("password %q: %v", pw, err)
	}
	saved, err := Load(s.StateDir)
	if err != nil || len(saved.Switches) != 2 || saved.Switches[1].Pid == 0 {
		t.Fatalf("state has switches %+v (%v)", saved, err)
	}
	hk, err := knownhosts.New(s.KnownHosts)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range s.Switches {
		user := w.User
		if user == "" {
			user = "admin"
		}
		cfg := &ssh.ClientConfig{User: user, Auth: []ssh.AuthMethod{ssh.Password(pw)}, HostKeyCallback: hk, Timeout: 10 * time.Second}
		addr := net.JoinHostPort(w.Address.String(), "22")
		nc, err := s.Dial(ctx, "tcp", addr)
		if err != nil {
			t.Fatalf("%s: %v", w.Name, err)
		}
		c, chans, reqs, err := ssh.NewClientConn(nc, addr, cfg)
		if err != nil {
			t.Fatalf("%s: logging in with the stored password and known_hosts: %v", w.Name, err)
		}
		ssh.NewClient(c, chans, reqs).Close()
		cfg.Auth = []ssh.AuthMethod{ssh.Password("wrong")}
		nc, err = s.Dial(ctx, "tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, _, err := ssh.NewClientConn(nc, addr, cfg); err == nil {
			t.Errorf("%s: a wrong password logged in", w.Name)
		}
		nc.Close()
	}
	if err := s.Down(ctx, nil); err != nil {
		t.Fatal(err)
	}
	for _, w := range s.Switches {
		if simAlive(w) {
			t.Errorf("%s: simulator pid %d still runs after Down", w.Name, w.Pid)
		}
	}
	if _, err := os.Stat(s.SwitchPasswordPath()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("password file after Down: %v", err)
	}
}
