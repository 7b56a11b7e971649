//go:build !linux

package atomicfile

import (
	"io/fs"
	"os"
)

func writeNew(string, []byte, fs.FileMode) error { return errUnsupported }

func writeAll(path string, data []byte, perm fs.FileMode) error {
	return os.WriteFile(path, data, perm)
}

// Without flock a live staging directory cannot be told from a dead run's:
// none is locked and none is removed as stale.
func lockDir(string) (*os.File, error) { return nil, nil }

func tryLockDir(string) (*os.File, error) { return nil, errUnsupported }

func unlock(*os.File) {}
