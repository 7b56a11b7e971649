package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/fabricctl/fabricctl/checks/lldpagent"
	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/switchcfg/sim"
)

// newSwitchSimCmd runs one switch simulator until interrupted. The lab command
// tree mounts a second instance as "fabricctl lab switch-sim".
func newSwitchSimCmd(g *globals) *cobra.Command {
	var platform, listen, passwordEnv, hostKeyFile, authorizedKeysFile, user, hostname, lldpSocket string
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
			if err := opt.LoadCredentials(passwordEnv, authorizedKeysFile, hostKeyFile); err != nil {
				return err
			}
			if lldpSocket != "" {
				ag := &lldpagent.Agent{Socket: lldpSocket}
				opt.Neighbors = func() ([]fabric.Neighbor, error) {
					r, err := ag.Read(cmd.Context())
					return r.Neighbors, err
				}
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
	f.StringVar(&lldpSocket, "lldp-socket", "", "serve the LLDP neighbours of the lldpd behind this control socket (the two-leaf lab's leaves); default: none")
	_ = cmd.MarkFlagRequired("platform")
	return cmd
}
