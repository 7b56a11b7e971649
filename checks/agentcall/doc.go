// Package agentcall is the controller's side of the agent protocol for the
// checks: it sends requests to `fabricctl agent` on a host and reads the
// replies as they come, one JSON line each.
//
// The checks need more than one request per agent process: a perftest server
// is started (the reply arrives once the server listens), the client runs on
// another host, and only then is the server asked for its outcome, in the same
// agent process that owns the server. A Session does that:
//
//	s := agentcall.Open(ctx, host)             // runs `fabricctl agent` on host
//	defer s.Close()
//	if err := s.Send(agentcall.Request("perftest-start", startArgs)); err != nil { … }
//	var started rdma.Started
//	if err := s.Recv(ctx, &started); err != nil { … } // the server is listening
//	… run the client elsewhere …
//	s.Send(agentcall.Request("perftest-wait", waitArgs))
//	s.Recv(ctx, &outcome)
//
// Call is the one-request form. An Agent is whatever runs the agent process
// with a given stdin and stdout: an SSH connection in fabricctl check, the
// lab's SSH in lab tests, an in-process agent.Handler in unit tests (Local).
//
// A Session is used by one goroutine at a time; Agents must be safe for
// concurrent use (several sessions run on one host at once).
package agentcall
