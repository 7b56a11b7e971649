// Package fleet turns a loaded fabric into what the controller works on:
// the engine's targets (a subnet-manager target per manager, through its
// kind's driver; a switch target per switch, through its platform's driver
// and a scrapligo session; a host target per host, through its agent over
// SSH) and, for the checks, each host's agent. `fabricctl plan|apply|drift`
// and `check` build them here, and so does bench/scale, so the benchmark
// measures the command's own code.
//
//	targets, closeAll, err := fleet.Targets(f, fleet.Options{Registry: all.Registry(),
//		Deployer: agentclient.Self()})
//	defer closeAll()
//	plan := (&fabric.Engine{Parallel: 32}).Plan(ctx, targets)
//
// Connections are opened lazily, on a target's first use, with each
// target's ssh settings over the fabric's defaults (SSHConfig), and closed
// by closeAll. A host whose leaf label names a switch of the fabric depends
// on it: when the switch's push fails, the host is not changed. Recover
// asks every host's agent to roll back an interrupted apply (`fabricctl
// recover`).
//
// EachSwitch visits every switch with its driver over the same sessions as
// plan and apply, all switches at once, and ReadBack runs read-back
// commands over one of them: action/check reads the switches' LLDP tables
// and port error counters through them.
//
// Targets and Hosts are safe for concurrent use; what they return is used
// as the fabric engine and the check runner use it.
package fleet
