package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"golang.org/x/sys/unix"
)

// writeNew writes data to an unnamed file in path's directory and links it
// as path. It fails with fs.ErrExist when path exists and errUnsupported
// when the file system (or /proc, needed to name the file) is missing.
func writeNew(path string, data []byte, perm fs.FileMode) error {
	fd, err := unix.Open(filepath.Dir(path), unix.O_TMPFILE|unix.O_WRONLY|unix.O_CLOEXEC, uint32(perm.Perm()))
	if err != nil {
		if errors.Is(err, unix.EOPNOTSUPP) || errors.Is(err, unix.EISDIR) || errors.Is(err, unix.EINVAL) {
			return errUnsupported
		}
		return err
	}
	defer unix.Close(fd)
	if err := writeFD(fd, data); err != nil {
		return err
	}
	err = unix.Linkat(unix.AT_FDCWD, "/proc/self/fd/"+strconv.Itoa(fd), unix.AT_FDCWD, path, unix.AT_SYMLINK_FOLLOW)
	if errors.Is(err, unix.ENOENT) && !exists(filepath.Dir(path)) {
		return err
	}
	if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.EPERM) {
		return errUnsupported // no /proc
	}
	return err
}

// writeAll creates (or truncates) path and writes data to it.
func writeAll(path string, data []byte, perm fs.FileMode) error {
	fd, err := unix.Open(path, unix.O_WRONLY|unix.O_CREAT|unix.O_TRUNC|unix.O_CLOEXEC, uint32(perm.Perm()))
	if err != nil {
		return err
	}
	if err := writeFD(fd, data); err != nil {
		unix.Close(fd)
		return err
	}
	return unix.Close(fd)
}

func writeFD(fd int, data []byte) error {
	for len(data) > 0 {
		n, err := unix.Write(fd, data)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return err
		}
		data = data[n:]
	}
	return nil
}

func exists(path string) bool {
	var st unix.Stat_t
	return unix.Stat(path, &st) == nil
}

// lockDir opens dir and locks it exclusively (flock): the kernel drops the
// lock when the process dies, however it dies.
func lockDir(dir string) (*os.File, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// tryLockDir is lockDir; it fails at once when another holds the lock.
func tryLockDir(dir string) (*os.File, error) { return lockDir(dir) }

func unlock(f *os.File) {
	if f != nil {
		f.Close() // closing the only descriptor releases the flock
	}
}
