package session_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/crypto/ssh"

	"github.com/fabricctl/fabricctl/switchcfg/session"
	"github.com/fabricctl/fabricctl/switchcfg/sim"
	"github.com/fabricctl/fabricctl/switchcfg/sim/simtest"
)

// Switch host keys are checked as OpenSSH checks them, and a refusal names
// the offered key's fingerprint and the conflicting known_hosts file:line
// (issue 13).
func TestSwitchHostKeysAsOpenSSH(t *testing.T) {
	sw := simtest.Start(t, sim.Options{Platform: "arista-eos"})
	other, err := sim.New(sim.Options{Platform: "arista-eos", Password: "x"})
	if err != nil {
		t.Fatal(err)
	}
	key := func(k ssh.PublicKey) string { return strings.TrimSpace(string(ssh.MarshalAuthorizedKey(k))) }
	fp := ssh.FingerprintSHA256(sw.HostKey())
	for _, c := range []struct {
		name, knownHosts string
		wantErr          error
		want             []string
	}{
		{name: "star pattern on a non-22 port", knownHosts: "* " + key(sw.HostKey())},
		{name: "changed", knownHosts: "# old\n* " + key(other.HostKey()), wantErr: session.ErrHostKeyMismatch,
			want: []string{fp, "known_hosts:2 lists ssh-ed25519 " + ssh.FingerprintSHA256(other.HostKey())}},
		{name: "CA line is no plain key", knownHosts: "@cert-authority * " + key(sw.HostKey()), wantErr: session.ErrHostKeyUnknown,
			want: []string{fp, "which no known_hosts line lists"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			opt := sw.Options()
			opt.KnownHostsFile = filepath.Join(t.TempDir(), "known_hosts")
			os.WriteFile(opt.KnownHostsFile, []byte(c.knownHosts+"\n"), 0o600)
			conn, err := dial(opt)
			if c.wantErr == nil {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				conn.Close()
				return
			}
			if !errors.Is(err, c.wantErr) {
				t.Fatalf("want %v, got %v", c.wantErr, err)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q: %v", w, err)
				}
			}
		})
	}
}
