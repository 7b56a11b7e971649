package fabric

import (
	"context"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/fabricctl/fabricctl/internal/infile"
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

// errOverBudget says reading would exceed the load's input budget.
var errOverBudget = infile.ErrTooLarge

// readRegular reads the regular file at path, at most limit bytes, as
// every user-named input is read (infile.ReadFile): directories, FIFOs,
// devices and sockets are refused without blocking. Its errors leave the
// path out: the loader's messages are located at the file already.
func readRegular(path string, limit int) ([]byte, error) {
	data, err := infile.ReadFile(context.Background(), path, int64(limit))
	if e := (*infile.Error)(nil); errors.As(err, &e) {
		return nil, e.Err
	}
	return data, err
}
