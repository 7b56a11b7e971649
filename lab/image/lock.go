package image

import (
	"bufio"
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"strings"
)

//go:embed packages.lock
var defaultLock []byte

// Package is one Debian package pinned to an exact version.
type Package struct {
	Name    string // e.g. "libibverbs1"
	Version string // Debian version, epoch included: "1:6.1-1"
}

// String renders the package as apt-get understands it: NAME=VERSION.
func (p Package) String() string { return p.Name + "=" + p.Version }

// FileName is the name under which the .deb is cached: unique per name and version, safe on any
// filesystem (':' of epochs becomes "%3a", as apt-get download does).
func (p Package) FileName() string {
	return p.Name + "_" + strings.ReplaceAll(p.Version, ":", "%3a") + "_amd64.deb"
}

// ErrBadLock is returned for a malformed lock file.
var ErrBadLock = errors.New("bad package lock")

// DefaultLock returns the lock file embedded in the binary (lab/image/packages.lock).
func DefaultLock() []byte { return bytes.Clone(defaultLock) }

// ParseLock reads NAME=VERSION lines; blank lines and '#' comments are ignored. Names must be
// unique. Errors name the line.
func ParseLock(r io.Reader) ([]Package, error) {
	var pkgs []Package
	seen := map[string]int{}
	sc := bufio.NewScanner(r)
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, ver, ok := strings.Cut(line, "=")
		name, ver = strings.TrimSpace(name), strings.TrimSpace(ver)
		if !ok || name == "" || ver == "" {
			return nil, fmt.Errorf("line %d: %q: want NAME=VERSION: %w", n, line, ErrBadLock)
		}
		if strings.ContainsAny(name, " \t/=") || strings.ContainsAny(ver, " \t/=") {
			return nil, fmt.Errorf("line %d: %q: blank, '/' or '=' inside name or version: %w", n, line, ErrBadLock)
		}
		if prev, dup := seen[name]; dup {
			return nil, fmt.Errorf("line %d: package %s already pinned on line %d: %w", n, name, prev, ErrBadLock)
		}
		seen[name] = n
		pkgs = append(pkgs, Package{Name: name, Version: ver})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading lock: %w", err)
	}
	if len(pkgs) == 0 {
		return nil, fmt.Errorf("no packages: %w", ErrBadLock)
	}
	return pkgs, nil
}

// KernelPackage returns the pinned kernel image package (the one whose name starts with
// "linux-image-").
func KernelPackage(pkgs []Package) (Package, error) {
	var found []Package
	for _, p := range pkgs {
		if strings.HasPrefix(p.Name, "linux-image-") {
			found = append(found, p)
		}
	}
	if len(found) != 1 {
		return Package{}, fmt.Errorf("want exactly one linux-image-* package, have %d: %w", len(found), ErrBadLock)
	}
	return found[0], nil
}
