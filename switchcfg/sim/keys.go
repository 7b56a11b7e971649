package sim

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"golang.org/x/crypto/ssh"
)

// LoadOrCreateHostKey reads a host key, or writes a new ed25519 one when the
// file does not exist, so the simulator keeps its identity across restarts
// (Options.HostKey; `fabricctl switch-sim --host-key`).
func LoadOrCreateHostKey(path string) (ssh.Signer, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		_, priv, err := ed25519.GenerateKey(rand.Reader)
		if err != nil {
			return nil, fmt.Errorf("generating host key: %w", err)
		}
		block, err := ssh.MarshalPrivateKey(priv, "fabricctl switch simulator")
		if err != nil {
			return nil, fmt.Errorf("encoding host key: %w", err)
		}
		if err := os.WriteFile(path, pem.EncodeToMemory(block), 0o600); err != nil {
			return nil, fmt.Errorf("writing host key: %w", err)
		}
		return ssh.NewSignerFromKey(priv)
	}
	if err != nil {
		return nil, fmt.Errorf("reading host key: %w", err)
	}
	signer, err := ssh.ParsePrivateKey(b)
	if err != nil {
		return nil, fmt.Errorf("parsing host key %s: %w", path, err)
	}
	return signer, nil
}

// ReadAuthorizedKeys parses an authorized_keys file (Options.AuthorizedKeys).
func ReadAuthorizedKeys(path string) ([]ssh.PublicKey, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading authorized keys: %w", err)
	}
	var keys []ssh.PublicKey
	for line := 1; len(bytes.TrimSpace(b)) > 0; line++ {
		var k ssh.PublicKey
		k, _, _, b, err = ssh.ParseAuthorizedKey(b)
		if err != nil && len(keys) > 0 && strings.Contains(err.Error(), "no key found") {
			break // only comments left
		}
		if err != nil {
			return nil, fmt.Errorf("parsing authorized keys %s (key %d): %w", path, line, err)
		}
		keys = append(keys, k)
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("parsing authorized keys %s: no keys", path)
	}
	return keys, nil
}

// LoadCredentials sets o's login credentials and host key from where `fabricctl switch-sim`
// names them, each only when named: Password from the environment variable passwordEnv (set and
// not empty), AuthorizedKeys from authorizedKeysFile, HostKey from hostKeyFile
// (LoadOrCreateHostKey). Without a password or a key it refuses: the simulator never accepts
// logins without credentials.
func (o *Options) LoadCredentials(passwordEnv, authorizedKeysFile, hostKeyFile string) error {
	if passwordEnv != "" {
		o.Password = os.Getenv(passwordEnv)
		if o.Password == "" {
			return fmt.Errorf("environment variable %s (--password-env) is empty or unset", passwordEnv)
		}
	}
	if authorizedKeysFile != "" {
		keys, err := ReadAuthorizedKeys(authorizedKeysFile)
		if err != nil {
			return err
		}
		o.AuthorizedKeys = keys
	}
	if o.Password == "" && len(o.AuthorizedKeys) == 0 {
		return errors.New("give --password-env or --authorized-keys: the simulator never accepts logins without credentials")
	}
	if hostKeyFile != "" {
		signer, err := LoadOrCreateHostKey(hostKeyFile)
		if err != nil {
			return err
		}
		o.HostKey = signer
	}
	return nil
}
