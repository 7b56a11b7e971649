package main

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

	"github.com/spf13/cobra"
	"golang.org/x/crypto/ssh"

	"github.com/fabricctl/fabricctl/switchcfg/sim"
)

// newSwitchSimCmd runs one switch simulator until interrupted. The lab command
// tree mounts a second instance as "fabricctl lab switch-sim".
func newSwitchSimCmd(g *globals) *cobra.Command {
	var platform, listen, passwordEnv, hostKeyFile, authorizedKeysFile, user, hostname string
	cmd := &cobra.Command{
		Use:   "switch-sim --platform P --listen ADDR",
		Short: "Run a switch SIMULATOR over SSH (a test double, not a switch)",
		Long: "Run one simulated switch (" + strings.Join(sim.Platforms(), ", ") + ") that speaks SSH with the\n" +
			"platform's prompts, modes, read-back formats, error messages and transactions, until interrupted.\n" +
			"It is a SIMULATOR for tests and the lab: it configures nothing.\n\n" +
			"stdout gets the listening address and a known_hosts line for it; log in as the platform's\n" +
			"default user (cumulus for cumulus-nvue, admin otherwise) with the password from --password-env\n" +
			"and/or a key from --authorized-keys.",
		Example: "  SIM_PASSWORD=secret fabricctl switch-sim --platform arista-eos --listen 127.0.0.1:2222 --password-env SIM_PASSWORD",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opt := sim.Options{Platform: platform, User: user, Hostname: hostname}
			if passwordEnv != "" {
				opt.Password = os.Getenv(passwordEnv)
				if opt.Password == "" {
					return fmt.Errorf("environment variable %s (--password-env) is empty or unset", passwordEnv)
				}
			}
			if authorizedKeysFile != "" {
				keys, err := readAuthorizedKeys(authorizedKeysFile)
				if err != nil {
					return err
				}
				opt.AuthorizedKeys = keys
			}
			if opt.Password == "" && len(opt.AuthorizedKeys) == 0 {
				return errors.New("give --password-env or --authorized-keys: the simulator never accepts logins without credentials")
			}
			if hostKeyFile != "" {
				signer, err := loadOrCreateHostKey(hostKeyFile)
				if err != nil {
					return err
				}
				opt.HostKey = signer
			}
			srv, err := sim.New(opt)
			if err != nil {
				return err
			}
			if err := srv.Listen(listen); err != nil {
				return err
			}
			defer srv.Close()
			fmt.Fprintf(g.stdout, "simulated %s listening on %s (user %s)\n%s\n",
				srv.Platform(), srv.Addr(), srv.User(), srv.KnownHostsLine())
			g.log.Info("switch simulator running; interrupt to stop", "platform", platform, "address", srv.Addr())
			<-cmd.Context().Done()
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&platform, "platform", "", "platform to simulate: "+strings.Join(sim.Platforms(), ", "))
	f.StringVar(&listen, "listen", "127.0.0.1:2222", "address to listen on (port 0 picks a free one)")
	f.StringVar(&passwordEnv, "password-env", "", "environment variable holding the login password")
	f.StringVar(&hostKeyFile, "host-key", "", "private host key file (OpenSSH or PEM); created as ed25519 when missing (default: a fresh key per run)")
	f.StringVar(&authorizedKeysFile, "authorized-keys", "", "authorized_keys file of public keys allowed to log in")
	f.StringVar(&user, "user", "", "login name (default: the platform's usual account)")
	f.StringVar(&hostname, "hostname", "", "hostname in prompts and read-backs (default leaf01, sonic for SONiC)")
	_ = cmd.MarkFlagRequired("platform")
	return cmd
}

// loadOrCreateHostKey reads a host key, or writes a new ed25519 one when the
// file does not exist, so the simulator keeps its identity across restarts.
func loadOrCreateHostKey(path string) (ssh.Signer, error) {
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

// readAuthorizedKeys parses an authorized_keys file.
func readAuthorizedKeys(path string) ([]ssh.PublicKey, error) {
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
