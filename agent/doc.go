// Package agent is the controller ↔ host protocol, both halves: the
// messages (Request, Reply, Hello, the ops and error kinds), the server
// that a host runs (Handler) and, in agent/agentclient, the controller's
// client. docs/agent-protocol.md is the reference.
//
// The controller runs `fabricctl agent` on a host over SSH: JSON requests
// on the agent's stdin, one JSON reply line each on its stdout. A Handler
// serves only the hello handshake by itself; every other op is registered
// by the package that owns it, host ops and check ops alike:
//
//	h := &agent.Handler{Info: agent.Hello{Version: version}}
//	(&hostops.Ops{Open: openHost, Journal: dir}).Register(h) // observe, show, plan, apply, rollback, recover, settle
//	(&rdma.Agent{…}).Register(h)                             // perftest-start, perftest-wait, cleanup
//	failed, err := h.Serve(ctx, os.Stdin, os.Stdout)
//
// An op registers either an OpFunc (Request.Args in, Reply.Data out, a
// failure is ErrorOp) or a RequestFunc (the whole request in, the whole
// reply out, built with OK and Fail). What an op keeps open across
// requests it closes through OnClose, which Serve runs when it ends.
//
// The agent takes only what the protocol documents. Serve reads no more
// than MaxRequestBytes of a request (one that grows past it ends the
// stream) and refuses ids and ops longer than MaxNameBytes. Ops decode
// their args with DecodeArgs (unknown fields, trailing data and values out
// of range are errors) and check names with CheckName before any lookup,
// then against the host's own lists with CheckKnown; desired states and
// plans go through CheckIntent and CheckPlan. Such errors wrap
// ErrBadRequest and are answered with ErrorBadRequest:
//
//	var args rdma.StartArgs
//	if err := agent.DecodeArgs(raw, &args); err != nil {
//		return nil, err // a bad-request reply
//	}
//
// Every request names the apiVersion and the protocol version it speaks;
// `hello` is the handshake (versions, the binary's sha256, ops). Errors
// are replies with ok=false and a kind; the process exits 1 when any reply
// failed.
//
// A Handler is safe for concurrent use.
package agent
