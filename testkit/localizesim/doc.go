// Package localizesim is a SIMULATOR of a two-tier Clos RoCE fabric under
// pairwise tests, for the localiser's tests and benchmark (bench/localize.sh).
// It is a test double: no packet is sent. A 1,024-host fabric cannot run on
// one machine, so the simulator stands in for it, and says so.
//
//	sim := localizesim.New(localizesim.Default(), seed) // 1,024 hosts, 32 leaves, 8 spines
//	faults := sim.Inject(3)                             // random NICs, access cables, uplinks
//	m, _ := localize.NewModel(sim.Topology(), localize.Options{})
//	rounds, _ := schedule.Topology(m.ScheduleHosts(), schedule.LeafLabel, 4)
//	s, _ := localize.Run(ctx, m, sim, rounds, localize.Options{})
//
// What it models, and the localiser does not see:
//
//   - ECMP: every inter-leaf test hashes to one spine, afresh each run (a new
//     queue pair, a new UDP source port); the localiser only knows the leaf's
//     uplink group.
//   - Congestion: an uplink carries Config.UplinkFlows full-rate flows per
//     direction; more flows hashed onto it share it (the ECMP collisions
//     that make healthy cross-leaf tests slow).
//   - Faults: a NIC fault (PCIe trained down, thermal throttling) slows every
//     test of the NIC without loss; a faulty access cable or uplink corrupts
//     frames in one direction or both, so tests whose data crosses it lose
//     packets (RDMA retransmits: the Loss flag) and those whose acknowledgements
//     cross it suffer less.
//   - Counters: corrupted frames count as receive errors at the receiving
//     end of the cable (a host NIC's rx_crc_errors_phy, a switch port's FCS
//     errors), unless the fault is silent; some healthy ends show a few
//     errors too. Host counters are always read; switch counters only with
//     Config.SwitchCounters (what switch drivers will read back).
//   - Noise: bandwidth jitter, measurement errors that read slow, loss
//     counters moving on a healthy path, tests that fail to run.
//
// With Config.IB (IB() is Default so) the fabric is InfiniBand: ports are
// numbered, every test's route is known (Routes: D-mod-K forwarding
// tables, the acknowledgements' route back through the client's spine),
// Inject draws IB faults evenly (a slow HCA; a corrupting, degraded-width
// or flapping access cable or uplink; a leaf port discarding what it
// sends), and ReadCounters reads every HCA and switch port's IBTA counters
// (SymbolErrorCounter, PortRcvErrors, LinkDownedCounter, PortXmitDiscards)
// through localize.IBCounterKind and localize.Deltas, with congestion
// discards and the odd link down on healthy ports, and with
// Config.PortState the ports' trained width.
//
// A Sim is not safe for concurrent use; use one per goroutine.
package localizesim
