// Package session is fabricctl's CLI session to a switch: the
// switchcfg.Session implementation over scrapligo v1 (pure Go, SSH through
// golang.org/x/crypto/ssh), plus playback of recorded transcripts.
//
// Open a session with Dial. Host-key checking is always strict, against the
// known_hosts file you name, with OpenSSH's semantics (internal/knownhosts:
// patterns over "[host]:port", @cert-authority, @revoked, hashed names; a
// refusal names the offered key's fingerprint and the conflicting
// file:line); scrapligo runs over a transport of this package for that. The
// password comes from an environment variable
// (secrets never sit in fabric files) or you log in with a key file:
//
//	c, err := session.Dial(ctx, session.Options{
//		Platform:       "arista-eos",       // a fabric platform name
//		Spec:           drv.Info().Session, // how to drive its CLI
//		Address:        "10.0.1.1",         // or "10.0.1.1:2222"
//		User:           "admin",
//		PasswordEnv:    "LEAF_PASSWORD",    // or IdentityFile: "~/.ssh/id_ed25519"
//		KnownHostsFile: "~/.ssh/known_hosts",
//	})
//	if err != nil { ... }            // errors.Is: ErrHostKeyUnknown, ErrHostKeyMismatch, ErrAuth, ErrTimeout
//	defer c.Close()
//	out, err := c.Send(ctx, "show running-config")
//	out, err = c.SendConfig(ctx, []string{"interface Ethernet1", "mtu 9214"})
//
// Send runs a command in the current mode; it never changes mode by itself, so
// a driver can open an EOS "configure session", a Junos "configure private"
// or an NX-OS "configure terminal" and run its transaction's diff and commit
// commands there. SendConfig enters the platform's configuration mode unless
// the prompt already is one (NVUE and SONiC have none: their lines run in the
// shell). Both recognise the platform's error messages ("% Invalid input",
// "syntax error.", "Error: ...", "-bash: x: command not found") at the start
// of an output line and return a *CommandError, which also unwraps to a
// *switchcfg.LineError naming the rejected line; the session stays usable.
//
// What to know about a platform comes from its driver, as a
// switchcfg.SessionSpec in the driver's Info: the scrapligo definition
// (cumulus-nvue → cumulus_linux, arista-eos → arista_eos, cisco-nxos →
// cisco_nxos, junos → juniper_junos are built into scrapligo; sonic brings
// its own sonic_bash.yaml, SONiC's login shell being bash), the configuration
// privilege level and the error messages. The package keeps no table of
// platforms.
//
// Timeouts: Options.ConnectTimeout bounds TCP connect, SSH handshake and the
// first prompt; Options.CommandTimeout bounds the wait for each prompt ("the
// prompt never comes"), shortened by a sooner context deadline. Cancelling the
// context of a running command closes the connection. After a timeout, a lost
// connection or a cancellation the session is closed, because a late reply
// would corrupt the next command's output; later calls return ErrClosed.
//
// Record and replay: Options.Record receives every byte read from the device
// (a *Recorder collects it safely while scrapligo's read loop writes).
// Replay plays such a transcript back through scrapligo's file transport, so a
// driver's Observe or Push can be re-run in a unit test without a switch;
// compare History of the replay with the recording's to check that the driver
// sent the same commands.
//
// The password never appears in errors or logs: scrapligo's log (routed to
// Options.Logger at debug level) and every returned error are scrubbed, and
// Options implements slog.LogValuer without it.
//
// Concurrency: a Conn serialises its own calls and may be shared, but one
// CLI runs one command at a time, so give each goroutine its own Conn when
// working on many switches. Dial and Replay are safe for concurrent use.
package session
