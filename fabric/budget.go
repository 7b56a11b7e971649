package fabric

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
	"unicode/utf8"
)

// clip returns s cut to maxQuoted bytes at a rune boundary, with an
// ellipsis when it was cut.
func clip(s string) string { return clipTo(s, maxQuoted) }

func clipTo(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// clipArgs clips the strings among a message's arguments before they are
// formatted, so that a 15 MiB scalar is never copied into a message.
func clipArgs(args []any) []any {
	for i, a := range args {
		if s, ok := a.(string); ok && len(s) > maxQuoted {
			args[i] = clip(s)
		}
	}
	return args
}

// unclipped is a message argument clipArgs leaves whole: text fabricctl
// made, bounded by maxMsgLen with the rest of the message.
type unclipped string

// newError builds a located error whose path and message are bounded.
func newError(p Pos, path, format string, args ...any) *Error {
	msg := fmt.Sprintf(format, clipArgs(args)...)
	return &Error{Pos: p, Path: clipTo(path, maxPathLen), Msg: clipTo(msg, maxMsgLen)}
}

// add appends e unless the cap is reached; the first error over the cap
// is replaced by one notice, sorted last. It reports whether e was kept.
func (es *Errors) add(e *Error) bool {
	switch {
	case len(*es) < maxErrors:
		*es = append(*es, e)
		return true
	case len(*es) == maxErrors:
		*es = append(*es, &Error{Pos: Pos{File: e.Pos.File}, Msg: fmt.Sprintf("too many errors; stopping after %d", maxErrors), last: true})
	}
	return false
}

// full reports whether the cap is reached: further work finds nothing that
// would be reported.
func (es Errors) full() bool { return len(es) >= maxErrors }

// errNotRegular says a path names something other than a regular file.
type errNotRegular struct{ what string }

func (e errNotRegular) Error() string { return "is " + e.what + ", not a regular file" }

// errOverBudget says reading would exceed the load's input budget.
var errOverBudget = errors.New("over the input budget")

// errIsDir says a path names a directory.
var errIsDir = errors.New("is a directory, not a file")

// readRegular reads the regular file at path, at most limit bytes. It
// refuses directories, FIFOs, devices and sockets without blocking on them
// (a FIFO is opened non-blocking and refused), and stops reading once the
// limit is passed instead of reading the rest.
func readRegular(path string, limit int) ([]byte, error) {
	fh, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	fi, err := fh.Stat()
	if err != nil {
		return nil, err
	}
	if m := fi.Mode(); !m.IsRegular() {
		switch {
		case m.IsDir():
			return nil, errIsDir
		case m&fs.ModeNamedPipe != 0:
			return nil, errNotRegular{"a named pipe (FIFO)"}
		case m&fs.ModeSocket != 0:
			return nil, errNotRegular{"a socket"}
		case m&fs.ModeDevice != 0:
			return nil, errNotRegular{"a device"}
		}
		return nil, errNotRegular{"a special file (" + m.Type().String() + ")"}
	}
	if fi.Size() > int64(limit) {
		return nil, errOverBudget
	}
	data, err := io.ReadAll(io.LimitReader(fh, int64(limit)+1))
	if err != nil {
		return nil, err
	}
	if len(data) > limit {
		return nil, errOverBudget // it grew while read
	}
	return data, nil
}
