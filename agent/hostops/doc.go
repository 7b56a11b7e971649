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
// An Ops is safe for concurrent use.
package hostops
