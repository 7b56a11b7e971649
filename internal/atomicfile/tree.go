package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
)

// Tree stages files for a directory and puts them in place all together
// with Commit. Files are written beside the directory, under a temporary
// name, as soon as Write is called, so a producer can write while it still
// renders other files; nothing shows in the directory before Commit, and
// Abort leaves no trace.
//
// Commit renames the staged tree over the directory when the directory does
// not exist or is empty: it appears complete or not at all. Otherwise each
// file is renamed into place (atomic per file), and files already in the
// directory that were not written stay.
type Tree struct {
	dir, stage string
	perm       fs.FileMode
	lock       *os.File // the stage, locked while this Tree lives (nil where unsupported)

	mu    sync.Mutex
	dirs  map[string]bool // created under stage
	paths []string        // slash-separated, in order of Write

	// The writer goroutine behind Add.
	start   sync.Once
	queue   chan staged
	done    chan struct{}
	failed  atomic.Bool
	addErr  error // the first failed write, read after done
	stopped bool  // queue closed
}

type staged struct {
	path string
	data []byte
}

// NewTree starts staging files for dir. Directories are created with mode
// 0755 (an empty dir that is replaced keeps its mode), files with perm.
func NewTree(dir string, perm fs.FileMode) (*Tree, error) {
	parent := filepath.Dir(filepath.Clean(dir))
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, fmt.Errorf("creating output directory: %w", err)
	}
	removeStale(parent, filepath.Base(dir))
	// The stage is created under another name, locked, and only then
	// renamed to its staging name, so that a concurrent run never sees an
	// unlocked staging directory and takes it for a dead run's.
	fresh, err := os.MkdirTemp(parent, "."+filepath.Base(dir)+".new-")
	if err != nil {
		return nil, fmt.Errorf("creating output directory: %w", err)
	}
	lock, err := lockDir(fresh)
	if err != nil {
		os.RemoveAll(fresh)
		return nil, fmt.Errorf("creating output directory: %w", err)
	}
	stage := filepath.Join(parent, "."+filepath.Base(dir)+stagingInfix+strings.TrimPrefix(filepath.Base(fresh), "."+filepath.Base(dir)+".new-"))
	if err := os.Rename(fresh, stage); err != nil {
		unlock(lock)
		os.RemoveAll(fresh)
		return nil, fmt.Errorf("creating output directory: %w", err)
	}
	mode := fs.FileMode(0o755)
	if fi, err := os.Stat(dir); err == nil {
		mode = fi.Mode().Perm()
	}
	if err := os.Chmod(stage, mode); err != nil {
		unlock(lock)
		os.RemoveAll(stage)
		return nil, fmt.Errorf("creating output directory: %w", err)
	}
	return &Tree{dir: dir, stage: stage, perm: perm, lock: lock, dirs: map[string]bool{".": true}}, nil
}

// stagingInfix names staging directories: ".DIR.tmp-RANDOM" beside DIR.
const stagingInfix = ".tmp-"

// removeStale removes the staging directories of DIR (named base) that a
// killed run left behind: those no live Tree holds locked. A directory that
// cannot be locked (where locks are unsupported) is left alone.
func removeStale(parent, base string) {
	stale, _ := filepath.Glob(filepath.Join(parent, "."+globEscape(base)+stagingInfix+"*"))
	for _, d := range stale {
		if fi, err := os.Lstat(d); err != nil || !fi.IsDir() {
			continue
		}
		lock, err := tryLockDir(d)
		if err != nil {
			continue // in use, or unlockable
		}
		os.RemoveAll(d)
		unlock(lock)
	}
}

func globEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `*`, `\*`, `?`, `\?`, `[`, `\[`).Replace(s)
}

// Write stages the file at path (slash-separated, relative to the
// directory). It is safe for concurrent use.
func (t *Tree) Write(path string, data []byte) error {
	rel := filepath.FromSlash(path)
	if !filepath.IsLocal(rel) {
		return fmt.Errorf("writing %s: %q is not a relative path inside it", t.dir, path)
	}
	final := filepath.Join(t.dir, rel)
	if err := t.mkdir(filepath.Dir(rel)); err != nil {
		return fmt.Errorf("writing %s: %w", final, err)
	}
	if err := writeAll(filepath.Join(t.stage, rel), data, t.perm); err != nil {
		return fmt.Errorf("writing %s: %w", final, err)
	}
	t.mu.Lock()
	t.paths = append(t.paths, path)
	t.mu.Unlock()
	return nil
}

// Add queues the file at path for writing by the tree's writer goroutine
// and returns at once, so a producer can go on rendering. Files are created
// one at a time: creating a file holds its directory's lock, and a second
// creator in the same directory only spins on it (on ext4 without a
// journal, soon after many files were deleted, for most of the time). Once
// a write has failed Add returns an error (the failure itself comes from
// Commit). Add is safe for concurrent use, but not after Commit or Abort.
func (t *Tree) Add(path string, data []byte) error {
	t.start.Do(func() {
		t.queue, t.done = make(chan staged, 256), make(chan struct{})
		go func() {
			defer close(t.done)
			for f := range t.queue {
				if t.addErr == nil {
					if t.addErr = t.Write(f.path, f.data); t.addErr != nil {
						t.failed.Store(true)
					}
				}
			}
		}()
	})
	if t.failed.Load() {
		return errWriteFailed
	}
	t.queue <- staged{path, data}
	return nil
}

var errWriteFailed = errors.New("an earlier file could not be written")

// drain waits for the files queued by Add and returns the first failure.
func (t *Tree) drain() error {
	if t.queue == nil || t.stopped {
		return t.addErr
	}
	t.stopped = true
	close(t.queue)
	<-t.done
	return t.addErr
}

func (t *Tree) mkdir(rel string) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.dirs[rel] {
		return nil
	}
	if err := os.MkdirAll(filepath.Join(t.stage, rel), 0o755); err != nil {
		return err
	}
	t.dirs[rel] = true
	return nil
}

// Abort removes what was staged.
func (t *Tree) Abort() {
	t.drain()
	os.RemoveAll(t.stage)
	unlock(t.lock)
}

// Commit waits for the files queued by Add, puts the staged files in place
// and removes the staging area.
func (t *Tree) Commit() error {
	defer unlock(t.lock)
	defer os.RemoveAll(t.stage)
	if err := t.drain(); err != nil {
		return err
	}
	fresh, err := freshDir(t.dir)
	if err != nil {
		return err
	}
	if fresh && os.Rename(t.stage, t.dir) == nil {
		return nil
	}
	// An existing directory, or the rename was refused (the directory
	// filled up meanwhile, or is a mount point): file by file, in order
	// (renames in one directory hold its lock; more workers only contend).
	t.mu.Lock()
	paths := t.paths
	t.mu.Unlock()
	for _, path := range paths {
		rel := filepath.FromSlash(path)
		final := filepath.Join(t.dir, rel)
		if err := os.MkdirAll(filepath.Dir(final), 0o755); err != nil {
			return fmt.Errorf("writing %s: %w", final, err)
		}
		staged := filepath.Join(t.stage, rel)
		err := os.Rename(staged, final)
		if errors.Is(err, syscall.EXDEV) { // another file system: copy
			var data []byte
			if data, err = os.ReadFile(staged); err == nil {
				err = WriteFile(final, data, t.perm)
			}
		}
		if err != nil {
			return fmt.Errorf("writing %s: %w", final, err)
		}
	}
	return nil
}

// WriteTree writes files (slash-separated relative path → content) under
// dir through a Tree, in path order.
func WriteTree(dir string, files map[string][]byte, perm fs.FileMode) error {
	t, err := NewTree(dir, perm)
	if err != nil {
		return err
	}
	for _, p := range slices.Sorted(maps.Keys(files)) {
		if err := t.Write(p, files[p]); err != nil {
			t.Abort()
			return err
		}
	}
	return t.Commit()
}

// freshDir reports whether dir is missing or an empty directory.
func freshDir(dir string) (bool, error) {
	d, err := os.Open(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return true, nil
	}
	if err != nil {
		return false, fmt.Errorf("opening output directory: %w", err)
	}
	defer d.Close()
	names, err := d.Readdirnames(1)
	if errors.Is(err, io.EOF) {
		return true, nil
	}
	if err != nil {
		return false, fmt.Errorf("reading output directory %s: %w", dir, err)
	}
	return len(names) == 0, nil
}
