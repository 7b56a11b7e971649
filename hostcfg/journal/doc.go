// Package journal keeps a host's apply journal: before an apply changes a
// setting it records the setting's pre-image durably, so an apply
// interrupted anywhere — its reply lost, the agent killed, the SSH
// connection dropped — can be rolled back later by whoever comes next (the
// controller's next contact, or `fabricctl host recover` on the host).
//
//	dir, _ := journal.Open(stateDir)                  // e.g. ~/.cache/fabricctl/state
//	txn, err := dir.Begin(host.Name, id)             // ErrBusy, or *InterruptedError: recover first
//	res, err := host.ApplyRecorded(ctx, plan, txn)   // each write journaled before it happens
//	rec, _ := txn.Finish()                           // "applied": kept until its caller settles it
//	…verify…
//	dir.Settle(ctx, host.Name, id)                   // acknowledged: the journal goes
//	// or, after a lost reply / a kill / a failed verify:
//	got, err := dir.Recover(ctx, host.Name, host)    // restores every written setting, removes the journal
//
// Dir.Apply is that sequence for an apply on the host itself (`fabricctl host
// apply`): verified by a fresh plan, settled, or on any failure rolled back
// on every interface; Dir.RecoverHosts is `fabricctl host recover`.
//
// One JSON file per host (<state>/<host>.journal) is replaced atomically
// (a temporary file, fsync, rename, fsync of the directory) before every
// write; <host>.lock is flocked for as long as an apply or a recovery runs,
// so a recovery waits for an apply still in progress and two applies never
// interleave. A journal states "applying" (the apply was writing: killed
// or still running — Status.InProgress tells), "applied" (it ran to its
// end and was not settled: its reply may have been lost) or
// "recovery-failed" (a recovery could not restore everything; it says
// why, and the next one tries again). Recovery restores each setting
// independently (hostcfg.Host.Restore): a setting already back at its
// pre-image is left alone, one someone changed since is refused, and one
// failure never undoes the others.
//
// A Dir is safe for concurrent use by goroutines and processes; a Txn
// belongs to one goroutine.
package journal
