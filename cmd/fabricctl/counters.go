package main

import (
	"fmt"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/fabricctl/fabricctl/action/counters"
	"github.com/fabricctl/fabricctl/action/fleet"
	"github.com/fabricctl/fabricctl/agent/agentclient"
	"github.com/fabricctl/fabricctl/internal/output"
)

func newCountersCmd(g *globals) *cobra.Command {
	var (
		file, agentPath, identity, knownHosts string
		only                                  []string
		insecure, all                         bool
		interval                              time.Duration
	)
	cmd := &cobra.Command{
		Use:   "counters -f FABRIC [--target NAME,...] [--interval DURATION] [--all]",
		Short: "Show the RoCE/RDMA counters of every host and switch port: PFC pause, ECN, CNP, loss, errors",
		Long: `Read the counters of every RDMA port of the fabric's hosts (through the agent over
SSH: hw_counters, counters, the netdev's statistics and ethtool -S) and of every
switch port (through the driver, as check does), and print one row per port:
PFC pause frames received and sent on each lossless priority, ECN-marked packets,
CNPs sent and handled, loss (out of sequence, sequence errors, ACK timeouts,
discards) and errors (symbol/CRC, link down). "-" is a counter the port does not
have (rxe has no pause or ECN counters), never 0. Ports whose loss and error
counters are all zero are summed up on one line unless --all.
--interval reads twice and prints the movements, with rates per second for the
congestion counters. -o json|yaml gives every counter of every port with the
file or command it was read from. Exit 0 when every target was read, 1 otherwise.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := output.Check(g.output); err != nil {
				return err
			}
			if interval < 0 {
				return fmt.Errorf("--interval %s is negative", interval)
			}
			f, err := g.loadFabric(cmd.Context(), file)
			if err != nil {
				return err
			}
			if insecure {
				fmt.Fprintln(g.stderr, "fabricctl: WARNING: --insecure-ignore-host-key: SSH host keys are NOT checked")
			}
			ctx, cancel := commandContext(cmd, g)
			defer cancel()
			d := agentclient.Self()
			d.RemotePath = agentPath
			var mu sync.Mutex
			rep, err := counters.RunFabric(ctx, f, fleet.Options{Registry: switchRegistry(), InsecureIgnoreHostKey: insecure, Only: only,
				Deployer: d, IdentityFile: identity, KnownHostsFile: knownHosts, Log: g.log, Dial: g.dial},
				counters.Options{Interval: interval, Parallel: g.parallel, Progress: func(format string, a ...any) {
					if !g.verbose {
						return
					}
					mu.Lock()
					defer mu.Unlock()
					fmt.Fprintf(g.stderr, "fabricctl: "+format+"\n", a...)
				}})
			if err != nil {
				return err
			}
			if err := output.Write(g.stdout, g.output, rep, func(t *output.TableWriter) { counters.Table(t, g.stdout, rep, all) }); err != nil {
				return err
			}
			if len(rep.Unread) > 0 {
				return exitCodeError{exitError}
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&file, "file", "f", "", "fabric file")
	fl.StringSliceVar(&only, "target", nil, "only these hosts and switches (repeat or comma-separate)")
	fl.DurationVar(&interval, "interval", 0, "read twice this far apart and print the movements and rates (default: the counters' values)")
	fl.BoolVar(&all, "all", false, "list every port, also those whose loss and error counters are all zero")
	fl.BoolVar(&insecure, "insecure-ignore-host-key", false, "DANGEROUS: do not check SSH host keys of hosts")
	fl.StringVar(&agentPath, "agent-path", agentclient.RemotePath, "where the agent is kept on hosts (relative to the login home)")
	fl.StringVar(&identity, "identity-file", "", "SSH private key for every host (overrides the fabric's ssh settings)")
	fl.StringVar(&knownHosts, "known-hosts", "", "known_hosts file for every host (overrides the fabric's ssh settings)")
	return cmd
}
