// Package agent is the host side of the controller ↔ host protocol: JSON
// requests on the agent's stdin, one JSON reply line each on its stdout
// (docs/agent-protocol.md is the reference). The controller runs
// `fabricctl agent` on a host over SSH; the agent observes, plans, applies
// and rolls back that host through hostcfg.
//
//	h := &agent.Handler{Open: openHost, Info: agent.Hello{Version: version}}
//	h.Register("exec-check", runCheck)          // ops beyond the built-in ones
//	failed, err := h.Serve(ctx, os.Stdin, os.Stdout)
//
// Every request names the apiVersion and the protocol version it speaks;
// `hello` is the handshake (versions, the binary's sha256, ops). An apply can
// carry the fingerprint of the plan the user confirmed: the agent plans
// again and refuses to apply a different plan. With Handler.Journal set,
// every apply journals each write's pre-image before making it and keeps
// the journal until the controller settles it; recover rolls back one an
// interrupted apply left (docs/agent-protocol.md, "Interrupted applies").
// Errors are replies with ok=false and a kind; the process exits 1 when any
// reply failed.
//
// A Handler is safe for concurrent use; the Host it opens is shared.
package agent
