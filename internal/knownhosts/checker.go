package knownhosts

import (
	"errors"
	"fmt"
	"net"
	"os"
	"sync"
	"time"

	"golang.org/x/crypto/ssh"
)

// Checker is the host-key check of one SSH dial as fabricctl makes it (it
// fits internal/remote's Config.HostKeys): the key address offers on port is
// checked against the known_hosts file at path ("~/" expands) as OpenSSH
// checks it, and the host key algorithms to offer come in OpenSSH's order,
// the types known for the host first.
//
// A refusal wraps ErrUnknown, ErrChanged or ErrRevoked (a *KeyError) and
// says how to fix it: ssh-keyscan for an unknown key or a missing file,
// ssh-keygen -R for a changed one, which may also be an attack. A parsed
// file is shared by every dial of the process until it changes on disk
// (parsing it per dial costs memory quadratic in the fleet size).
func Checker(path, address string, port int) (ssh.HostKeyCallback, []string, error) {
	path = expandHome(path)
	db, err := cached(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil, &refusal{ErrUnknown, fmt.Sprintf("unknown host key: known_hosts file %s does not exist; create it with ssh-keyscan -p %d %s >> %s",
				path, port, address, path)}
		}
		return nil, nil, fmt.Errorf("reading known_hosts %s: %w", path, err)
	}
	check := db.Callback(address, port)
	return func(hostname string, remote net.Addr, key ssh.PublicKey) error {
		err := check(hostname, remote, key)
		var ke *KeyError
		if !errors.As(err, &ke) {
			return err
		}
		switch {
		case errors.Is(err, ErrRevoked):
			return fmt.Errorf("host key revoked: %w", ke)
		case errors.Is(err, ErrChanged):
			return fmt.Errorf("host key changed: %w; this may be an attack. If the host was reinstalled, remove the old line with: ssh-keygen -R %q -f %s",
				ke, LookupName(address, port), path)
		}
		return fmt.Errorf("unknown host key: %w; if that fingerprint is right, trust it with: ssh-keyscan -p %d -t %s %s >> %s",
			ke, port, ke.Offered.Type(), address, path)
	}, db.Algorithms(address, port), nil
}

// refusal is a refusal without a KeyError: its text, wrapping a sentinel.
type refusal struct {
	err error
	msg string
}

func (r *refusal) Error() string { return r.msg }
func (r *refusal) Unwrap() error { return r.err }

// cache shares one parsed known_hosts per file (and modification time and
// size) across every dial of a run.
var cache sync.Map // path → cacheEntry

type cacheEntry struct {
	mod  time.Time
	size int64
	db   *DB
}

func cached(path string) (*DB, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if e, ok := cache.Load(path); ok {
		if e := e.(cacheEntry); e.mod.Equal(fi.ModTime()) && e.size == fi.Size() {
			return e.db, nil
		}
	}
	db, err := Load(path)
	if err != nil {
		return nil, err
	}
	cache.Store(path, cacheEntry{mod: fi.ModTime(), size: fi.Size(), db: db})
	return db, nil
}
