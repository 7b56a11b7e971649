// Package agentclient is the controller's one client of `fabricctl agent`:
// it delivers fabricctl to a host and talks to its agent, for the engine's
// host targets and for the checks alike. ErrAgent is its one sentinel for an
// agent that answered ok=false.
//
// The controller runs the same static binary on every host: Ensure compares
// the sha256 the remote `fabricctl version -o json` reports with its own and
// uploads itself (temp file + rename, into a per-user cache directory) when the
// remote copy is absent or different. RoundTrip then runs `fabricctl agent`
// with a fixed argv, writes one JSON request on its stdin and decodes one JSON
// reply from its stdout; HostTarget reconciles a host for the fabric engine
// that way. The agent runs with --state-dir beside its binary (StateDirFor),
// where it journals every apply: HostTarget names each apply's journal,
// settles it once the host verifies, and asks the agent to recover it when
// the apply, the verify or the reply itself fails (a lost reply is
// recovered over a new connection); its error then says the host may have
// been half-changed and what the recovery did. RecoverInterrupted is
// `fabricctl recover`.
//
//	d := agentclient.Self()                         // this binary
//	path, err := d.Ensure(ctx, sshClient)           // upload when needed
//	err = agentclient.RoundTrip(ctx, sshClient, path, req, &reply)
//
// The checks need more than one request per agent process: a perftest server
// is started (the reply arrives once the server listens), the client runs on
// another host, and only then is the server asked for its outcome, in the same
// agent process that owns the server. A Session does that over an Agent:
//
//	host := &agentclient.Remote{Conn: sshClient, Deployer: d}
//	s := agentclient.Open(ctx, host)           // runs `fabricctl agent` on host
//	defer s.Close(ctx)
//	if err := s.SendOp("perftest-start", startArgs); err != nil { … }
//	var started rdma.Started
//	if err := s.Recv(ctx, &started); err != nil { … } // the server is listening
//	… run the client elsewhere …
//	s.SendOp("perftest-wait", waitArgs)
//	s.Recv(ctx, &outcome)
//
// A request larger than agent.MaxRequestBytes, which the agent would
// refuse, fails before it is sent.
//
// Call is the one-request form. An Agent is whatever runs the agent process
// with a given stdin and stdout: a Remote over SSH in fabricctl check, the
// lab's SSH in lab tests, an in-process agent.Handler in unit tests (Local).
//
// SelfSHA256 and SelfRevision describe the running binary: what an agent says of itself in its
// hello and `fabricctl version` prints; SelfSHA256 equals Self().Hash().
//
// A Deployer, a Remote and a HostTarget are safe for concurrent use. A
// Session is used by one goroutine at a time; Agents must be safe for
// concurrent use (several sessions run on one host at once). SelfSHA256 and SelfRevision are
// safe for concurrent use.
package agentclient
