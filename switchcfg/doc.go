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
//	diffs := switchcfg.Compare(intent, got) // unit-aware, tolerant
//
// Render and Parse are pure functions; everything that talks to a device goes
// through the Session interface so transcripts can be recorded and replayed.
// Drivers that are Transactors push a Config as one transaction
// (Transactor.Push) and fail with a *PushError naming the step and line. A
// push that loses its connection after changing a device with no candidate
// configuration (NX-OS) is recovered over a new session: set
// PushOptions.Reconnect and the driver does it itself, or call the driver's
// Recoverer.Recover with PushError.Checkpoint (recover.go).
//
// A Registry is safe for concurrent reads once built.
package switchcfg
