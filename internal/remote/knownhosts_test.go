package remote

import (
	"crypto/rand"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/internal/knownhosts"
	"github.com/fabricctl/fabricctl/internal/sshdtest"
	"golang.org/x/crypto/ssh"
)

// Host keys are checked as OpenSSH checks them (issue 13): a "*" pattern
// matches a non-22 port, a @cert-authority line is no plain host key, a
// host presenting a certificate is accepted when its plain key is listed or
// a trusted CA signed it; refusals name the offered key and file:line.
func TestKnownHostsAsOpenSSH(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("SKIPPING: sshd with PermitRootLogin needs root")
	}
	host, ca := sshdtest.NewKey(t), sshdtest.NewKey(t)
	dir := t.TempDir()
	cert := &ssh.Certificate{Key: host.Public, CertType: ssh.HostCert, ValidPrincipals: []string{"127.0.0.1"}, ValidBefore: ssh.CertTimeInfinity}
	if err := cert.SignCert(rand.Reader, ca.Signer); err != nil {
		t.Fatal(err)
	}
	certFile := filepath.Join(dir, "host-cert.pub")
	os.WriteFile(certFile, ssh.MarshalAuthorizedKey(cert), 0o644)
	s := sshdtest.Start(t, sshdtest.Options{HostKey: &host, ExtraConfig: "HostCertificate " + certFile})
	line := func(k ssh.PublicKey) string { return string(ssh.MarshalAuthorizedKey(k)) }
	for _, c := range []struct {
		name, knownHosts string
		wantErr          error
		wantText         string
	}{
		{name: "star pattern on a non-22 port", knownHosts: "* " + line(host.Public)},
		{name: "certificate, plain key listed", knownHosts: "[127.0.0.1]:*,other " + line(host.Public)},
		{name: "certificate of a trusted CA", knownHosts: "@cert-authority * " + line(ca.Public)},
		{name: "CA key as a plain key", knownHosts: "@cert-authority other " + line(ca.Public) + "@cert-authority * " + line(host.Public),
			wantErr: knownhosts.ErrUnknown, wantText: "which no @cert-authority line trusts for this host"},
		{name: "revoked", knownHosts: "* " + line(host.Public) + "@revoked * " + line(host.Public),
			wantErr: knownhosts.ErrRevoked, wantText: "known_hosts:2 revokes"},
	} {
		t.Run(c.name, func(t *testing.T) {
			kh := filepath.Join(t.TempDir(), "known_hosts")
			os.WriteFile(kh, []byte(c.knownHosts), 0o600)
			cl, err := dialTest(t, s, func(cfg *Config) { cfg.KnownHostsFile = kh })
			if c.wantErr == nil {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				cl.Close()
				return
			}
			if !errors.Is(err, c.wantErr) || !strings.Contains(err.Error(), c.wantText) || !strings.Contains(err.Error(), ssh.FingerprintSHA256(host.Public)) {
				t.Fatalf("want %v with %q and the offered key's fingerprint, got %v", c.wantErr, c.wantText, err)
			}
		})
	}
}
