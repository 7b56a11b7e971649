// Package sshdtest starts real OpenSSH sshd servers for tests: each with its own
// generated ed25519 host key, an authorized client key, and a known_hosts file
// for the client, listening on loopback or inside a network namespace.
//
//	srv := sshdtest.Start(t, sshdtest.Options{})            // 127.0.0.1, random port
//	srv := sshdtest.Start(t, sshdtest.Options{Netns: "h1", Addr: "10.77.0.11", Port: 22})
//
// It needs /usr/sbin/sshd (Debian openssh-server, installed by
// scripts/install-deps.sh) and root for namespaces; tests skip with a loud
// reason otherwise. Servers stop when the test ends. Start is safe for
// concurrent use by parallel tests.
package sshdtest
