package session_test

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/fabricctl/fabricctl/switchcfg"
	"github.com/fabricctl/fabricctl/switchcfg/all"
	"github.com/fabricctl/fabricctl/switchcfg/session"
	"github.com/fabricctl/fabricctl/switchcfg/sim"
	"github.com/fabricctl/fabricctl/switchcfg/sim/simtest"
)

func dial(opt session.Options) (*session.Conn, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	return session.Dial(ctx, opt)
}

func TestDialRejectsAnUnknownHostKey(t *testing.T) {
	sw := simtest.Start(t, sim.Options{Platform: "arista-eos"})
	opt := sw.Options()
	opt.KnownHostsFile = filepath.Join(t.TempDir(), "empty")
	if err := os.WriteFile(opt.KnownHostsFile, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := dial(opt)
	if !errors.Is(err, session.ErrHostKeyUnknown) || !strings.Contains(err.Error(), sw.Addr()) {
		t.Fatalf("want ErrHostKeyUnknown naming %s, got %v", sw.Addr(), err)
	}
}

func TestDialRejectsAChangedHostKey(t *testing.T) {
	sw := simtest.Start(t, sim.Options{Platform: "junos"})
	// known_hosts holds another simulator's key for this address.
	other, err := sim.New(sim.Options{Platform: "junos", Password: "x"})
	if err != nil {
		t.Fatal(err)
	}
	line := strings.Replace(sw.KnownHostsLine(), strings.TrimSpace(string(ssh.MarshalAuthorizedKey(sw.HostKey()))),
		strings.TrimSpace(string(ssh.MarshalAuthorizedKey(other.HostKey()))), 1)
	opt := sw.Options()
	opt.KnownHostsFile = filepath.Join(t.TempDir(), "known_hosts")
	if err := os.WriteFile(opt.KnownHostsFile, []byte(line+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := dial(opt); !errors.Is(err, session.ErrHostKeyMismatch) {
		t.Fatalf("want ErrHostKeyMismatch, got %v", err)
	}
}

func TestDialWrongPasswordNeverShowsIt(t *testing.T) {
	sw := simtest.Start(t, sim.Options{Platform: "cisco-nxos"})
	var logs bytes.Buffer
	opt := sw.Options()
	const wrong = "Wr0ng-Pa55word-xyzzy"
	t.Setenv("LEAF_PASSWORD", wrong)
	opt.Password, opt.PasswordEnv = "", "LEAF_PASSWORD"
	opt.Logger = slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	_, err := dial(opt)
	if !errors.Is(err, session.ErrAuth) {
		t.Fatalf("want ErrAuth, got %v", err)
	}
	if strings.Contains(err.Error(), wrong) || strings.Contains(logs.String(), wrong) {
		t.Fatalf("the password leaked:\nerror: %v\nlogs: %s", err, logs.String())
	}
	opt.PasswordEnv = "NO_SUCH_VARIABLE_FOR_FABRICCTL"
	if _, err := dial(opt); !errors.Is(err, session.ErrNoCredentials) {
		t.Fatalf("unset password variable: want ErrNoCredentials, got %v", err)
	}
}

func TestPasswordNeverInDebugLogs(t *testing.T) {
	sw := simtest.Start(t, sim.Options{Platform: "arista-eos"})
	var logs bytes.Buffer
	opt := sw.Options()
	opt.Logger = slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	c := sw.DialWith(t, opt)
	if _, err := c.Send(context.Background(), "show version"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(logs.String(), "show version") {
		t.Fatal("the debug log is empty; the redaction test proves nothing")
	}
	if strings.Contains(logs.String(), sw.Password) {
		t.Fatalf("password in the debug log:\n%s", logs.String())
	}
	if got := slog.New(slog.NewTextHandler(&logs, nil)); got != nil {
		logs.Reset()
		got.Info("options", "opt", opt)
		if strings.Contains(logs.String(), sw.Password) {
			t.Fatalf("Options.LogValue shows the password: %s", logs.String())
		}
	}
}

func TestPublicKeyAuthentication(t *testing.T) {
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	block, err := ssh.MarshalPrivateKey(priv, "")
	if err != nil {
		t.Fatal(err)
	}
	keyFile := filepath.Join(t.TempDir(), "id_ed25519")
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(block), 0o600); err != nil {
		t.Fatal(err)
	}
	sshPub, err := ssh.NewPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	sw := simtest.Start(t, sim.Options{Platform: "sonic", AuthorizedKeys: []ssh.PublicKey{sshPub}})
	opt := sw.Options()
	opt.IdentityFile = keyFile
	c := sw.DialWith(t, opt)
	out, err := c.Send(context.Background(), "show version")
	if err != nil || !strings.Contains(out, "SONiC") {
		t.Fatalf("show version over key auth: %v %q", err, out)
	}
}

func TestSendConfigStopsAtTheRejectedLine(t *testing.T) {
	sw := simtest.Start(t, sim.Options{Platform: "arista-eos"})
	c := sw.Dial(t)
	lines := []string{"interface Ethernet1", "mtu 9214", "mtu bogus", "description never sent"}
	_, err := c.SendConfig(context.Background(), lines)
	if got := switchcfg.FailedLine(err); got != "mtu bogus" {
		t.Fatalf("FailedLine = %q (err %v)", got, err)
	}
	if !errors.Is(err, session.ErrCommandFailed) {
		t.Fatalf("want ErrCommandFailed, got %v", err)
	}
	want := []string{"configure terminal", "interface Ethernet1", "mtu 9214", "mtu bogus"}
	if got := c.History(); !reflect.DeepEqual(got, want) {
		t.Fatalf("history %q, want %q", got, want)
	}
	// The session is still usable after a rejected line.
	if _, err := c.Send(context.Background(), "end"); err != nil {
		t.Fatal(err)
	}
}

func TestSendConfigStaysInAModeTheDriverOpened(t *testing.T) {
	for platform, open := range map[string]string{
		"arista-eos": "configure session s1",
		"junos":      "configure private",
		"cisco-nxos": "configure terminal",
	} {
		t.Run(platform, func(t *testing.T) {
			sw := simtest.Start(t, sim.Options{Platform: platform})
			c := sw.Dial(t)
			if _, err := c.Send(context.Background(), open); err != nil {
				t.Fatal(err)
			}
			line := map[string]string{"arista-eos": "interface Ethernet1", "junos": "set interfaces et-0/0/0 mtu 9216",
				"cisco-nxos": "interface Ethernet1/1"}[platform]
			if _, err := c.SendConfig(context.Background(), []string{line}); err != nil {
				t.Fatal(err)
			}
			if got := c.History(); !reflect.DeepEqual(got, []string{open, line}) {
				t.Fatalf("history %q: SendConfig changed mode", got)
			}
		})
	}
	sw := simtest.Start(t, sim.Options{Platform: "junos"})
	c := sw.Dial(t)
	if _, err := c.SendConfig(context.Background(), []string{"set interfaces et-0/0/0 mtu 9216"}); err != nil {
		t.Fatal(err)
	}
	if got := c.History(); got[0] != "configure private" {
		t.Fatalf("Junos SendConfig from operational mode: history %q", got)
	}
}

func TestCancelledContextClosesTheSession(t *testing.T) {
	sw := simtest.Start(t, sim.Options{Platform: "cumulus-nvue"})
	c := sw.Dial(t)
	sw.SetFaults(sim.Faults{StallOn: "nv config show"})
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, err := c.Send(ctx, "nv config show -o json")
	if !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, session.ErrTimeout) {
		t.Fatalf("want the deadline, got %v", err)
	}
	if _, err := c.Send(context.Background(), "nv config diff"); !errors.Is(err, session.ErrClosed) {
		t.Fatalf("want ErrClosed after the cancellation, got %v", err)
	}
	ctx2, cancel2 := context.WithCancel(context.Background())
	cancel2()
	c2 := sw.Dial(t)
	if _, err := c2.Send(ctx2, "nv config diff"); !errors.Is(err, context.Canceled) {
		t.Fatalf("already cancelled: want context.Canceled, got %v", err)
	}
}

// TestUnknownPlatform: options without a session spec (a platform no driver
// describes) are refused before any connection.
func TestUnknownPlatform(t *testing.T) {
	_, err := session.Dial(context.Background(), session.Options{Platform: "ios", Address: "192.0.2.1"})
	if !errors.Is(err, session.ErrUnknownPlatform) || !strings.Contains(err.Error(), `"ios": no session spec`) {
		t.Fatalf("got %v", err)
	}
}

func TestConnectTimeoutWhenSSHNeverAnswers(t *testing.T) {
	// A port that accepts TCP and then says nothing, like a hung sshd.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	kh := filepath.Join(t.TempDir(), "known_hosts")
	if err := os.WriteFile(kh, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	junos, err := all.Registry().Driver("junos")
	if err != nil {
		t.Fatal(err)
	}
	_, err = session.Dial(context.Background(), session.Options{Platform: "junos", Spec: junos.Info().Session, Address: ln.Addr().String(),
		User: "admin", Password: "x", KnownHostsFile: kh, ConnectTimeout: 300 * time.Millisecond})
	if !errors.Is(err, session.ErrTimeout) || time.Since(start) > 5*time.Second {
		t.Fatalf("want ErrTimeout soon, got %v after %s", err, time.Since(start))
	}
}
