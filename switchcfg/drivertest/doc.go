// Package drivertest is the conformance kit of switch drivers: every driver
// package's tests call it instead of keeping their own copy of the same
// checks, so a new platform gets them all and a new check (a transaction
// fault, a platform limit) is written once for every driver.
//
// Run checks what needs no device — the platform's Info, registration,
// port names, golden renderings, render → read-back → parse round trips,
// refused intents, Observe through a session, and Push's refusal of a
// foreign configuration:
//
//	func TestConformance(t *testing.T) {
//		drivertest.Run(t, New(), drivertest.Spec{
//			Register: Register,
//			Goldens:  drivertest.Goldens("render_%s.golden", intents), // name → intent
//			Readback: func(t testing.TB, cfg switchcfg.Config) switchcfg.Readback { … },
//			Base:     recipe,
//			Rejects:  []drivertest.Reject{{"mtu", func(in *fabric.SwitchIntent) { in.MTU = 9600 }, true, "MTU 9600"}},
//			GoodPorts: …, BadPorts: …,
//		})
//	}
//
// RunSimulated drives the driver over real SSH against its switch
// simulator (switchcfg/sim): push, observe, drift, an unchanged second push
// that commits nothing, and transaction safety (a dropped connection, a
// rejected line, a lost confirm; for a switchcfg.Recoverer, the recovery
// from its checkpoint) leaving the running configuration as it was, and
// variants of the lab intent pushed over it. Two checks cover what a push
// does after its change is live:
//
//   - VerifyFailure: the commit succeeds but the read-back differs from
//     the intent (PushOptions.Verify fails); the driver must restore the
//     configuration from before the push.
//   - LostConnection, the fault matrix: for every step of a push the
//     connection drops before the command runs, or after it ran and before
//     its reply ("executed but reply lost"), with and without
//     PushOptions.Reconnect; the push must end committed or rolled back as
//     the switch shows it, and its error may promise the switch's own
//     rollback only when a confirmed commit is pending (faults.go says
//     exactly what is checked).
//
// A new transaction fault belongs here, once, for every driver.
// StartSimulator starts one simulator for a test of its own.
//
// LabIntent is the lab's lossless intent on a platform's example ports.
//
// The read-back parsers share helpers: NeighborGolden, NeighborPorts,
// NeighborErrors and NeighborFuzz for switchcfg.NeighborReader;
// CounterGolden, CounterValues, CounterErrors and CounterFuzz for
// switchcfg.CounterReader (golden samples, located errors naming the
// command, no panic on any input).
//
// The kit is for tests only. Run and RunSimulated run subtests (only the
// fault matrix's in parallel, each on its own simulator); each call starts
// its own simulators, so calls from several tests may run at once.
package drivertest
