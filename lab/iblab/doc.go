// Package iblab runs the InfiniBand lab: ibsim (Debian ibsim-utils), a
// simulated InfiniBand fabric in one process, with a real OpenSM attached at
// the subnet manager's node and the real infiniband-diags talking to it
// through umad2sim (LD_PRELOAD), with no device, no kernel module and no
// root. docs/infiniband.md is the user's guide; ../shared/ib-lab-prototype/
// REPORT.md the field notes it is built on.
//
//	topo, guids, err := iblab.FromFabric(f)          // the declared spec.infiniband cabling, or generated; or iblab.Demo()
//	l, err := iblab.Up(ctx, iblab.Options{Dir: dir, Topology: topo, Partitions: text}, log)
//	defer l.Down(ctx)
//	out, err := l.Diag(ctx, "", "ibnetdiscover", "-p") // at the SM's node
//	p := l.Pusher()                                    // opensm.Pusher on the lab's files, verified by P_Keys
//	reply, err := l.Sim(ctx, `Unlink "lab-h1"[1]`)    // any ibsim console command
//
// Everything a lab writes stays in its directory: topology.net, opensm.conf,
// partitions.conf, opensm.log, the pid files, ibsim's console FIFO and its
// replies (ibsim.out), OpenSM's cache and dump directories and clients/, the
// working directory of every diag (umad2sim writes a fake sysfs there).
// Each lab has its own ibsim socket name, so labs run side by side; a name
// already bound is refused, because a second ibsim on it would panic after
// start-up and its OpenSM would reprogram the other lab. Down stops OpenSM,
// then ibsim, by their recorded PIDs, checking /proc/PID/comm first so that
// a reused PID is never signalled.
//
// Env(node) and ClientsDir() are what a client needs to attach at a node
// (LD_PRELOAD, IBSIM_SOCKNAME, SIM_HOST; a writable working directory):
// the ib checks' lab tests run action/ibcheck with them, and a healthy lab,
// a pulled cable, a degraded width, symbol errors, MAD loss, a moved cable
// and a second SM each give exactly their finding (ibcheck_test.go).
//
// Load(dir) finds a running lab again from another process (what `fabricctl
// lab up --ib` and `lab down --ib` do).
package iblab
