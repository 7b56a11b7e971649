// Package lldpagent is the host agent's "lldp" op and its controller side:
// the agent runs lldpd's client (lldp.Command: lldpcli -f json show
// neighbors details) on the host and returns the parsed neighbours, so
// topology discovery works over the same SSH agent session as every other
// check, with no lldpcli output crossing the wire unparsed.
//
//	(&lldpagent.Agent{}).Register(h)             // in the agent (cmd/fabricctl)
//	obs, err := lldpagent.Observe(ctx, host, ag) // on the controller
//	disc := topology.Discover(obs, topology.Declared(f))
//
// A host without lldpd is an error naming the command and what to install,
// never "no neighbours": checks/topology then leaves the host out of the
// comparison instead of calling its cables missing.
//
// Agent is safe for concurrent use when its Run is.
package lldpagent
