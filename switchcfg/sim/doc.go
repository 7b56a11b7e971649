// Package sim is a switch SIMULATOR: a test double that speaks SSH like a
// Cumulus Linux (NVUE), SONiC, Arista EOS, Cisco NX-OS or Junos switch, so
// fabricctl's drivers can be tested end to end over real SSH without
// hardware. It is not a switch and never claims to be one: every login prints
// Banner ("*** fabricctl switch SIMULATOR ...") and every platform's banner,
// version output and read-back header says SIMULATOR.
//
// Start one, write its host key to a known_hosts file, connect:
//
//	srv, err := sim.New(sim.Options{Platform: "arista-eos", Password: "pw"})
//	if err != nil { ... }
//	if err := srv.Listen("127.0.0.1:0"); err != nil { ... }
//	defer srv.Close()
//	srv.WriteKnownHosts(knownHostsPath) // "[127.0.0.1]:PORT ssh-ed25519 ..."
//	// ssh srv.User()@srv.Addr() with password "pw"
//
// LoadOrCreateHostKey and ReadAuthorizedKeys read the key files of a
// long-running simulator (`fabricctl switch-sim --host-key
// --authorized-keys`) into Options.HostKey and Options.AuthorizedKeys;
// Options.LoadCredentials does all of it, with the password from an
// environment variable, and refuses a simulator without credentials.
//
// What each platform implements (prompts and modes exactly as scrapligo's
// platform definitions expect them; the read-back printed in the NOS's own
// format; the NOS's error strings for lines its grammar does not accept):
//
//   - cumulus-nvue: prompt "cumulus@leaf01:mgmt:~$ ". "nv set"/"nv unset" paths
//     of the qos, interface and system trees are validated against a schema
//     and staged in the user's pending revision; "nv config diff [-o json]"
//     (YAML "- set:"/"- unset:" documents), "nv config apply -y [--confirm
//     <t>]" (a confirmed apply rolls back unless "nv config apply
//     --confirm-yes" follows in time, with or without -y; a plain "nv config
//     apply -y" does not confirm; "--confirm-no" rolls it back now,
//     "--confirm-status" says how long is left), "nv config detach", "nv config show
//     -o json" ([{"header":...},{"set":<applied>}]), "nv show <path> -o json",
//     "nv config save". Errors: "Invalid Command: ...", "Error: ...".
//   - sonic: a bash prompt "admin@sonic:~$ " with here-documents ("cat >
//     FILE <<'EOF'"), redirections, rm, mktemp; "sudo config checkpoint NAME",
//     "sudo config apply-patch [--dry-run] FILE" (RFC 6902 patches, CONFIG_DB
//     validated per table like GCU's YANG check, output in GCU's words incl.
//     "converted into N changes"), "sudo config rollback NAME", "sudo config
//     save -y", "show runningconfiguration all" (CONFIG_DB JSON). "config"
//     without sudo prints "Root privileges are required for this operation".
//   - arista-eos: "leaf01#"; "configure terminal" edits running directly;
//     "configure session NAME" edits a copy, "show session-config diffs"
//     (unified diff), "commit", "commit timer hh:mm:ss" (+ "configure session
//     NAME commit" to confirm; "configure session NAME abort" rolls a pending
//     timer back now), "abort", "show configuration sessions" (each session's
//     state); "show running-config" is hierarchical
//     text with "!" separators. Errors: "% Invalid input", "% Incomplete command".
//   - cisco-nxos: "leaf01#"; "configure terminal" edits running directly;
//     "checkpoint NAME", "show diff rollback-patch checkpoint NAME
//     running-config", "rollback running-config checkpoint NAME", "copy
//     running-config startup-config". Errors: a caret line and "% Invalid
//     command at '^' marker.".
//   - junos: "admin@leaf01> "; "configure private" ("[edit]" / "admin@leaf01# ")
//     with set/delete statements validated against the class-of-service
//     schema, "load set terminal" (^D ends), "show | compare", "commit check",
//     "commit" (references checked: "error: configuration check-out failed"),
//     "commit confirmed N" (rolls back after N minutes unless "commit"
//     follows; "show system commit" lists it as "commit confirmed, rollback
//     in Nmins"), "rollback N"; "show configuration class-of-service" in curly
//     braces and "| display set". Errors: a caret line and "syntax error.".
//
// The grammars accept the statements fabricctl's drivers render (and the usual
// neighbours of those statements); anything else is rejected the way the NOS
// rejects it. The Cisco-style CLIs fall back to parent modes like the real
// ones (a global command typed inside an interface leaves the interface).
//
// Every platform serves its LLDP neighbour table, in the NOS's own shape,
// from Options.Neighbors (lldp.go lists the commands; `fabricctl
// switch-sim --lldp-socket` reads it from a real lldpd); a failing source
// answers with the NOS's error, as when its LLDP daemon is down. Likewise
// every platform serves its ports' receive error counters from
// Options.Counters (counters.go lists the commands); tests inject errors
// on a port through a PortCounters.
//
// Tests use the API beside SSH: Running prints the running configuration as
// the platform's read-back command does; Apply edits it directly (an
// out-of-band change to create drift); Stats counts commits, confirmations,
// rollbacks, aborts and saves; Commands lists every line received;
// ExpireConfirm fires a pending confirm timer now instead of waiting minutes.
// Faults inject failures on demand: drop the connection after N commands or
// on a given command (without running it), run a given command and then
// drop the connection before its reply ("executed but reply lost"), reject
// a given line with the platform's error, never answer a command (the
// prompt never comes), delay every reply.
//
// Concurrency: every Server method is safe for concurrent use; one Server
// holds one device whose state all its SSH sessions share (like a switch), and
// each session has its own CLI mode, EOS session or Junos private candidate.
package sim
