package knownhosts

import (
	"bufio"
	"bytes"
	"crypto/hmac"
	"crypto/sha1"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/crypto/ssh"
)

// Errors a refusal wraps.
var (
	// ErrUnknown: no line lists a key of the offered type for the host.
	ErrUnknown = errors.New("host key unknown")
	// ErrChanged: the host is listed with another key of the offered type.
	ErrChanged = errors.New("host key changed")
	// ErrRevoked: a @revoked line names the offered key or its CA.
	ErrRevoked = errors.New("host key revoked")
)

type marker int

const (
	plain marker = iota
	certAuthority
	revoked
)

// Line is one entry of a known_hosts file.
type Line struct {
	File   string
	Num    int
	marker marker
	hosts  string // the patterns as written
	Key    ssh.PublicKey
}

// String is FILE:LINE.
func (l Line) String() string { return l.File + ":" + strconv.Itoa(l.Num) }

// DB is the entries of one or more known_hosts files.
type DB struct {
	lines []Line
	// Clock is the time certificates are checked at (nil: time.Now).
	Clock func() time.Time
}

// Load reads known_hosts files; "~/" is expanded. Lines that do not parse
// are skipped, as OpenSSH skips them.
func Load(files ...string) (*DB, error) {
	db := &DB{}
	for _, f := range files {
		path := expandHome(f)
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		db.lines = append(db.lines, Parse(path, data)...)
	}
	return db, nil
}

// New returns a DB of the given lines (Parse's).
func New(lines ...[]Line) *DB {
	db := &DB{}
	for _, l := range lines {
		db.lines = append(db.lines, l...)
	}
	return db
}

func expandHome(p string) string {
	if strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			return home + p[1:]
		}
	}
	return p
}

// Parse reads the lines of a known_hosts file named file.
func Parse(file string, data []byte) []Line {
	var out []Line
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		f := strings.Fields(sc.Text())
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		l := Line{File: file, Num: n}
		switch f[0] {
		case "@cert-authority":
			l.marker, f = certAuthority, f[1:]
		case "@revoked":
			l.marker, f = revoked, f[1:]
		default:
			if strings.HasPrefix(f[0], "@") {
				continue // an unknown marker: OpenSSH skips the line
			}
		}
		if len(f) < 3 {
			continue
		}
		blob, err := base64.StdEncoding.DecodeString(f[2])
		if err != nil {
			continue
		}
		key, err := ssh.ParsePublicKey(blob)
		if err != nil || key.Type() != f[1] {
			continue
		}
		l.hosts, l.Key = f[0], key
		out = append(out, l)
	}
	return out
}

// LookupName is the name OpenSSH looks a host up by: host on port 22,
// "[host]:port" on others.
func LookupName(host string, port int) string {
	host = strings.ToLower(host)
	if port == 0 || port == 22 {
		return host
	}
	return "[" + host + "]:" + strconv.Itoa(port)
}

// matches reports whether the line's host patterns match name (OpenSSH's
// match_hostname: comma-separated, case-insensitive, * and ?, a negated
// match excludes).
func (l Line) matches(name string) bool {
	if strings.HasPrefix(l.hosts, "|1|") {
		return hashMatches(l.hosts, name)
	}
	matched := false
	for _, p := range strings.Split(l.hosts, ",") {
		neg := strings.HasPrefix(p, "!")
		p = strings.ToLower(strings.TrimPrefix(p, "!"))
		if p == "" || !wildcard(p, name) {
			continue
		}
		if neg {
			return false
		}
		matched = true
	}
	return matched
}

// hashMatches checks a "|1|salt|hash" entry: base64 HMAC-SHA1 of name
// keyed with salt.
func hashMatches(entry, name string) bool {
	parts := strings.Split(entry, "|")
	if len(parts) != 4 {
		return false
	}
	salt, err1 := base64.StdEncoding.DecodeString(parts[2])
	want, err2 := base64.StdEncoding.DecodeString(parts[3])
	if err1 != nil || err2 != nil {
		return false
	}
	m := hmac.New(sha1.New, salt)
	m.Write([]byte(name))
	return hmac.Equal(m.Sum(nil), want)
}

// wildcard matches s against p, where * is any run of characters and ? one.
func wildcard(p, s string) bool {
	for len(p) > 0 {
		switch p[0] {
		case '*':
			for p = p[1:]; len(p) > 0 && p[0] == '*'; p = p[1:] {
			}
			if p == "" {
				return true
			}
			for i := 0; i <= len(s); i++ {
				if wildcard(p, s[i:]) {
					return true
				}
			}
			return false
		case '?':
			if s == "" {
				return false
			}
		default:
			if s == "" || s[0] != p[0] {
				return false
			}
		}
		p, s = p[1:], s[1:]
	}
	return s == ""
}

// Fingerprint is a key's type and SHA256 fingerprint, as ssh prints them.
func Fingerprint(k ssh.PublicKey) string {
	return k.Type() + " " + ssh.FingerprintSHA256(k)
}

// KeyError is a refusal: what the host offered and the lines that decided.
type KeyError struct {
	Err     error  // ErrUnknown, ErrChanged or ErrRevoked
	Name    string // the lookup name
	Offered ssh.PublicKey
	// Conflict is the line listing another key of the offered type
	// (ErrChanged) or the @revoked line (ErrRevoked).
	Conflict *Line
	// Known lists the host's lines for other key types (ErrUnknown).
	Known []Line
	// Cert says why a certificate was not accepted, when one was offered.
	Cert string
}

func (e *KeyError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%v: %s offered %s", e.Err, e.Name, Fingerprint(e.Offered))
	if e.Cert != "" {
		fmt.Fprintf(&b, " in a certificate (%s)", e.Cert)
	}
	switch {
	case errors.Is(e.Err, ErrRevoked):
		fmt.Fprintf(&b, ", which %s revokes", e.Conflict)
	case errors.Is(e.Err, ErrChanged):
		fmt.Fprintf(&b, ", but %s lists %s for it", e.Conflict, Fingerprint(e.Conflict.Key))
	case len(e.Known) > 0:
		var ls []string
		for _, l := range e.Known {
			ls = append(ls, l.String()+" ("+l.Key.Type()+")")
		}
		fmt.Fprintf(&b, ", a type no line lists for it; known: %s", strings.Join(ls, ", "))
	default:
		b.WriteString(", which no known_hosts line lists")
	}
	return b.String()
}

func (e *KeyError) Unwrap() error { return e.Err }

// Callback checks the key a host offers when reached as host (the name or
// address the user gave) on port.
func (db *DB) Callback(host string, port int) ssh.HostKeyCallback {
	return func(_ string, _ net.Addr, key ssh.PublicKey) error { return db.Check(host, port, key) }
}

// Check decides on key as OpenSSH's ssh does (see the package doc).
func (db *DB) Check(host string, port int, key ssh.PublicKey) error {
	name := LookupName(host, port)
	var lines []Line
	for _, l := range db.lines {
		if l.matches(name) {
			lines = append(lines, l)
		}
	}
	plainKey, certWhy := key, ""
	if cert, ok := key.(*ssh.Certificate); ok {
		plainKey = cert.Key
		if l := revokedIn(lines, cert.SignatureKey); l != nil {
			return &KeyError{Err: ErrRevoked, Name: name, Offered: cert.SignatureKey, Conflict: l, Cert: "its CA"}
		}
		if l := revokedIn(lines, plainKey); l != nil {
			return &KeyError{Err: ErrRevoked, Name: name, Offered: plainKey, Conflict: l, Cert: "its key"}
		}
		certWhy = db.checkCert(lines, strings.ToLower(host), cert)
		if certWhy == "" {
			return nil
		}
		// As OpenSSH: "No matching CA found. Retry with plain key".
	}
	if l := revokedIn(lines, plainKey); l != nil {
		return &KeyError{Err: ErrRevoked, Name: name, Offered: plainKey, Conflict: l, Cert: certWhy}
	}
	var other []Line
	for i, l := range lines {
		if l.marker != plain {
			continue
		}
		if keyEqual(l.Key, plainKey) {
			return nil
		}
		if l.Key.Type() == plainKey.Type() {
			return &KeyError{Err: ErrChanged, Name: name, Offered: plainKey, Conflict: &lines[i], Cert: certWhy}
		}
		other = append(other, l)
	}
	return &KeyError{Err: ErrUnknown, Name: name, Offered: plainKey, Known: other, Cert: certWhy}
}

func revokedIn(lines []Line, k ssh.PublicKey) *Line {
	for i, l := range lines {
		if l.marker == revoked && keyEqual(l.Key, k) {
			return &lines[i]
		}
	}
	return nil
}

// checkCert returns "" when a trusted CA signed cert validly for host, or
// why not.
func (db *DB) checkCert(lines []Line, host string, cert *ssh.Certificate) string {
	trusted := slices.ContainsFunc(lines, func(l Line) bool { return l.marker == certAuthority && keyEqual(l.Key, cert.SignatureKey) })
	switch {
	case !trusted:
		return "signed by CA " + ssh.FingerprintSHA256(cert.SignatureKey) + ", which no @cert-authority line trusts for this host"
	case cert.CertType != ssh.HostCert:
		return "not a host certificate"
	case len(cert.ValidPrincipals) > 0 && !slices.Contains(cert.ValidPrincipals, host):
		return fmt.Sprintf("valid for %s, not %s", strings.Join(cert.ValidPrincipals, ","), host)
	case len(cert.CriticalOptions) > 0:
		return "it has critical options"
	}
	now := time.Now
	if db.Clock != nil {
		now = db.Clock
	}
	t := uint64(now().Unix())
	if t < cert.ValidAfter || (cert.ValidBefore != ssh.CertTimeInfinity && t >= cert.ValidBefore) {
		return "outside its validity period"
	}
	// The signed bytes are the certificate's blob without its signature.
	blob, sig := cert.Marshal(), ssh.Marshal(cert.Signature)
	if len(blob) < len(sig)+4 || cert.SignatureKey.Verify(blob[:len(blob)-len(sig)-4], cert.Signature) != nil {
		return "its signature does not verify"
	}
	return ""
}

func keyEqual(a, b ssh.PublicKey) bool { return bytes.Equal(a.Marshal(), b.Marshal()) }

// Algorithms orders the host key algorithms for host as OpenSSH does: those
// of the key types known_hosts lists for it first (certificate algorithms
// first when a CA is trusted for it), then the rest of x/crypto's defaults.
func (db *DB) Algorithms(host string, port int) []string {
	name := LookupName(host, port)
	var first []string
	add := func(algos ...string) {
		for _, a := range algos {
			if !slices.Contains(first, a) {
				first = append(first, a)
			}
		}
	}
	for _, l := range db.lines {
		if l.marker == certAuthority && l.matches(name) {
			for _, a := range ssh.SupportedAlgorithms().HostKeys {
				if strings.Contains(a, "-cert-") {
					add(a)
				}
			}
		}
	}
	for _, l := range db.lines {
		if l.marker == plain && l.matches(name) {
			add(algorithmsOf(l.Key.Type())...)
		}
	}
	if len(first) == 0 {
		return nil // x/crypto's defaults
	}
	for _, a := range ssh.SupportedAlgorithms().HostKeys {
		add(a)
	}
	return first
}

// algorithmsOf lists the signature algorithms of a key type.
func algorithmsOf(keyType string) []string {
	if keyType == ssh.KeyAlgoRSA {
		return []string{ssh.KeyAlgoRSASHA512, ssh.KeyAlgoRSASHA256, ssh.KeyAlgoRSA}
	}
	return []string{keyType}
}
