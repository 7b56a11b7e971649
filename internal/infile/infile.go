package infile

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// Budgets shared by the commands that read user-named input.
const (
	// MaxCapture bounds one captured tool output or switch configuration:
	// real ones are kilobytes to a few megabytes.
	MaxCapture = 32 << 20
	// MaxLog bounds one log file read whole (analyze); logs that are
	// streamed line by line (nccl analyze) are not bounded by size.
	MaxLog = 64 << 20
	// MaxDocument bounds one YAML or JSON document describing intent
	// (host show --desired).
	MaxDocument = 16 << 20
)

var (
	// ErrNotRegular: the path names a directory, FIFO, device or socket.
	ErrNotRegular = errors.New("not a regular file")
	// ErrIsDir: the path names a directory (it is ErrNotRegular too).
	ErrIsDir = errors.New("is a directory")
	// ErrTooLarge: the file is larger than the reader's budget.
	ErrTooLarge = errors.New("larger than the size budget")
	// ErrOutside: a symbolic link in a Dir leads outside it.
	ErrOutside = errors.New("leads outside the directory")
)

// Error is a refused or failed read of Path.
type Error struct {
	Path string
	Err  error
}

func (e *Error) Error() string { return e.Path + ": " + e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// kindError says what a path is instead of a regular file.
type kindError string

func (k kindError) Error() string { return "is " + string(k) + ", not a regular file" }
func (k kindError) Is(target error) bool {
	return target == ErrNotRegular || target == ErrIsDir && k == "a directory"
}

// budgetError says a read passed its budget.
type budgetError int64

func (b budgetError) Error() string {
	return fmt.Sprintf("is larger than the %s budget for this input", size(int64(b)))
}
func (b budgetError) Is(target error) bool { return target == ErrTooLarge }

// size writes n bytes for a person: 32 MiB, 1500 bytes.
func size(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d-byte", n)
}

// what names a file type that is not regular.
func what(m fs.FileMode) kindError {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	}
	return kindError("a special file (" + m.Type().String() + ")")
}

// openRegular opens path without blocking and returns it only if it is a
// regular file of at most limit bytes (limit < 0: no limit).
func openRegular(path string, limit int64) (*os.File, error) {
	// Stat first: a socket cannot be opened at all (ENXIO), and says more
	// as what it is. The opened file is checked again below.
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() {
		return nil, what(fi.Mode())
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	switch {
	case err != nil:
	case !fi.Mode().IsRegular():
		err = what(fi.Mode())
	case limit >= 0 && fi.Size() > limit:
		err = budgetError(limit)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// chunk is how much one Read asks of a file between context checks.
const chunk = 1 << 20

// reader reads at most its budget, then fails with ErrTooLarge, and gives
// way to its context between reads.
type reader struct {
	ctx  context.Context
	r    io.Reader
	left int64 // bytes still allowed; -1: no budget
	max  int64
}

func (r *reader) Read(p []byte) (int, error) {
	if err := r.ctx.Err(); err != nil {
		return 0, err
	}
	if len(p) > chunk {
		p = p[:chunk]
	}
	if r.left >= 0 && int64(len(p)) > r.left+1 {
		p = p[:r.left+1]
	}
	n, err := r.r.Read(p)
	if r.left >= 0 {
		if int64(n) > r.left {
			return int(r.left), budgetError(r.max)
		}
		r.left -= int64(n)
	}
	return n, err
}

// limited returns r bounded by limit (< 0: none) and ctx.
func limited(ctx context.Context, r io.Reader, limit int64) io.Reader {
	return &reader{ctx: ctx, r: r, left: limit, max: limit}
}

// ReadFile reads the regular file at path, refusing anything else at once
// and a file of more than limit bytes (see the package comment).
func ReadFile(ctx context.Context, path string, limit int64) ([]byte, error) {
	return readFile(ctx, path, path, limit)
}

// readFile is ReadFile of path, named display in errors.
func readFile(ctx context.Context, path, display string, limit int64) ([]byte, error) {
	f, err := openRegular(path, limit)
	if err != nil {
		return nil, &Error{Path: display, Err: unwrapPath(err)}
	}
	defer f.Close()
	// Read into a buffer of the file's size (one byte more, to see the
	// end), not one that doubles as it fills: a 60 MiB file costs 60 MiB,
	// not twice that in buffers left for the collector.
	var hint int64
	if fi, err := f.Stat(); err == nil {
		hint = fi.Size()
	}
	if hint <= 0 || hint > limit && limit >= 0 {
		return readAll(ctx, display, f, limit)
	}
	buf := make([]byte, 0, hint+1)
	r := limited(ctx, f, limit)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)] // it grew since: let append choose
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, &Error{Path: display, Err: unwrapPath(err)}
		}
	}
}

// Open opens the regular file at path for streaming: its reads fail with
// ErrTooLarge past limit bytes (< 0: no budget) and give way to ctx.
func Open(ctx context.Context, path string, limit int64) (io.ReadCloser, error) {
	return open(ctx, path, path, limit)
}

// open is Open of path, named display in errors.
func open(ctx context.Context, path, display string, limit int64) (io.ReadCloser, error) {
	f, err := openRegular(path, limit)
	if err != nil {
		return nil, &Error{Path: display, Err: unwrapPath(err)}
	}
	return struct {
		io.Reader
		io.Closer
	}{&pathReader{path: display, r: limited(ctx, f, limit)}, f}, nil
}

// pathReader names its path in its errors, once.
type pathReader struct {
	path string
	r    io.Reader
}

func (p *pathReader) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	if err != nil && err != io.EOF && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
		err = &Error{Path: p.path, Err: unwrapPath(err)}
	}
	return n, err
}

// ReadAll reads r (standard input), named name in errors, to at most limit
// bytes, giving way to ctx between reads. A reader whose reads block (a
// pipe) gives way at once only if it does so itself: wrap it with
// ctxio.NewReader.
func ReadAll(ctx context.Context, name string, r io.Reader, limit int64) ([]byte, error) {
	return readAll(ctx, name, r, limit)
}

func readAll(ctx context.Context, name string, r io.Reader, limit int64) ([]byte, error) {
	data, err := io.ReadAll(limited(ctx, r, limit))
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, &Error{Path: name, Err: unwrapPath(err)}
	}
	return data, nil
}

// ReadArg reads a command's file argument: "-" is stdin (see ReadAll).
func ReadArg(ctx context.Context, stdin io.Reader, arg string, limit int64) ([]byte, error) {
	if arg == "-" {
		return ReadAll(ctx, "stdin", stdin, limit)
	}
	return ReadFile(ctx, arg, limit)
}

// unwrapPath drops the *fs.PathError around an error from os, whose path
// Error already names.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
