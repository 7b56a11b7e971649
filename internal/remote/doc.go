// Package remote is fabricctl's SSH client: it connects to hosts, subnet
// managers and other targets with strict host-key checking, runs commands from
// fixed argv (each argument quoted, never a shell string built from user input),
// and uploads files atomically.
//
//	c, err := remote.Dial(ctx, remote.Config{Address: "10.0.0.11", User: "root",
//	        KnownHostsFile: "~/.ssh/known_hosts", HostKeys: knownhosts.Checker})
//	out, err := c.Output(ctx, []string{"fabricctl", "version"}, nil)
//
// Host keys are always checked: Config.HostKeys checks the target's key
// against its known_hosts file (internal/knownhosts.Checker, which remote
// does not import: it imports nothing of fabricctl), and a Config without
// one is refused. An unknown or changed key is an error that prints the
// key's fingerprint and how to trust it.
// InsecureIgnoreHostKey exists for labs, is loud, and is never the default.
// Passwords come only from the environment variable the fabric names, and never
// appear in errors or logs.
//
// A Client is safe for concurrent use: each Run opens its own session.
package remote
