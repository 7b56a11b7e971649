package image

import (
	"bufio"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// Unix file type bits as used in the cpio "newc" mode field.
const (
	modeDir     = 0o040000
	modeRegular = 0o100000
	modeSymlink = 0o120000
	modeCharDev = 0o020000
)

// Entry is one file of an initramfs.
type Entry struct {
	Mode     uint32 // type bits | permission bits
	Data     []byte // contents of a regular file given in memory, or the target of a symlink
	Src      string // regular file copied from disk at write time (when Data is nil)
	DevMajor uint32 // character devices only
	DevMinor uint32
}

// Tree is the file list of an initramfs, keyed by the path inside the archive (no leading "/").
// Adding a file adds its parent directories. Not safe for concurrent use.
type Tree struct {
	entries map[string]Entry
}

// NewTree returns an empty tree.
func NewTree() *Tree { return &Tree{entries: map[string]Entry{}} }

func clean(p string) string { return strings.TrimPrefix(path.Clean("/"+p), "/") }

func (t *Tree) parents(p string) {
	for d := path.Dir(p); d != "." && d != "/" && d != ""; d = path.Dir(d) {
		if _, ok := t.entries[d]; !ok {
			t.entries[d] = Entry{Mode: modeDir | 0o755}
		}
	}
}

// Dir adds a directory with the given permissions.
func (t *Tree) Dir(p string, perm uint32) {
	p = clean(p)
	t.parents(p)
	t.entries[p] = Entry{Mode: modeDir | perm}
}

// Bytes adds a regular file with in-memory contents.
func (t *Tree) Bytes(p string, perm uint32, data []byte) {
	p = clean(p)
	t.parents(p)
	t.entries[p] = Entry{Mode: modeRegular | perm, Data: data}
}

// File adds a regular file read from src when the archive is written.
func (t *Tree) File(p string, perm uint32, src string) {
	p = clean(p)
	t.parents(p)
	t.entries[p] = Entry{Mode: modeRegular | perm, Src: src}
}

// Symlink adds a symbolic link p → target.
func (t *Tree) Symlink(p, target string) {
	p = clean(p)
	t.parents(p)
	t.entries[p] = Entry{Mode: modeSymlink | 0o777, Data: []byte(target)}
}

// CharDev adds a character device node (e.g. dev/console 5:1).
func (t *Tree) CharDev(p string, perm, major, minor uint32) {
	p = clean(p)
	t.parents(p)
	t.entries[p] = Entry{Mode: modeCharDev | perm, DevMajor: major, DevMinor: minor}
}

// Has reports whether p is in the tree.
func (t *Tree) Has(p string) bool { _, ok := t.entries[clean(p)]; return ok }

// Get returns the entry at p.
func (t *Tree) Get(p string) (Entry, bool) { e, ok := t.entries[clean(p)]; return e, ok }

// Paths returns every path in archive order (sorted, so parents come before children).
func (t *Tree) Paths() []string {
	ps := make([]string, 0, len(t.entries))
	for p := range t.entries {
		ps = append(ps, p)
	}
	sort.Strings(ps)
	return ps
}

// CopyFromStage adds the file at rel inside the unpacked-package directory stage, keeping its
// permissions. A symlink is added as a symlink and its target (relative or absolute, resolved
// inside the stage) is added too, recursively, so library chains like libfoo.so.1 → libfoo.so.1.2
// arrive whole.
func (t *Tree) CopyFromStage(stage, rel string) error {
	for range 40 { // symlink chain limit
		rel = clean(rel)
		src := filepath.Join(stage, rel)
		st, err := os.Lstat(src)
		if err != nil {
			return fmt.Errorf("copying %s from the staged packages: %w", rel, err)
		}
		switch {
		case st.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(src)
			if err != nil {
				return fmt.Errorf("reading link %s: %w", rel, err)
			}
			t.Symlink(rel, target)
			if strings.HasPrefix(target, "/") {
				rel = target
			} else {
				rel = path.Join(path.Dir(rel), target)
			}
			if t.Has(rel) {
				return nil
			}
		case st.Mode().IsRegular():
			t.File(rel, uint32(st.Mode().Perm()), src)
			return nil
		case st.IsDir():
			t.Dir(rel, uint32(st.Mode().Perm()))
			return nil
		default:
			return fmt.Errorf("copying %s: unsupported file type %v", rel, st.Mode().Type())
		}
	}
	return fmt.Errorf("copying %s: too many levels of symbolic links", rel)
}

// CopyDirFromStage adds a whole directory of the stage (files, links, subdirectories).
func (t *Tree) CopyDirFromStage(stage, rel string) error {
	root := filepath.Join(stage, clean(rel))
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		r, _ := filepath.Rel(stage, p)
		if d.IsDir() {
			info, err := d.Info()
			if err != nil {
				return err
			}
			t.Dir(r, uint32(info.Mode().Perm()))
			return nil
		}
		return t.CopyFromStage(stage, r)
	})
}

// WriteCpio writes the tree as a cpio "newc" archive, every file owned by root, mtime 0 (so the
// same inputs give the same bytes).
func (t *Tree) WriteCpio(w io.Writer) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	ino := uint32(1)
	for _, p := range t.Paths() {
		e := t.entries[p]
		data := e.Data
		if e.Mode&0o170000 == modeRegular && data == nil && e.Src != "" {
			b, err := os.ReadFile(e.Src)
			if err != nil {
				return fmt.Errorf("writing initramfs entry %s: %w", p, err)
			}
			data = b
		}
		nlink := uint32(1)
		if e.Mode&0o170000 == modeDir {
			nlink = 2
		}
		if err := writeHeader(bw, ino, e.Mode, nlink, uint32(len(data)), e.DevMajor, e.DevMinor, p); err != nil {
			return err
		}
		if _, err := bw.Write(data); err != nil {
			return err
		}
		if err := pad4(bw, len(data)); err != nil {
			return err
		}
		ino++
	}
	if err := writeHeader(bw, 0, 0, 1, 0, 0, 0, "TRAILER!!!"); err != nil {
		return err
	}
	return bw.Flush()
}

func writeHeader(w *bufio.Writer, ino, mode, nlink, size, rmaj, rmin uint32, name string) error {
	// magic, ino, mode, uid, gid, nlink, mtime, filesize, devmajor, devminor, rdevmajor, rdevminor, namesize, check
	_, err := fmt.Fprintf(w, "070701%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%s\x00",
		ino, mode, 0, 0, nlink, 0, size, 0, 0, rmaj, rmin, len(name)+1, 0, name)
	if err != nil {
		return fmt.Errorf("writing cpio header: %w", err)
	}
	return pad4(w, 110+len(name)+1)
}

func pad4(w *bufio.Writer, n int) error {
	if r := n % 4; r != 0 {
		_, err := w.Write(make([]byte, 4-r))
		return err
	}
	return nil
}
