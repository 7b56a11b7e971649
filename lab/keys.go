package lab

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"fmt"
	"os"
	"strings"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
)

// newKey generates an ed25519 key pair and returns the private key in OpenSSH PEM format and the
// public key in authorized_keys format (one line, with a trailing newline).
func newKey(comment string) (priv []byte, pub string, err error) {
	pk, sk, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, "", fmt.Errorf("generating ed25519 key: %w", err)
	}
	block, err := ssh.MarshalPrivateKey(sk, comment)
	if err != nil {
		return nil, "", fmt.Errorf("encoding private key: %w", err)
	}
	sp, err := ssh.NewPublicKey(pk)
	if err != nil {
		return nil, "", fmt.Errorf("encoding public key: %w", err)
	}
	return pem.EncodeToMemory(block), strings.TrimSpace(string(ssh.MarshalAuthorizedKey(sp))) + " " + comment + "\n", nil
}

// knownHostsLines renders a known_hosts file: every VM by name and by address.
func knownHostsLines(vms []VM) (string, error) {
	var b strings.Builder
	for _, v := range vms {
		pk, _, _, _, err := ssh.ParseAuthorizedKey([]byte(v.HostKey))
		if err != nil {
			return "", fmt.Errorf("parsing host key of %s: %w", v.Name, err)
		}
		b.WriteString(knownhosts.Line([]string{v.Name, v.Address.String()}, pk))
		b.WriteByte('\n')
	}
	return b.String(), nil
}

// writeKeys creates the controller key (once per state dir) and, per VM, a host key and the
// share's authorized_keys; then the known_hosts file.
func (s *State) writeKeys() error {
	if _, err := os.Stat(s.KeyPath); err != nil {
		priv, pub, err := newKey("fabricctl-lab-controller")
		if err != nil {
			return err
		}
		if err := os.WriteFile(s.KeyPath, priv, 0o600); err != nil {
			return fmt.Errorf("writing controller key: %w", err)
		}
		if err := os.WriteFile(s.KeyPath+".pub", []byte(pub), 0o644); err != nil {
			return fmt.Errorf("writing controller key: %w", err)
		}
	}
	pub, err := os.ReadFile(s.KeyPath + ".pub")
	if err != nil {
		return fmt.Errorf("reading controller key: %w", err)
	}
	for i := range s.VMs {
		v := &s.VMs[i]
		priv, hpub, err := newKey("root@" + v.Name)
		if err != nil {
			return err
		}
		v.HostKey = strings.TrimSpace(hpub)
		for name, data := range map[string][]byte{
			"ssh_host_ed25519_key": priv, "ssh_host_ed25519_key.pub": []byte(hpub), "authorized_keys": pub,
			"lab.env": []byte(s.GuestEnv(*v)),
		} {
			if err := os.WriteFile(v.Share+"/"+name, data, 0o600); err != nil {
				return fmt.Errorf("writing %s for %s: %w", name, v.Name, err)
			}
		}
	}
	kh, err := knownHostsLines(s.VMs)
	if err != nil {
		return err
	}
	if err := os.WriteFile(s.KnownHosts, []byte(kh), 0o644); err != nil {
		return fmt.Errorf("writing known_hosts: %w", err)
	}
	return nil
}
