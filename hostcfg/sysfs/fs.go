package sysfs

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// ErrNotExist is wrapped when a device, port or file is absent.
var ErrNotExist = fs.ErrNotExist

// FS is a sysfs tree: "/sys" on a live host, a fixture directory in tests.
// Every path is built with Path from the root given to NewFS; nothing in this
// package names /sys directly.
type FS struct {
	root string
}

// NewFS returns the sysfs tree mounted at root.
func NewFS(root string) FS { return FS{root: filepath.Clean(root)} }

// Root returns the directory the tree is rooted at.
func (s FS) Root() string { return s.root }

// Path joins elem below the root: Path("class", "net") = <root>/class/net.
func (s FS) Path(elem ...string) string {
	return filepath.Join(append([]string{s.root}, elem...)...)
}

// exists reports whether the path below the root exists.
func (s FS) exists(elem ...string) bool {
	_, err := os.Stat(s.Path(elem...))
	return err == nil
}

// readLine reads a one-value sysfs file and trims the trailing newline and blanks.
func (s FS) readLine(ctx context.Context, elem ...string) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	p := s.Path(elem...)
	b, err := os.ReadFile(p)
	if err != nil {
		return "", fmt.Errorf("reading %s: %w", p, err)
	}
	return strings.TrimSpace(string(b)), nil
}

// readInt reads a one-value decimal file.
func (s FS) readInt(ctx context.Context, elem ...string) (int, error) {
	v, err := s.readLine(ctx, elem...)
	if err != nil {
		return 0, err
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, fmt.Errorf("reading %s: %q is not a decimal integer", s.Path(elem...), v)
	}
	return n, nil
}

// writeLine writes value to an existing sysfs attribute in one write(2), as
// echo does. It never creates files: a missing attribute is ErrNotExist.
func (s FS) writeLine(ctx context.Context, value string, elem ...string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	p := s.Path(elem...)
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		return fmt.Errorf("writing %s: %w", p, err)
	}
	_, werr := f.WriteString(value + "\n")
	cerr := f.Close()
	if err := errors.Join(werr, cerr); err != nil {
		return fmt.Errorf("writing %q to %s: %w", value, p, err)
	}
	return nil
}

// list returns the names in a directory below the root, sorted.
func (s FS) list(ctx context.Context, elem ...string) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	p := s.Path(elem...)
	ents, err := os.ReadDir(p)
	if err != nil {
		return nil, fmt.Errorf("listing %s: %w", p, err)
	}
	names := make([]string, 0, len(ents))
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names, nil
}

// linkBase returns the last element of a symlink's target ("" when the link is absent).
func (s FS) linkBase(elem ...string) string {
	t, err := os.Readlink(s.Path(elem...))
	if err != nil {
		return ""
	}
	return filepath.Base(t)
}
