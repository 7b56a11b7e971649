// Package knownhosts checks SSH host keys against OpenSSH known_hosts files
// the way OpenSSH's ssh does, where golang.org/x/crypto/ssh/knownhosts does
// not:
//
//   - a host is looked up as "host" on port 22 and as "[host]:port" on
//     any other port, and patterns (with * and ?, negated with !) are matched
//     against that whole name, so "*" and "[10.0.0.*]:2222" match non-22 ports;
//     hashed names (|1|salt|hash) are HMAC-SHA1 of that name;
//   - @cert-authority lines trust a CA for the hosts they name; they never
//     list a plain host key;
//   - a host presenting a certificate is accepted when a trusted CA signed it
//     and it is valid for the host (principals, validity period); otherwise,
//     as OpenSSH does, its plain key is checked like any other;
//   - @revoked lines refuse a key (and a certificate of, or signed by, it);
//   - every refusal says what the host offered (type and SHA256 fingerprint)
//     and which known_hosts file:line conflicts, and wraps ErrUnknown,
//     ErrChanged or ErrRevoked.
//
// Use:
//
//	db, err := knownhosts.Load("~/.ssh/known_hosts")
//	cfg := &ssh.ClientConfig{
//		HostKeyCallback:   db.Callback("leaf-01.lab", 22),
//		HostKeyAlgorithms: db.Algorithms("leaf-01.lab", 22), // known key types first, as OpenSSH orders them
//	}
//
// A DB is immutable once loaded and safe for concurrent use.
package knownhosts
