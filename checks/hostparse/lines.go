package hostparse

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
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

// NumberErrors lists the figures of a capture that read as numbers but are
// none the field can hold (a counter of 1e23, a negative count, a NaN or
// infinite rate), located: they are left out, never read as zero, and
// analyze reports each as an error. Text that is no number at all ("N/A",
// a redacted "...") is not one of them.
type NumberErrors struct {
	BadNumbers []string `json:"badNumbers,omitempty"`
}

// BadNumberLines returns the figures that are no number their field holds.
func (e *NumberErrors) BadNumberLines() []string { return e.BadNumbers }

func (e *NumberErrors) bad(n int, what, val, why string) {
	e.BadNumbers = append(e.BadNumbers, located(n, "%s %q %s", what, clip(val), why))
}

// numeric reports whether s reads as a number (a float, NaN or an infinity
// included, however large), as opposed to text such as "N/A".
func numeric(s string) bool {
	_, err := strconv.ParseFloat(s, 64)
	return err == nil || errors.Is(err, strconv.ErrRange)
}

// count reads a counter or a size: a whole number ≥ 0 an int64 holds. A
// figure that is numeric but no such number is recorded as bad; ok is false
// for it and for text.
func (e *NumberErrors) count(n int, what, val string) (int64, bool) {
	v, err := strconv.ParseInt(val, 10, 64)
	switch {
	case err == nil && v >= 0:
		return v, true
	case numeric(val):
		e.bad(n, what, val, "is not a count (a whole number from 0 to 2^63-1)")
	}
	return 0, false
}

// index reads a port number, a width, a LID, an index: a whole number ≥ 0
// an int holds, bad numbers recorded as count does.
func (e *NumberErrors) index(n int, what, val string) (int, bool) {
	v, ok := e.count(n, what, val)
	if ok && v > math.MaxInt32 {
		e.bad(n, what, val, "is too large")
		return 0, false
	}
	return int(v), ok
}

// rate reads a rate, a speed, a bandwidth or a latency: finite and ≥ 0.
func (e *NumberErrors) rate(n int, what, val string) (float64, bool) {
	v, err := strconv.ParseFloat(val, 64)
	switch {
	case err == nil && !math.IsNaN(v) && !math.IsInf(v, 0) && v >= 0:
		return v, true
	case numeric(val) || strings.Count(val, ".") > 1 && strings.Trim(val, "0123456789.") == "":
		e.bad(n, what, val, "is not a rate (a finite number ≥ 0)")
	}
	return 0, false
}
