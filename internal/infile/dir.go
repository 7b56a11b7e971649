package infile

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Dir is a directory tree of user input read as an fs.FS: its files are
// read as ReadFile reads them, within Limit each, and a symbolic link is
// followed only where its target stays inside the tree. Errors name the
// path as the user wrote it (Root joined with the name).
type Dir struct {
	root  string // as given, for messages
	real  string // with every link resolved, to hold links inside
	limit int64
	ctx   context.Context
}

// OpenDir returns the tree at root, whose files are read within limit
// bytes each. A root that is missing or not a directory is an error that
// says so.
func OpenDir(ctx context.Context, root string, limit int64) (*Dir, error) {
	fi, err := os.Stat(root)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, &Error{Path: root, Err: errors.New("no such directory")}
		}
		return nil, &Error{Path: root, Err: unwrapPath(err)}
	}
	if !fi.IsDir() {
		return nil, &Error{Path: root, Err: errors.New("not a directory")}
	}
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		return nil, &Error{Path: root, Err: unwrapPath(err)}
	}
	real, err = filepath.Abs(real)
	if err != nil {
		return nil, &Error{Path: root, Err: err}
	}
	return &Dir{root: root, real: real, limit: limit, ctx: ctx}, nil
}

// Path is name as the user would write it: the root joined with it.
func (d *Dir) Path(name string) string { return filepath.Join(d.root, filepath.FromSlash(name)) }

// resolve returns the real path of name, refusing one whose links lead
// outside the tree.
func (d *Dir) resolve(op, name string) (string, error) {
	if !fs.ValidPath(name) {
		return "", &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	full := filepath.Join(d.real, filepath.FromSlash(name))
	real, err := filepath.EvalSymlinks(full)
	if err != nil {
		return "", &Error{Path: d.Path(name), Err: unwrapPath(err)}
	}
	if real != d.real && !strings.HasPrefix(real, d.real+string(filepath.Separator)) {
		return "", &Error{Path: d.Path(name), Err: fmt.Errorf("is a symbolic link to %s, which %w", real, ErrOutside)}
	}
	return real, nil
}

// Open opens name: a directory (for fs.WalkDir) or a regular file within
// the budget; anything else is refused without blocking.
func (d *Dir) Open(name string) (fs.File, error) {
	real, err := d.resolve("open", name)
	if err != nil {
		return nil, err
	}
	if fi, err := os.Stat(real); err == nil && fi.IsDir() {
		return os.Open(real)
	}
	f, err := open(d.ctx, real, d.Path(name), d.limit)
	if err != nil {
		return nil, err
	}
	return &file{ReadCloser: f, stat: func() (fs.FileInfo, error) { return os.Stat(real) }}, nil
}

// file is an opened regular file of a Dir.
type file struct {
	io.ReadCloser
	stat func() (fs.FileInfo, error)
}

func (f *file) Stat() (fs.FileInfo, error) { return f.stat() }

// ReadFile reads name as the package's ReadFile does, within the budget.
func (d *Dir) ReadFile(name string) ([]byte, error) {
	real, err := d.resolve("read", name)
	if err != nil {
		return nil, err
	}
	return readFile(d.ctx, real, d.Path(name), d.limit)
}

// ReadDir lists the directory name.
func (d *Dir) ReadDir(name string) ([]fs.DirEntry, error) {
	real, err := d.resolve("readdir", name)
	if err != nil {
		return nil, err
	}
	ents, err := os.ReadDir(real)
	if err != nil {
		return nil, &Error{Path: d.Path(name), Err: unwrapPath(err)}
	}
	return ents, nil
}

// Stat describes name, its links followed within the tree.
func (d *Dir) Stat(name string) (fs.FileInfo, error) {
	real, err := d.resolve("stat", name)
	if err != nil {
		return nil, err
	}
	fi, err := os.Stat(real)
	if err != nil {
		return nil, &Error{Path: d.Path(name), Err: unwrapPath(err)}
	}
	return fi, nil
}
