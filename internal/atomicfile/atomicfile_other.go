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
