package sshdtest

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
)

// SSHD is the OpenSSH server binary.
const SSHD = "/usr/sbin/sshd"

// Options configure one server.
type Options struct {
	// Netns runs sshd inside this (existing) network namespace.
	Netns string
	// Addr and Port to listen on (default 127.0.0.1 and a free port).
	Addr string
	Port int
	// ExtraConfig is appended to sshd_config.
	ExtraConfig string
	// HostKey is the server's host key (default: generated), for tests that
	// certify it before the server starts (HostCertificate in ExtraConfig).
	HostKey *Key
}

// Server is a running sshd.
type Server struct {
	Addr string
	Port int
	// Dir holds the keys, config and logs.
	Dir string
	// ClientKey is the path of the authorized client private key.
	ClientKey string
	// KnownHosts is a known_hosts file listing this server's host key.
	KnownHosts string
	HostKey    ssh.PublicKey
	cmd        *exec.Cmd
}

// Key is a generated ed25519 key pair.
type Key struct {
	PrivatePEM []byte
	Public     ssh.PublicKey
	Signer     ssh.Signer
}

// NewKey generates an ed25519 key.
func NewKey(t testing.TB) Key {
	t.Helper()
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	blk, err := ssh.MarshalPrivateKey(priv, "fabricctl-test")
	if err != nil {
		t.Fatal(err)
	}
	sp, err := ssh.NewPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	signer, err := ssh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	return Key{PrivatePEM: pem.EncodeToMemory(blk), Public: sp, Signer: signer}
}

// Require skips the test when sshd is not installed.
func Require(t testing.TB) {
	t.Helper()
	if _, err := os.Stat(SSHD); err != nil {
		t.Skipf("SKIPPING: %s not installed (run scripts/install-deps.sh)", SSHD)
	}
}

// Start starts sshd and registers its shutdown with t.Cleanup.
func Start(t testing.TB, o Options) *Server {
	t.Helper()
	Require(t)
	if o.Netns != "" && os.Geteuid() != 0 {
		t.Skip("SKIPPING: network namespaces need root")
	}
	dir := t.TempDir()
	s := &Server{Dir: dir, Addr: o.Addr, Port: o.Port}
	if s.Addr == "" {
		s.Addr = "127.0.0.1"
	}
	if s.Port == 0 {
		s.Port = freePort(t)
	}
	host := NewKey(t)
	if o.HostKey != nil {
		host = *o.HostKey
	}
	client := NewKey(t)
	s.HostKey = host.Public
	must(t, os.WriteFile(filepath.Join(dir, "host_ed25519"), host.PrivatePEM, 0o600))
	s.ClientKey = filepath.Join(dir, "client_ed25519")
	must(t, os.WriteFile(s.ClientKey, client.PrivatePEM, 0o600))
	must(t, os.WriteFile(filepath.Join(dir, "authorized_keys"), ssh.MarshalAuthorizedKey(client.Public), 0o600))
	s.KnownHosts = filepath.Join(dir, "known_hosts")
	hostPattern := s.Addr
	if s.Port != 22 {
		hostPattern = fmt.Sprintf("[%s]:%d", s.Addr, s.Port)
	}
	must(t, os.WriteFile(s.KnownHosts, []byte(hostPattern+" "+string(ssh.MarshalAuthorizedKey(host.Public))), 0o600))
	cfg := fmt.Sprintf(`Port %d
ListenAddress %s
HostKey %s/host_ed25519
AuthorizedKeysFile %s/authorized_keys
PidFile %s/sshd.pid
StrictModes no
UsePAM no
PermitRootLogin yes
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
AllowTcpForwarding no
X11Forwarding no
PrintMotd no
ClientAliveInterval 5
LogLevel ERROR
%s
`, s.Port, s.Addr, dir, dir, dir, o.ExtraConfig)
	must(t, os.WriteFile(filepath.Join(dir, "sshd_config"), []byte(cfg), 0o644))
	must(t, os.MkdirAll("/run/sshd", 0o755))
	argv := []string{SSHD, "-D", "-e", "-f", filepath.Join(dir, "sshd_config")}
	if o.Netns != "" {
		argv = append([]string{"ip", "netns", "exec", o.Netns}, argv...)
	}
	log, err := os.Create(filepath.Join(dir, "sshd.log"))
	must(t, err)
	s.cmd = exec.Command(argv[0], argv[1:]...)
	s.cmd.Stdout, s.cmd.Stderr = log, log
	must(t, s.cmd.Start())
	t.Cleanup(s.Stop)
	s.waitReady(t, o.Netns)
	return s
}

func (s *Server) waitReady(t testing.TB, netns string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		var err error
		if netns == "" {
			var c net.Conn
			c, err = net.DialTimeout("tcp", net.JoinHostPort(s.Addr, strconv.Itoa(s.Port)), time.Second)
			if err == nil {
				c.Close()
				return
			}
		} else {
			// Listening check from inside the namespace.
			out, _ := exec.Command("ip", "netns", "exec", netns, "ss", "-ltnH", "sport", "= :"+strconv.Itoa(s.Port)).Output()
			if strings.Contains(string(out), strconv.Itoa(s.Port)) {
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	log, _ := os.ReadFile(filepath.Join(s.Dir, "sshd.log"))
	t.Fatalf("sshd did not listen on %s:%d within 10s; log:\n%s", s.Addr, s.Port, log)
}

// Stop kills sshd (its session children exit with it).
func (s *Server) Stop() {
	if s.cmd != nil && s.cmd.Process != nil {
		s.cmd.Process.Kill()
		s.cmd.Wait()
		if pid, err := os.ReadFile(filepath.Join(s.Dir, "sshd.pid")); err == nil {
			if n, err := strconv.Atoi(strings.TrimSpace(string(pid))); err == nil {
				if p, err := os.FindProcess(n); err == nil {
					p.Kill()
				}
			}
		}
	}
}

func freePort(t testing.TB) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	must(t, err)
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
