// Package hostops serves a host's lossless settings over the agent
// protocol: the ops observe, show, plan, apply, rollback, recover and
// settle, registered on an agent.Handler as the checks register theirs.
//
//	ops := &hostops.Ops{Open: openHost, Journal: dir}
//	ops.Register(h) // h is the agent.Handler of `fabricctl agent`
//
// The host's backends (hostcfg) are opened on the first request that needs
// them and shared by the requests of one Serve. An apply can carry the
// fingerprint of the plan the user confirmed: the agent plans again and
// refuses to apply a different plan (ErrorPlanChanged). With Journal set,
// every apply journals each write's pre-image before making it and keeps
// the journal until the controller settles it; recover rolls back one an
// interrupted apply left (docs/agent-protocol.md, "Interrupted applies").
//
// A request is checked before the host is opened: a desired state, a plan
// or an interface list whose names would leave their sysfs directory, or
// whose numbers are out of range (agent.CheckIntent, agent.CheckPlan), and
// an over-long journal id are bad requests. A well-formed netdev the host
// lacks is not: plan reports it as an error issue.
//
// An Ops is safe for concurrent use.
package hostops
