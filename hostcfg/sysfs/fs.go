package sysfs

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"github.com/fabricctl/fabricctl/hostcfg/internal/kfs"
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
func (s FS) Path(elem ...string) string { return kfs.Join(s.root, elem...) }

// exists reports whether the path below the root exists.
func (s FS) exists(elem ...string) bool {
	_, err := os.Stat(s.Path(elem...))
	return err == nil
}

// readLine reads a one-value sysfs file.
func (s FS) readLine(ctx context.Context, elem ...string) (string, error) {
	return kfs.ReadLine(ctx, s.Path(elem...))
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
	return kfs.WriteLine(ctx, s.Path(elem...), value)
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
