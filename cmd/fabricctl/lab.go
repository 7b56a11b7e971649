package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/crypto/ssh"

	"github.com/fabricctl/fabricctl/lab"
	"github.com/fabricctl/fabricctl/lab/image"
)

// labTopologyFromFabric loads a fabric file (`lab up -f`) and makes it the lab's topology.
func labTopologyFromFabric(ctx context.Context, g *globals, path string) (lab.Topology, error) {
	f, err := g.loadFabric(ctx, path)
	if err != nil {
		return lab.Topology{}, err
	}
	return lab.TopologyFromFabric(f, fabricSource(path))
}

type labFlags struct {
	stateDir string
	netns    string
	ib       bool   // the InfiniBand lab (labib.go)
	ibDir    string // its directory
}

func newLabCmd(g *globals) *cobra.Command {
	f := &labFlags{}
	cmd := &cobra.Command{
		Use:   "lab",
		Short: "The soft-RoCE lab: a qemu VM per host with a real RoCE v2 device (rdma_rxe), in a private netns",
	}
	cmd.PersistentFlags().StringVar(&f.stateDir, "state-dir", lab.DefaultStateDir, "where a running lab keeps its state, keys and logs")
	cmd.PersistentFlags().StringVar(&f.netns, "netns", lab.DefaultNetns, "name of the lab's network namespace")
	cmd.PersistentFlags().BoolVar(&f.ib, "ib", false, "up, down, status: the InfiniBand lab (ibsim and a real OpenSM), not the soft-RoCE VMs")
	cmd.PersistentFlags().StringVar(&f.ibDir, "ib-dir", defaultIBLabDir, "where the InfiniBand lab keeps its files")
	cmd.AddCommand(newLabBuildCmd(g), newLabUpCmd(g, f), newLabDownCmd(g, f), newLabStatusCmd(g, f),
		newLabRunCmd(g, f), newLabExecCmd(g, f), newLabFaultCmd(g, f), newLabRecableCmd(g, f))
	return cmd
}

// phase prints how long a phase took, on stderr (make lab-test relies on these lines).
func phase(g *globals, name string, d time.Duration) {
	fmt.Fprintf(g.stderr, "lab: phase %-22s %6.1fs\n", name, d.Seconds())
}

func buildImage(ctx context.Context, g *globals) (image.Image, error) {
	b := &image.Builder{Log: g.log}
	img, err := b.Build(ctx)
	if err != nil {
		return img, err
	}
	if img.Reused {
		phase(g, "image (cached)", 0)
	} else {
		phase(g, "package fetch", img.FetchTime)
		phase(g, "image build", img.BuildTime)
	}
	return img, nil
}

func newLabBuildCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "build",
		Short: "Fetch the pinned Debian packages and build the lab image (only when its inputs changed)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			img, err := buildImage(cmd.Context(), g)
			if err != nil {
				return err
			}
			fmt.Fprintf(g.stdout, "kernel %s\ninitrd %s\nkernel-version %s\nhash %s\n", img.Kernel, img.Initrd, img.KernelVersion, img.Hash)
			return nil
		},
	}
}

func newLabUpCmd(g *globals, f *labFlags) *cobra.Command {
	var fabricFile, hosts string
	var o lab.Options
	cmd := &cobra.Command{
		Use:   "up",
		Short: "Build the image if needed, boot one VM per host and wait until each answers over SSH",
		Long: `Boots the lab: a network namespace with a bridge (the controller's address on it), one tap and
one qemu VM per host, each with rxe0 on eth0 at the host's address, a loopback device rxelb and
sshd (its own host key; the lab key authorised; known_hosts written for the controller).
Without -f or --hosts the lab fabric's four hosts lab-h1..lab-h4 (10.99.0.11-14/24) are used.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			if f.ib {
				return labUpIB(ctx, g, f, fabricFile)
			}
			topo := lab.DefaultTopology()
			switch {
			case fabricFile != "" && hosts != "":
				return errors.New("use -f or --hosts, not both")
			case fabricFile != "":
				t, err := labTopologyFromFabric(ctx, g, fabricFile)
				if err != nil {
					return err
				}
				topo = t
			case hosts != "":
				h, err := lab.ParseHosts(hosts)
				if err != nil {
					return err
				}
				topo.Hosts = h
			}
			if err := topo.Validate(); err != nil {
				return err
			}
			img, err := buildImage(ctx, g)
			if err != nil {
				return err
			}
			o.StateDir, o.Netns = f.stateDir, f.netns
			if o.SwitchSim, err = os.Executable(); err != nil {
				return fmt.Errorf("finding the fabricctl binary for the switch simulators: %w", err)
			}
			o.Fabricctl = o.SwitchSim
			t0 := time.Now()
			s, err := lab.Up(ctx, topo, img, o, g.log)
			if err != nil {
				return err
			}
			phase(g, fmt.Sprintf("boot+ssh (%d VMs)", len(s.VMs)), time.Since(t0))
			return printLabState(g, s)
		},
	}
	cmd.Flags().StringVarP(&fabricFile, "file", "f", "", "fabric file whose hosts become the lab's VM-hosts (- reads standard input)")
	cmd.Flags().StringVar(&hosts, "hosts", "", "VM-hosts as NAME=ADDR,... (inside 10.99.0.0/24)")
	cmd.Flags().IntVar(&o.MemoryMB, "memory", lab.DefaultMemoryMB, "MiB of memory per VM")
	cmd.Flags().IntVar(&o.CPUs, "cpus", lab.DefaultCPUs, "virtual CPUs per VM")
	cmd.Flags().DurationVar(&o.BootTimeout, "boot-timeout", lab.DefaultBootTimeout, "bound on boot until every VM answers over SSH; a VM over it is killed")
	cmd.Flags().BoolVar(&o.Slurm, "slurm", false, "also run Slurm: munged and slurmd in every VM (health check: fabricctl check --local -o nhc --drain), slurmctld in the lab namespace")
	cmd.Flags().DurationVar(&o.HealthCheckInterval, "health-check-interval", lab.DefaultHealthCheckInterval, "with --slurm: slurm.conf's HealthCheckInterval")
	return cmd
}

func printLabState(g *globals, s *lab.State) error {
	if g.output == "json" {
		return writeJSON(g.stdout, s)
	}
	s.WriteTable(g.stdout)
	return nil
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func newLabDownCmd(g *globals, f *labFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "down",
		Short: "Stop every VM and delete the lab namespace (idempotent)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if f.ib {
				return labDownIB(cmd.Context(), f)
			}
			return lab.Down(cmd.Context(), f.stateDir, f.netns, g.log)
		},
	}
}

func newLabStatusCmd(g *globals, f *labFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "status",
		Short: "Show the lab's VM-hosts: qemu running, SSH answering",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if f.ib {
				return labStatusIB(g, f)
			}
			s, err := lab.Load(f.stateDir)
			if err != nil {
				return err
			}
			st := s.Status(cmd.Context())
			bad := false
			for _, h := range st {
				bad = bad || !h.SSH
			}
			if g.output == "json" {
				if err := writeJSON(g.stdout, map[string]any{"apiVersion": lab.APIVersion, "state": s, "hosts": st}); err != nil {
					return err
				}
			} else {
				lab.WriteStatusTable(g.stdout, st)
			}
			if bad {
				return exitCodeError{exitError}
			}
			return nil
		},
	}
}

func newLabRunCmd(g *globals, f *labFlags) *cobra.Command {
	var names []string
	for _, s := range lab.Scenarios() {
		names = append(names, s.Name)
	}
	return &cobra.Command{
		Use:       "run SCENARIO...",
		Short:     "Run scenarios against the running lab (" + strings.Join(names, ", ") + ")",
		Long:      lab.ScenarioHelp(),
		Args:      cobra.MinimumNArgs(1),
		ValidArgs: names,
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := lab.Load(f.stateDir)
			if err != nil {
				return err
			}
			failed := false
			var results []*lab.Result
			for _, name := range args {
				t0 := time.Now()
				res, err := s.RunScenario(cmd.Context(), name, g.log)
				phase(g, "scenario "+name, time.Since(t0))
				if res != nil {
					results = append(results, res)
					failed = failed || !res.Passed
				}
				if err != nil {
					if res == nil {
						return err
					}
					fmt.Fprintf(g.stderr, "fabricctl: %v\n", err)
				}
			}
			if g.output == "json" {
				if len(results) == 1 {
					err = writeJSON(g.stdout, results[0])
				} else {
					err = writeJSON(g.stdout, results)
				}
				if err != nil {
					return err
				}
			} else {
				for _, res := range results {
					res.WriteTable(g.stdout, s.ResultPath(res.Scenario))
				}
			}
			if failed {
				return exitCodeError{exitError}
			}
			return nil
		},
	}
}

func newLabExecCmd(g *globals, f *labFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "exec HOST -- CMD [ARG...]",
		Short: "Run a command on a VM-host over SSH (from inside the lab namespace, host keys checked)",
		Args:  cobra.MinimumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := lab.Load(f.stateDir)
			if err != nil {
				return err
			}
			err = s.Run(cmd.Context(), args[0], strings.Join(args[1:], " "), g.stdout, g.stderr)
			var ee *ssh.ExitError
			if errors.As(err, &ee) {
				return exitCodeError{ee.ExitStatus()}
			}
			return err
		},
	}
}
