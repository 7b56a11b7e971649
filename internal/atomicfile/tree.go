package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
)

// File is one file of a tree: Path is slash-separated and relative.
type File struct {
	Path string
	Data []byte
}

// WriteTree writes files under dir. When dir does not exist or is empty the
// whole tree is built beside it under a temporary name and renamed into
// place: it appears complete or not at all, and costs one plain create per
// file. Otherwise each file is replaced atomically by WriteFile (files
// already in dir that are not in files stay). Directories are created with
// mode 0755, files with perm.
func WriteTree(dir string, files []File, perm fs.FileMode) error {
	for _, f := range files {
		if !filepath.IsLocal(filepath.FromSlash(f.Path)) {
			return fmt.Errorf("writing %s: %q is not a relative path inside it", dir, f.Path)
		}
	}
	if fresh, err := freshDir(dir); err != nil {
		return err
	} else if fresh {
		done, err := writeStaged(dir, files, perm)
		if done || err != nil {
			return err
		}
		// The rename was refused (dir filled up meanwhile, or is a mount
		// point): write in place instead.
	}
	return writeInPlace(dir, files, perm)
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

// writeStaged builds the tree beside dir and renames it over dir. done is
// false (with no error) when only that last rename was refused.
func writeStaged(dir string, files []File, perm fs.FileMode) (done bool, err error) {
	parent := filepath.Dir(filepath.Clean(dir))
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return false, fmt.Errorf("creating output directory: %w", err)
	}
	stage, err := os.MkdirTemp(parent, "."+filepath.Base(dir)+".tmp-")
	if err != nil {
		return false, fmt.Errorf("creating output directory: %w", err)
	}
	defer func() {
		if !done {
			os.RemoveAll(stage)
		}
	}()
	mode := fs.FileMode(0o755)
	if fi, err := os.Stat(dir); err == nil {
		mode = fi.Mode().Perm() // an existing empty directory keeps its mode
	}
	if err := os.Chmod(stage, mode); err != nil {
		return false, fmt.Errorf("creating output directory: %w", err)
	}
	if err := mkdirs(stage, files); err != nil {
		return false, err
	}
	err = parallel(files, func(f File) error {
		if err := writeAll(filepath.Join(stage, filepath.FromSlash(f.Path)), f.Data, perm); err != nil {
			return fmt.Errorf("writing %s: %w", filepath.Join(dir, filepath.FromSlash(f.Path)), err)
		}
		return nil
	})
	if err != nil {
		return false, err
	}
	if err := os.Rename(stage, dir); err != nil {
		return false, nil
	}
	return true, nil
}

func writeInPlace(dir string, files []File, perm fs.FileMode) error {
	if err := mkdirs(dir, files); err != nil {
		return err
	}
	return parallel(files, func(f File) error {
		return WriteFile(filepath.Join(dir, filepath.FromSlash(f.Path)), f.Data, perm)
	})
}

// mkdirs creates every directory the files need under root.
func mkdirs(root string, files []File) error {
	seen := map[string]bool{}
	for _, f := range files {
		d := filepath.Dir(filepath.FromSlash(f.Path))
		if seen[d] {
			continue
		}
		seen[d] = true
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			return fmt.Errorf("creating output directory: %w", err)
		}
	}
	return nil
}

// parallel runs fn over files with one worker per CPU (more only contend
// for the directories' locks) and returns every error.
func parallel(files []File, fn func(File) error) error {
	errs := make([]error, len(files))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(files)) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < len(files); i = int(next.Add(1) - 1) {
				errs[i] = fn(files[i])
			}
		})
	}
	wg.Wait()
	// A full disk fails every file alike: report a few, count the rest.
	var first []error
	n := 0
	for _, err := range errs {
		if err != nil {
			if n++; len(first) < 3 {
				first = append(first, err)
			}
		}
	}
	if n > len(first) {
		first = append(first, fmt.Errorf("and %d more files failed", n-len(first)))
	}
	return errors.Join(first...)
}

