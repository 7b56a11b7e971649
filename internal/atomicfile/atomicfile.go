package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
)

// WriteFile writes data to path atomically with mode perm (before umask).
// Errors name path once.
func WriteFile(path string, data []byte, perm fs.FileMode) error {
	err := writeNew(path, data, perm)
	if err == nil {
		return nil
	}
	if !errors.Is(err, fs.ErrExist) && !errors.Is(err, errUnsupported) {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := replace(path, data, perm); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// errUnsupported says the fast path cannot be used here.
var errUnsupported = errors.New("unnamed temporary files are not supported")

// replace writes data beside path under a temporary name and renames it
// over path.
func replace(path string, data []byte, perm fs.FileMode) error {
	tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".tmp-"+strconv.Itoa(os.Getpid()))
	if err := writeAll(tmp, data, perm); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}
