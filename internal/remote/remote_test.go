package remote

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fabricctl/fabricctl/internal/knownhosts"
	"github.com/fabricctl/fabricctl/internal/sshdtest"
	"golang.org/x/crypto/ssh"
)

func dialTest(t *testing.T, s *sshdtest.Server, mod func(*Config)) (*Client, error) {
	t.Helper()
	cfg := Config{Name: "h1", Address: s.Addr, Port: s.Port, User: "root", IdentityFile: s.ClientKey,
		KnownHostsFile: s.KnownHosts, HostKeys: knownhosts.Checker, SSHConfigFile: "none", ConnectTimeout: 5 * time.Second}
	if mod != nil {
		mod(&cfg)
	}
	t.Setenv("SSH_AUTH_SOCK", "")
	return Dial(context.Background(), cfg)
}

func TestRealSSHD(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("SKIPPING: sshd with PermitRootLogin needs root")
	}
	s := sshdtest.Start(t, sshdtest.Options{})
	c, err := dialTest(t, s, nil)
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	defer c.Close()
	ctx := context.Background()

	t.Run("argv is quoted, never interpreted", func(t *testing.T) {
		marker := filepath.Join(t.TempDir(), "pwned")
		out, err := c.Output(ctx, []string{"echo", "a b", "$(touch " + marker + ")", "'; touch " + marker + "; '"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.TrimSpace(string(out)); got != "a b $(touch "+marker+") '; touch "+marker+"; '" {
			t.Errorf("echo printed %q", got)
		}
		if _, err := os.Stat(marker); err == nil {
			t.Fatal("an argument was executed by the remote shell")
		}
	})
	t.Run("exit status and stderr", func(t *testing.T) {
		_, err := c.Output(ctx, []string{"sh", "-c", "echo boom >&2; exit 3"}, nil)
		var ee *ExitError
		if !errors.As(err, &ee) || ee.Status != 3 || !strings.Contains(err.Error(), "boom") {
			t.Fatalf("want exit 3 with stderr, got %v", err)
		}
	})
	t.Run("stdin", func(t *testing.T) {
		out, err := c.Output(ctx, []string{"tr", "a-z", "A-Z"}, []byte("hello"))
		if err != nil || string(out) != "HELLO" {
			t.Fatalf("%q %v", out, err)
		}
	})
	t.Run("upload is atomic and leaves no temp file", func(t *testing.T) {
		dir := t.TempDir()
		dst := filepath.Join(dir, "sub dir", "fabricctl")
		if err := c.Upload(ctx, dst, []byte("#!/bin/sh\necho ok\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		out, err := c.Output(ctx, []string{dst}, nil)
		if err != nil || string(out) != "ok\n" {
			t.Fatalf("running the upload: %q %v", out, err)
		}
		entries, _ := os.ReadDir(filepath.Dir(dst))
		if len(entries) != 1 {
			t.Errorf("upload left %d entries", len(entries))
		}
	})
	t.Run("cancel returns promptly and signals the remote command", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
		defer cancel()
		// A duration unique to this run, so pgrep sees only our command.
		arg := fmt.Sprintf("29.%d", time.Now().UnixNano()%1_000_000_000)
		defer exec.Command("pkill", "-f", "^sleep "+arg+"$").Run()
		start := time.Now()
		_, err := c.Output(ctx, []string{"sleep", arg}, nil)
		// The bound is loose: opening the session (before the deadline applies)
		// can take seconds on a loaded machine; 29 s is the command's length.
		if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 20*time.Second {
			t.Fatalf("want a prompt deadline error, got %v after %s", err, time.Since(start))
		}
		// The client sends SIGKILL through the session; whether the server
		// delivers it is the server's business (OpenSSH ≥ 7.9 does for
		// commands it started itself). Report, do not fail on, what happened.
		time.Sleep(time.Second)
		if out, _ := exec.Command("pgrep", "-f", "^sleep "+arg+"$").Output(); len(out) > 0 {
			t.Logf("note: the server left the remote command running (pids %q); callers bound remote work themselves", out)
		}
	})
	t.Run("unknown host key names the fingerprint", func(t *testing.T) {
		empty := filepath.Join(t.TempDir(), "known_hosts")
		os.WriteFile(empty, nil, 0o600)
		_, err := dialTest(t, s, func(c *Config) { c.KnownHostsFile = empty })
		if !errors.Is(err, knownhosts.ErrUnknown) || !strings.Contains(err.Error(), "SHA256:") || !strings.Contains(err.Error(), "ssh-keyscan") {
			t.Fatalf("want unknown host key with fingerprint and advice, got %v", err)
		}
	})
	t.Run("changed host key is refused", func(t *testing.T) {
		other := sshdtest.NewKey(t)
		kh := filepath.Join(t.TempDir(), "known_hosts")
		line, _ := os.ReadFile(s.KnownHosts)
		pattern := strings.Fields(string(line))[0]
		os.WriteFile(kh, []byte(pattern+" "+string(bytesTrim(other))), 0o600)
		_, err := dialTest(t, s, func(c *Config) { c.KnownHostsFile = kh })
		if !errors.Is(err, knownhosts.ErrChanged) || !strings.Contains(err.Error(), "ssh-keygen -R") {
			t.Fatalf("want changed host key, got %v", err)
		}
	})
	t.Run("insecure mode connects without known_hosts", func(t *testing.T) {
		c2, err := dialTest(t, s, func(c *Config) { c.KnownHostsFile = "/nonexistent"; c.InsecureIgnoreHostKey = true })
		if err != nil {
			t.Fatal(err)
		}
		c2.Close()
	})
	t.Run("no host-key check configured is refused", func(t *testing.T) {
		_, err := dialTest(t, s, func(c *Config) { c.HostKeys = nil })
		if err == nil || !strings.Contains(err.Error(), "refusing to connect unchecked") {
			t.Fatalf("want a refusal, got %v", err)
		}
	})
	t.Run("wrong key and password never leak", func(t *testing.T) {
		k := sshdtest.NewKey(t)
		kf := filepath.Join(t.TempDir(), "id")
		os.WriteFile(kf, k.PrivatePEM, 0o600)
		t.Setenv("FABRICCTL_TEST_PW", "s3cret-hunter2")
		_, err := dialTest(t, s, func(c *Config) { c.IdentityFile = kf; c.PasswordEnv = "FABRICCTL_TEST_PW" })
		if !errors.Is(err, ErrAuth) {
			t.Fatalf("want auth failure, got %v", err)
		}
		if strings.Contains(err.Error(), "s3cret-hunter2") {
			t.Fatal("the password appeared in an error")
		}
	})
	t.Run("unset password variable is named, not guessed", func(t *testing.T) {
		_, err := dialTest(t, s, func(c *Config) { c.PasswordEnv = "FABRICCTL_UNSET_VAR" })
		if err == nil || !strings.Contains(err.Error(), "FABRICCTL_UNSET_VAR") {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("connect timeout", func(t *testing.T) {
		start := time.Now()
		// 192.0.2.0/24 is TEST-NET-1; nothing is sent beyond this machine because the dialer below never routes.
		_, err := Dial(context.Background(), Config{Address: "127.0.0.1", Port: 1, User: "root", IdentityFile: s.ClientKey,
			KnownHostsFile: s.KnownHosts, HostKeys: knownhosts.Checker, SSHConfigFile: "none", ConnectTimeout: time.Second})
		if err == nil || time.Since(start) > 5*time.Second {
			t.Fatalf("want a prompt error, got %v", err)
		}
	})
}

func bytesTrim(k sshdtest.Key) []byte {
	b := []byte(strings.TrimSpace(string(marshal(k))) + "\n")
	return b
}

func TestQuote(t *testing.T) {
	for in, want := range map[string]string{
		"eth0": "eth0", "": "''", "a b": "'a b'", "it's": `'it'\''s'`, "$(x)": "'$(x)'", "/usr/bin/x": "/usr/bin/x",
	} {
		if got := Quote(in); got != want {
			t.Errorf("Quote(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestSSHConfigAliases(t *testing.T) {
	cfg := `# comment
Host leaf-*  !leaf-99
    HostName 10.1.1.1
    Port 2222
    User cumulus
Host *
    User nobody
    IdentityFile ~/.ssh/other
`
	opts := parseSSHConfig(bufio.NewScanner(strings.NewReader(cfg)), "leaf-01")
	if opts["hostname"] != "10.1.1.1" || opts["port"] != "2222" || opts["user"] != "cumulus" || opts["identityfile"] != "~/.ssh/other" {
		t.Errorf("leaf-01: %v", opts)
	}
	opts = parseSSHConfig(bufio.NewScanner(strings.NewReader(cfg)), "leaf-99")
	if opts["hostname"] != "" || opts["user"] != "nobody" {
		t.Errorf("leaf-99: %v", opts)
	}
}

func marshal(k sshdtest.Key) []byte { return ssh.MarshalAuthorizedKey(k.Public) }
