// Package agentclient delivers fabricctl to a target and talks to its agent.
//
// The controller runs the same static binary on every host: Ensure compares
// the sha256 the remote `fabricctl version -o json` reports with its own and
// uploads itself (temp file + rename, into a per-user cache directory) when the
// remote copy is absent or different. Call then runs `fabricctl agent` with a
// fixed argv, writes one JSON request on its stdin and decodes one JSON reply
// from its stdout.
//
//	d := agentclient.Self()                 // this binary
//	path, err := d.Ensure(ctx, sshClient)   // upload when needed
//	err = agentclient.Call(ctx, sshClient, path, req, &reply)
//
// A Deployer is safe for concurrent use by many targets.
package agentclient
