// Package lab runs the soft-RoCE lab: one qemu VM per fabric host, each with a real RoCE v2
// device (rdma_rxe) on its NIC, all on a bridge inside a private network namespace, and the
// end-to-end scenarios that prove fabricctl against it. docs/lab.md is the user's guide.
//
// Bringing a lab up and using it from Go:
//
//	img, _ := (&image.Builder{}).Build(ctx)          // lab/image: kernel + initramfs, cached
//	topo := lab.DefaultTopology()                    // lab-h1..lab-h4 at 10.99.0.11-14/24
//	s, err := lab.Up(ctx, topo, img, lab.Options{}, log)
//	defer s.Down(ctx, log)
//	out, err := s.Output(ctx, "lab-h2", "rdma link show")   // real SSH, strict host keys
//	res, err := s.RunScenario(ctx, "perftest", log)        // also written to StateDir/results/perftest.json
//
// Another process finds the running lab with Load(stateDir) (default /run/fabricctl-lab): the
// State records the namespace, every VM (name, address, MAC, qemu pid, console log, 9p share) and
// the SSH material — user root, KeyPath (the controller's ed25519 key) and KnownHosts (every VM by
// name and address). State.Dial opens connections from inside the namespace (a drop-in dialer for
// SSH, switch sessions or HTTP), State.Connect returns an *ssh.Client, State.SSHConfig the client
// configuration, and State.InNetns runs any function (a listener for a switch simulator, say)
// inside the namespace.
//
// Topology is a plain struct (hosts, subnet, controller address, extra addresses on the bridge),
// so callers convert their own models into it; Plan lays a topology out (taps, MACs, files)
// without touching the system, and QemuArgs renders a VM's command line — both pure and
// unit-tested.
//
// Every wait is bounded: Up's boot watchdog (Options.BootTimeout) kills a VM that does not answer
// over SSH in time and reports it with its console tail (ErrVMHung, ErrVMDied); each Scenario has
// a Timeout, after which every VM is probed and a silent one killed; guest-side perftests run under
// timeout -s KILL.
//
// State.WriteTable, WriteStatusTable, Result.WriteTable and ScenarioHelp print the lab, its
// status and scenario results for people (what `fabricctl lab` shows with -o table).
// Faults on purpose (fault.go, `fabricctl lab fault`): State.AddFault puts netem on the RoCE v2
// traffic of a target — host/NAME (what the VM-host sends) or link/NAME (its cable, both ways) —
// records it in StateDir/faults.json, and State.ClearFaults takes it off again:
//
//	f, err := s.AddFault(ctx, "host/lab-h3", []string{"loss", "2%"})
//	defer s.ClearFaults(ctx, f.Target)
//
// The lossless emulation (lossless.go): rxe and Linux bridges have no PFC, so every leaf port
// facing a host (its tap) gets a queue deep enough that an incast never fills it
// (LosslessQueueLen); the fault PFCOff ("host/NAME pfc-off") gives NAME's port a shallow one
// (PFCOffQueueLen), which drops under incast only, and State.HostPortQueue reads the port's
// depth, tx_packets and tx_dropped.
//
// Miscabling on purpose (recable.go, `fabricctl lab recable`): in a two-leaf lab, State.Recable
// moves a host's tap to another port of either leaf while the VM runs, so that the VM's own lldpd
// and the leaf's see it where the fabric file does not declare it:
//
//	from, err := s.Recable(ctx, "lab-h1", "leaf-02", "swp3") // from is "leaf-01:swp1"
//
// Concurrency: a State may be used from several goroutines (its SSH connection cache is locked);
// Up and Down on the same state directory must not run concurrently with each other.
package lab
