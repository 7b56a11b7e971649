package perftest

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/fabricctl/fabricctl/checks"
)

// maxLine bounds one input line; perftest's widest line is under 200 bytes.
const maxLine = 1 << 20

var (
	titleRe   = regexp.MustCompile(`^(\S.*?)\s+(?:BW|Latency|Lat)\s+Test$`)
	dashRe    = regexp.MustCompile(`^-{10,}$`)
	bannerRe  = regexp.MustCompile(`Waiting for client(?: rdma_cm QP)? to connect`)
	addressRe = regexp.MustCompile(`^(local|remote) address:\s*(.*)$`)
	gidLineRe = regexp.MustCompile(`^GID:\s*(\S+)`)
	kvRe      = regexp.MustCompile(`([A-Za-z][A-Za-z0-9_.*#/ -]*?)\s*:\s*(\S*)`)
	// columnRe finds the columns of a result header: "#bytes", "#sl",
	// "#iterations", "tps average" and every "Name[unit]", known or not, so
	// that a column fabricctl does not know still counts.
	columnRe = regexp.MustCompile(`#\w+|tps average|[A-Za-z0-9_%.][A-Za-z0-9_%. ]*?\[[^\]]*\]`)
	bareRe   = regexp.MustCompile(`^-?\d+\.\d+$`)
)

type parseState int

const (
	stNone   parseState = iota // before any banner
	stHeader                   // after the title, before the dashed line
	stBody                     // addresses, warnings, errors
	stRows                     // after a column header
)

// column is one column of a result table: its printed name and unit.
type column struct {
	name string // "#bytes", "BW average", "t_min", "99% percentile"
	unit string // the bracketed unit: "Gb/sec", "usec"; empty for counts
}

// textParser carries the state of one Parse call.
type textParser struct {
	r       *Report
	state   parseState
	cols    []column
	colLine int // the line of the column header
	lat     bool
	content bool
}

// Parse reads the console output of one ib_{write,read,send,atomic}_{bw,lat}
// process, server or client side, and returns what it printed. Lines it does
// not recognise are skipped, so wrapper logs and driver warnings around the
// output do no harm; recognised error lines become Failures with their
// FailureClass. Leading "> " quote markers and markdown emphasis around
// numbers, as found in pasted output, are tolerated.
//
// Parse fails only when reading fails, a line exceeds 1 MiB, or the input holds
// nothing perftest prints (ErrNoOutput).
func Parse(rd io.Reader) (*Report, error) {
	p := &textParser{r: &Report{}}
	sc := bufio.NewScanner(rd)
	sc.Buffer(make([]byte, 0, 64*1024), maxLine)
	n := 0
	for sc.Scan() {
		n++
		p.line(cleanLine(sc.Text()), n)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("parsing perftest output: line %d: longer than %d bytes: %w", n+1, maxLine, err)
		}
		return nil, fmt.Errorf("parsing perftest output: reading: %w", err)
	}
	if !p.content {
		return nil, fmt.Errorf("parsing perftest output: %d lines: %w", n, ErrNoOutput)
	}
	return p.r, nil
}

var (
	// errnoRe: the lines perftest prints under an rdma_cm failure.
	errnoRe = regexp.MustCompile(`^(ERRNO|Event):\s*(.+)$`)
	// cmdDeviceRe: the device a captured command line names (-d, --ib-dev).
	cmdDeviceRe = regexp.MustCompile(`\bib_(?:write|read|send|atomic)_(?:bw|lat)\b.*?\s(?:-d|--ib-dev)[ =](\S+)`)
)

// cleanLine strips whitespace, carriage returns and "> " quote markers.
func cleanLine(s string) string {
	s = strings.TrimSpace(s)
	for strings.HasPrefix(s, ">") {
		s = strings.TrimSpace(s[1:])
	}
	return s
}

func (p *textParser) line(s string, n int) {
	if s == "" {
		return
	}
	if m := errnoRe.FindStringSubmatch(s); m != nil && len(p.r.Failures) > 0 {
		// rdma_cm failures print their event and errno on lines of their own.
		f := &p.r.Failures[len(p.r.Failures)-1]
		f.Detail = strings.TrimPrefix(f.Detail+"; "+m[1]+": "+strings.TrimSuffix(m[2], "."), "; ")
		return
	}
	if f, ok := classify(s, n); ok {
		p.r.Failures = append(p.r.Failures, f)
		p.content = true
		return
	}
	if m := cmdDeviceRe.FindStringSubmatch(s); m != nil && p.r.Header.Device == "" {
		p.r.Header.Device = m[1]
	}
	if warningRe.MatchString(s) {
		p.r.Warnings = append(p.r.Warnings, s)
		if !strings.HasPrefix(strings.ToLower(s), "libibverbs:") {
			p.r.ToolWarnings = append(p.r.ToolWarnings, s)
		}
		return
	}
	switch {
	case bannerRe.MatchString(s):
		p.r.ServerBanner, p.content = true, true
	case dashRe.MatchString(s):
		if p.state == stHeader || p.state == stRows {
			p.state = stBody
		}
	case titleRe.MatchString(s):
		p.title(s)
	case addressRe.MatchString(s):
		p.address(addressRe.FindStringSubmatch(s))
	case gidLineRe.MatchString(s):
		p.gid(gidLineRe.FindStringSubmatch(s)[1])
	case strings.Contains(s, "#bytes"):
		p.columns(s, n)
	case p.state == stRows:
		p.row(s, n)
	case bareRe.MatchString(s):
		v, _ := strconv.ParseFloat(s, 64)
		p.content = true
		if bad := notMeasured([]float64{v}); bad != "" {
			p.r.NotNumbers = append(p.r.NotNumbers, fmt.Sprintf("line %d: %s", n, bad))
			return
		}
		p.r.Bare = append(p.r.Bare, v)
	case p.state == stHeader:
		for _, m := range kvRe.FindAllStringSubmatch(s, -1) {
			p.r.Header.set(m[1], m[2])
		}
	}
}

func (p *textParser) title(s string) {
	p.r.Title = s
	if t, bidir, postList, ok := testFromTitle(s); ok {
		p.r.Test, p.r.Bidirectional, p.r.PostList = t, bidir, postList
	}
	p.state = stHeader
	p.content = true
}

// address reads "LID 0000 QPN 0x01ac PSN 0xc76db1 RKey 0x23beb2 VAddr 0x007f26a2c8b000".
func (p *textParser) address(m []string) {
	var e Endpoint
	f := strings.Fields(m[2])
	for i := 0; i+1 < len(f); i += 2 {
		switch f[i] {
		case "LID":
			e.LID = f[i+1]
		case "QPN":
			e.QPN = f[i+1]
		case "PSN":
			e.PSN = f[i+1]
		case "RKey":
			e.RKey = f[i+1]
		case "VAddr":
			e.VAddr = f[i+1]
		}
	}
	if m[1] == "local" {
		p.r.Local = append(p.r.Local, e)
	} else {
		p.r.Remote = append(p.r.Remote, e)
	}
	p.state = stBody
	p.content = true
}

// gid attaches a "GID:" line to the endpoint printed just before it.
func (p *textParser) gid(raw string) {
	gid, ok := gidFromDecimal(raw)
	if !ok {
		gid = raw
	}
	// The GID line follows its address line; the remote list is filled after the local one.
	switch {
	case len(p.r.Remote) > 0 && p.r.Remote[len(p.r.Remote)-1].GID == "":
		p.r.Remote[len(p.r.Remote)-1].GID = gid
	case len(p.r.Local) > 0 && p.r.Local[len(p.r.Local)-1].GID == "":
		p.r.Local[len(p.r.Local)-1].GID = gid
	}
}

func (p *textParser) columns(s string, n int) {
	p.cols = p.cols[:0]
	p.colLine = n
	p.lat = false
	for _, c := range columnRe.FindAllString(s, -1) {
		name, unit, _ := strings.Cut(strings.TrimSpace(c), "[")
		col := column{name: name, unit: strings.TrimSuffix(unit, "]")}
		p.cols = append(p.cols, col)
		switch {
		case strings.HasPrefix(name, "t_") || name == "tps average" || strings.HasSuffix(name, "percentile"):
			p.lat = true
			p.r.LatUnit = unitOf(col.unit)
		case strings.HasPrefix(name, "BW "):
			p.r.BWUnit = unitOf(col.unit)
		}
	}
	if len(p.cols) < 3 {
		p.r.Truncated = true
		p.r.Warnings = append(p.r.Warnings, fmt.Sprintf("line %d: incomplete column header %q", n, s))
	}
	p.state = stRows
	p.content = true
}

func unitOf(s string) checks.Unit {
	switch s {
	case "Gb/sec":
		return checks.UnitGbps
	case "MB/sec", "MiB/sec": // perftest 24.07 renamed MB/sec (always 2^20 bytes) to MiB/sec
		return checks.UnitMBps
	case "usec":
		return checks.UnitUsec
	case "cycles":
		return checks.UnitCycles
	}
	return checks.Unit(s)
}

// row reads one result row; a row that is not all numbers ends the table.
// A row whose figure is no measurement (NaN, an infinity, a negative value,
// one too large for a float64, a size or iteration count that is not a
// whole number an int64 holds) is left out and listed in NotNumbers.
func (p *textParser) row(s string, n int) {
	fields := strings.Fields(strings.ReplaceAll(s, "*", ""))
	vals := make([]float64, 0, len(fields))
	bad := ""
	for _, f := range fields {
		v, err := strconv.ParseFloat(f, 64)
		switch {
		case errors.Is(err, strconv.ErrRange) && bad == "":
			bad = fmt.Sprintf("%s does not fit a float64", f)
		case err != nil:
			p.state = stBody
			return
		}
		vals = append(vals, v)
	}
	if bad == "" {
		bad = notMeasured(vals)
	}
	for i, c := range p.cols {
		if bad == "" && i < len(vals) && isCount(headerKey(c.name)) {
			bad = notCount(c.name, vals[i])
		}
	}
	if bad != "" {
		p.r.NotNumbers = append(p.r.NotNumbers, fmt.Sprintf("line %d: %s in %q", n, bad, strings.TrimSpace(s)))
		return
	}
	if len(vals) < len(p.cols) || len(p.cols) < 3 {
		p.r.Truncated = true
		p.r.Warnings = append(p.r.Warnings, fmt.Sprintf("line %d: incomplete result row %q", n, s))
		return
	}
	if len(vals) > len(p.cols) {
		p.r.ColumnMismatch = true
		p.r.Warnings = append(p.r.Warnings, fmt.Sprintf("line %d: result row has %d numbers but the column header (line %d) names %d columns; the row is left out rather than read into the wrong columns: %q",
			n, len(vals), p.colLine, len(p.cols), s))
		return
	}
	if p.lat {
		p.r.Lat = append(p.r.Lat, p.latRow(vals))
	} else {
		p.r.BW = append(p.r.BW, p.bwRow(vals))
	}
}

func (p *textParser) bwRow(vals []float64) BWRow {
	var r BWRow
	for i, c := range p.cols {
		if _, known := setValue(&r, nil, headerKey(c.name), vals[i]); !known {
			if r.Extra == nil {
				r.Extra = map[string]float64{}
			}
			r.Extra[c.name] = vals[i]
		}
	}
	return r
}

func (p *textParser) latRow(vals []float64) LatRow {
	var r LatRow
	for i, c := range p.cols {
		setValue(nil, &r, headerKey(c.name), vals[i])
	}
	return r
}

// isCount reports whether a result field (folded by headerKey) is a whole
// number: a message size or an iteration count.
func isCount(key string) bool {
	switch key {
	case "bytes", "msgsize", "iterations", "niterations":
		return true
	}
	return false
}

// notCount says why v, the figure of count field name, is no count: not a
// whole number, or too large for an int64 ("" when it is one).
func notCount(name string, v float64) string {
	switch {
	case v != math.Trunc(v):
		return fmt.Sprintf("%s %v is not a whole number", name, v)
	case v >= 1<<63:
		return fmt.Sprintf("%s %v is too large for a count", name, v)
	}
	return ""
}

// notMeasured says what in a row of figures is no measurement: NaN, an
// infinity or a negative value ("" when every value can be one). perftest
// prints none of them for a sound run; a row that holds one is left out.
func notMeasured(vals []float64) string {
	for _, v := range vals {
		switch {
		case math.IsNaN(v) || math.IsInf(v, 0):
			return fmt.Sprintf("%v is not a number", v)
		case v < 0:
			return fmt.Sprintf("%v is negative", v)
		}
	}
	return ""
}
