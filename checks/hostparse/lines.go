package hostparse

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/fabricctl/fabricctl/checks/internal/textutil"
)

// maxLine bounds one input line; the widest real line (an ibv_devinfo flag
// list, an lspci VPD string) is well under 1 KiB.
const maxLine = 1 << 20

// Sentinels for errors.Is.
var (
	// ErrNoData: the input holds nothing the tool prints.
	ErrNoData = errors.New("no recognisable output")
	// ErrNoGID: show_gids lists no RoCE v2 IPv4 GID for the device and port.
	ErrNoGID = errors.New("no RoCE v2 IPv4 GID")
	// ErrAmbiguousGID: several RoCE v2 IPv4 GIDs fit and no netdev decides between them.
	ErrAmbiguousGID = errors.New("ambiguous RoCE v2 IPv4 GID")
	// ErrUnknownDevice: a topology lookup names a device the matrix does not have.
	ErrUnknownDevice = errors.New("unknown device")
	// ErrTruncated: the capture was cut off before the cell asked for; the
	// value is unknown, not absent.
	ErrTruncated = errors.New("cut off in the capture")
)

// scan calls fn with every line of r, its 1-based number, the line without
// terminal escape sequences and trailing whitespace, and its indentation
// width (tabs to the next multiple of 8).
func scan(r io.Reader, fn func(n, indent int, line string)) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), maxLine)
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimRight(textutil.StripANSI(sc.Text()), " \t\r")
		fn(n, indentOf(line), line)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return fmt.Errorf("line %d: longer than %d bytes: %w", n+1, maxLine, err)
		}
		return fmt.Errorf("reading: %w", err)
	}
	return nil
}

func indentOf(s string) int {
	w := 0
	for _, r := range s {
		switch r {
		case ' ':
			w++
		case '\t':
			w = w/8*8 + 8
		default:
			return w
		}
	}
	return w
}

// splitKV splits "key: value" at the first colon; ok is false without one.
func splitKV(s string) (key, value string, ok bool) {
	k, v, ok := strings.Cut(s, ":")
	if !ok {
		return "", "", false
	}
	return strings.TrimSpace(k), strings.TrimSpace(v), true
}

// located formats a parse warning with its line number.
func located(n int, format string, a ...any) string {
	return fmt.Sprintf("line %d: %s", n, fmt.Sprintf(format, a...))
}
