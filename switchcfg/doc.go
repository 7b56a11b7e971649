// Package switchcfg turns the canonical switch intent (fabric.SwitchIntent) into
// native configuration for each switch operating system, and native read-backs
// back into the canonical intent.
//
// Each NOS lives in its own package (switchcfg/cumulus, sonic, eos, nxos, junos)
// that exports Register(*Registry); switchcfg/all registers them all, explicitly:
//
//	reg := all.Registry()
//	d, err := reg.Driver("arista-eos") // ErrUnknownKind lists the valid names
//	cfg, err := d.Render(intent)        // pure
//	got, err := d.Parse(readback)       // pure: command → output
//	diffs := switchcfg.CompareFor(d, intent, got) // unit-aware, within d.Info().ThresholdQuantum
//
// Render and Parse are pure functions; everything that talks to a device goes
// through the Session interface so transcripts can be recorded and replayed.
// Every driver pushes a Config as one transaction (Driver.Push) and fails
// with a *PushError naming the step and line; switchcfg.Observe reads a
// device back through the driver's ParsePorts. What the rest of fabricctl
// needs to know about a platform (file extension, session, threshold
// quantum, limits, example ports) is its Info, so nothing outside the
// driver's package keeps a table keyed by platform name. Subnet managers
// (switchcfg/opensm, switchcfg/ufm) register in the same Registry
// (SubnetManager).
//
// A push is verified inside its transaction: PushOptions.Verify reads the
// device back while the change can still be undone (before the confirm, the
// save or dropping the checkpoint), and a difference makes the driver
// restore the configuration from before the push. Target sets it
// (VerifyIntent), reads the switch before the push, and after a failure
// reads it again to report what was reached. A push that loses its
// connection is recovered over a new session (PushOptions.Reconnect; the
// drivers share switchcfg.Recovery): the driver reads the device's own
// transaction state back (a pending confirmed commit, a session's state,
// the checkpoint) and commits or rolls back; PushError says RolledBack only
// when the driver saw so, ConfirmPending only when it saw the device's own
// rollback pending, and Unknown when it could not find out. A device with no
// candidate configuration (NX-OS) can also be recovered later: call the
// driver's Recoverer.Recover with PushError.Checkpoint (recover.go).
//
// Target's plan marks a change Disruptive where the ASIC reprograms what
// interrupts traffic — the MTU, trust, the PFC-enabled priorities, the
// lossless headroom, the class of a lossless DSCP — and not for watchdog
// timers, ECN thresholds, ETS weights or lossy classes staying lossy
// (disruption.go). After a Plan, Target.NativeDiff renders the reading and
// the intent natively and diffs them (native.go): what plan --native shows.
//
// Drivers may also read the switch's own state for fabricctl check:
// NeighborReader (lldp.go) its LLDP neighbours, CounterReader
// (counters.go) its ports' receive error counters.
//
// Every driver's tests run the conformance kit, switchcfg/drivertest, which
// also drives them against their simulators (switchcfg/sim).
//
// A Registry is safe for concurrent reads once built.
package switchcfg
