package knownhosts_test

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha1"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fabricctl/fabricctl/internal/knownhosts"
	"github.com/fabricctl/fabricctl/internal/sshdtest"
	"golang.org/x/crypto/ssh"
)

func keyLine(k ssh.PublicKey) string { return strings.TrimSpace(string(ssh.MarshalAuthorizedKey(k))) }

func hashed(name string) string {
	salt := make([]byte, 20)
	rand.Read(salt)
	m := hmac.New(sha1.New, salt)
	m.Write([]byte(name))
	return "|1|" + base64.StdEncoding.EncodeToString(salt) + "|" + base64.StdEncoding.EncodeToString(m.Sum(nil))
}

// Which lines name a host agrees with OpenSSH's ssh-keygen -F, which looks
// hosts up as ssh does (issue 13: "*" missed non-22 ports).
func TestLookupAgreesWithSSHKeygen(t *testing.T) {
	if _, err := exec.LookPath("ssh-keygen"); err != nil {
		t.Skip("SKIPPING: ssh-keygen not installed (run scripts/install-deps.sh)")
	}
	k := sshdtest.NewKey(t).Public
	patterns := []string{"*", "10.0.0.1", "[10.0.0.1]:2222", "[10.0.0.*]:2222", "[10.0.0.1]:*", "*.lab", "*.lab,!bad.lab",
		"NODE1.LAB", "node?.lab", "10.0.0.*", "[*]:2222", hashed("[10.0.0.1]:2222"), hashed("node1.lab"), "!10.0.0.1"}
	hosts := []struct {
		host string
		port int
	}{{"10.0.0.1", 22}, {"10.0.0.1", 2222}, {"10.0.0.2", 2222}, {"node1.lab", 22}, {"node1.lab", 2200}, {"bad.lab", 22}, {"NODE1.lab", 22}}
	dir := t.TempDir()
	for _, p := range patterns {
		file := filepath.Join(dir, "known_hosts")
		content := p + " " + keyLine(k) + "\n"
		os.WriteFile(file, []byte(content), 0o600)
		db := knownhosts.New(knownhosts.Parse(file, []byte(content)))
		for _, h := range hosts {
			name := knownhosts.LookupName(h.host, h.port)
			err := exec.Command("ssh-keygen", "-F", name, "-f", file).Run()
			want := err == nil
			got := db.Check(h.host, h.port, k) == nil
			if got != want {
				t.Errorf("pattern %s, host %s: ssh-keygen -F found=%v, we found=%v", p, name, want, got)
			}
		}
	}
}

// Offers a key through a real handshake with sshd, and checks what both
// OpenSSH's ssh and our callback decide (issue 13's known_hosts forms).
func TestHostKeysAsOpenSSHDecides(t *testing.T) {
	sshdtest.Require(t)
	if _, err := exec.LookPath("ssh"); err != nil {
		t.Skip("SKIPPING: ssh not installed")
	}
	ca, otherCA, other := sshdtest.NewKey(t), sshdtest.NewKey(t), sshdtest.NewKey(t)
	type tc struct {
		name     string
		certBy   *sshdtest.Key // the host presents a certificate signed by it
		lines    func(host ssh.PublicKey, name string) string
		accept   bool
		wantErr  error
		wantText []string
	}
	cases := []tc{
		{name: "plain key listed", lines: func(h ssh.PublicKey, n string) string { return n + " " + keyLine(h) }, accept: true},
		{name: "star pattern on another port", lines: func(h ssh.PublicKey, n string) string { return "* " + keyLine(h) }, accept: true},
		{name: "port wildcard", lines: func(h ssh.PublicKey, n string) string { return "[127.0.0.1]:* " + keyLine(h) }, accept: true},
		{name: "hashed entry", lines: func(h ssh.PublicKey, n string) string { return hashed(n) + " " + keyLine(h) }, accept: true},
		{name: "CA line is no plain key", lines: func(h ssh.PublicKey, n string) string { return "@cert-authority * " + keyLine(h) },
			wantErr: knownhosts.ErrUnknown, wantText: []string{"which no known_hosts line lists"}},
		{name: "certificate of a trusted CA", certBy: &ca, lines: func(h ssh.PublicKey, n string) string { return "@cert-authority * " + keyLine(ca.Public) }, accept: true},
		{name: "certificate, plain key listed", certBy: &otherCA, lines: func(h ssh.PublicKey, n string) string { return n + " " + keyLine(h) }, accept: true},
		{name: "certificate of an untrusted CA", certBy: &otherCA, lines: func(h ssh.PublicKey, n string) string { return "@cert-authority * " + keyLine(ca.Public) },
			wantErr: knownhosts.ErrUnknown, wantText: []string{"in a certificate (signed by CA " + ssh.FingerprintSHA256(otherCA.Public) + ", which no @cert-authority line trusts"}},
		{name: "revoked key", lines: func(h ssh.PublicKey, n string) string { return n + " " + keyLine(h) + "\n@revoked * " + keyLine(h) },
			wantErr: knownhosts.ErrRevoked, wantText: []string{"known_hosts:2 revokes"}},
		{name: "revoked CA", certBy: &ca, lines: func(h ssh.PublicKey, n string) string {
			return "@cert-authority * " + keyLine(ca.Public) + "\n@revoked * " + keyLine(ca.Public)
		}, wantErr: knownhosts.ErrRevoked},
		{name: "changed key", lines: func(h ssh.PublicKey, n string) string { return "# comment\n" + n + " " + keyLine(other.Public) },
			wantErr: knownhosts.ErrChanged, wantText: []string{"known_hosts:2 lists ssh-ed25519 " + ssh.FingerprintSHA256(other.Public)}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			host := sshdtest.NewKey(t)
			o := sshdtest.Options{HostKey: &host}
			dir := t.TempDir()
			if c.certBy != nil {
				cert := &ssh.Certificate{Key: host.Public, CertType: ssh.HostCert, KeyId: "test", ValidPrincipals: []string{"127.0.0.1"},
					ValidBefore: ssh.CertTimeInfinity}
				if err := cert.SignCert(rand.Reader, c.certBy.Signer); err != nil {
					t.Fatal(err)
				}
				path := filepath.Join(dir, "host-cert.pub")
				os.WriteFile(path, ssh.MarshalAuthorizedKey(cert), 0o644)
				o.ExtraConfig = "HostCertificate " + path
			}
			srv := sshdtest.Start(t, o)
			name := knownhosts.LookupName(srv.Addr, srv.Port)
			kh := filepath.Join(dir, "known_hosts")
			os.WriteFile(kh, []byte(c.lines(host.Public, name)+"\n"), 0o600)

			// OpenSSH's own decision.
			ssh := exec.Command("ssh", "-F", "/dev/null", "-o", "UserKnownHostsFile="+kh, "-o", "GlobalKnownHostsFile=/dev/null",
				"-o", "StrictHostKeyChecking=yes", "-o", "BatchMode=yes", "-o", "IdentitiesOnly=yes", "-o", "ConnectTimeout=10",
				"-i", srv.ClientKey, "-p", strconv.Itoa(srv.Port), "root@"+srv.Addr, "true")
			out, err := ssh.CombinedOutput()
			if (err == nil) != c.accept {
				t.Fatalf("the test's expectation disagrees with OpenSSH: ssh accepted=%v\n%s", err == nil, out)
			}
			// Ours, through a real handshake.
			db, err := knownhosts.Load(kh)
			if err != nil {
				t.Fatal(err)
			}
			err = handshake(srv, db)
			if (err == nil) != c.accept {
				t.Fatalf("we accepted=%v (%v); OpenSSH accepted=%v", err == nil, err, c.accept)
			}
			if c.wantErr != nil && !errors.Is(err, c.wantErr) {
				t.Errorf("error %v, want %v", err, c.wantErr)
			}
			for _, w := range c.wantText {
				if err == nil || !strings.Contains(err.Error(), w) {
					t.Errorf("error %v lacks %q", err, w)
				}
			}
			if err != nil && !strings.Contains(err.Error(), "SHA256:") {
				t.Errorf("a refusal without the offered key's fingerprint: %v", err)
			}
		})
	}
}

// handshake connects to srv with db's callback and algorithm order.
func handshake(srv *sshdtest.Server, db *knownhosts.DB) error {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	addr := net.JoinHostPort(srv.Addr, strconv.Itoa(srv.Port))
	conn, err := (&net.Dialer{}).DialContext(ctx, "tcp", addr)
	if err != nil {
		return err
	}
	defer conn.Close()
	var hostErr error
	cb := db.Callback(srv.Addr, srv.Port)
	_, _, _, err = ssh.NewClientConn(conn, addr, &ssh.ClientConfig{User: "root", Timeout: 20 * time.Second,
		HostKeyAlgorithms: db.Algorithms(srv.Addr, srv.Port),
		HostKeyCallback: func(h string, r net.Addr, k ssh.PublicKey) error {
			hostErr = cb(h, r, k)
			return hostErr
		}})
	if hostErr != nil {
		return hostErr
	}
	if err != nil && strings.Contains(err.Error(), "unable to authenticate") {
		return nil // the host key was accepted; no client key was offered
	}
	return fmt.Errorf("handshake: %w", err)
}
