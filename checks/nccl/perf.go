package nccl

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/fabricctl/fabricctl/checks"
)

// Perf is one nccl-tests result table (all_reduce_perf and its siblings).
type Perf struct {
	Source string    `json:"source"`
	Where  string    `json:"where"` // "file:line" of the column header
	Rows   []PerfRow `json:"rows"`
	// AvgBusBW is the "# Avg bus bandwidth" footer, GB/s; 0 when absent.
	AvgBusBW float64 `json:"avgBusBW,omitempty"`
	// OutOfBounds is the "# Out of bounds values" footer; -1 when absent.
	OutOfBounds int `json:"outOfBounds"`
	// NotNumbers lists the rows left out because a figure was no
	// measurement (NaN, an infinity, a negative value, a size or count no
	// int64 holds), and footers whose figure is none, each located.
	NotNumbers []string `json:"notNumbers,omitempty"`
	badAt      string   // where the first of NotNumbers is
}

// PerfRow is one message size.
type PerfRow struct {
	Bytes      int64   `json:"bytes"`
	Count      int64   `json:"count"`
	Type       string  `json:"type"`
	Redop      string  `json:"redop"`
	Root       int     `json:"root"` // -1 for rootless collectives and old tables without the column
	OutOfPlace PerfRun `json:"outOfPlace"`
	InPlace    PerfRun `json:"inPlace"`
	Where      string  `json:"where"`
}

// PerfRun is the time and bandwidth of one placement.
type PerfRun struct {
	TimeUs float64 `json:"timeUs"`
	AlgBW  float64 `json:"algBW"` // GB/s
	BusBW  float64 `json:"busBW"` // GB/s
	Wrong  int     `json:"wrong"` // -1 for N/A (validation off)
}

var (
	// perfHeaderRe: every era's column header, "#" or not (users drop it):
	// "size count type redop root time algbw busbw #wrong", 2.x's "error"
	// column, all_gather's table without redop, NCCL 1.x's "bytes N type op
	// … res".
	perfHeaderRe = regexp.MustCompile(`^#?\s*(?:size|bytes)\s+(?:count|N)\s+type\s+(?:(?:redop|op)\s+)?(root\s+)?time\s+algbw\s+busbw\s+(?:#wrong|error|res)`)
	perfTagRe    = regexp.MustCompile(`\[\d+\]`)
	outOfBoundRe = regexp.MustCompile(`^#?\s*Out of bounds values\s*:\s*(\d+)`)
	avgBusBWRe   = regexp.MustCompile(`^#?\s*Avg bus bandwidth\s*:\s*([0-9.]+)`)
	wordRe       = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)
)

// perfParser reads the nccl-tests table of one source.
type perfParser struct {
	source  string
	at      pos // the column header, or the first line of the table
	header  bool
	root    bool
	rows    []PerfRow
	avg     float64
	oob     int
	hasOOB  bool
	content bool
	// notNumbers are rows with a figure that is no measurement.
	notNumbers []string
	badAt      pos
}

// notNumber records a row or footer at whose figure is no measurement.
func (p *perfParser) notNumber(at pos, why string) {
	p.notNumbers = append(p.notNumbers, at.String()+": "+why)
	p.badAt = earlier(p.badAt, at)
}

// line handles one line without the NCCL prefix and reports whether it was
// nccl-tests output.
func (p *perfParser) line(s string, at pos) bool {
	s = strings.TrimSpace(perfTagRe.ReplaceAllString(s, " "))
	switch {
	case perfHeaderRe.MatchString(s):
		p.header, p.root = true, perfHeaderRe.FindStringSubmatch(s)[1] != ""
		p.at = earlier(p.at, at)
	case outOfBoundRe.MatchString(s):
		v := outOfBoundRe.FindStringSubmatch(s)[1]
		n, err := strconv.Atoi(v)
		if err != nil {
			p.notNumber(at, fmt.Sprintf("out of bounds values %s is not a count that fits", clip(v, 40)))
			break
		}
		p.oob, p.hasOOB = n, true
	case avgBusBWRe.MatchString(s):
		v := avgBusBWRe.FindStringSubmatch(s)[1]
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsInf(f, 0) {
			p.notNumber(at, fmt.Sprintf("average bus bandwidth %s is not a number that fits", clip(v, 40)))
			break
		}
		p.avg = f
	case strings.HasPrefix(s, "nThread "):
		p.content = true
		return true
	case strings.HasPrefix(s, "#") || strings.HasPrefix(s, "(B)") || strings.HasPrefix(s, "out-of-place"):
		// "# nThread 1 nGpus 1 …", "# Using devices", "# (B) (elements) …"
		if strings.HasPrefix(s, "# nThread") || strings.Contains(s, "(elements)") || strings.Contains(s, "out-of-place") {
			p.content = true
			return true
		}
		return false
	default:
		row, bad, ok := p.row(strings.Fields(s), at)
		if !ok {
			return false
		}
		if bad == "" {
			bad = row.notMeasured()
		}
		if bad != "" {
			p.notNumber(at, bad)
			break
		}
		p.rows = append(p.rows, row)
	}
	p.content = true
	p.at = earlier(p.at, at)
	return true
}

// row reads "size count type [redop] [root] time algbw busbw #wrong time
// algbw busbw #wrong" (all_gather and its kin print no redop; some
// collectives print out-of-place only). Without a header (an excerpt that
// starts below it) the root column is inferred from the number of fields.
// bad says which whole number of a row no int64 holds ("" for none).
func (p *perfParser) row(f []string, at pos) (r PerfRow, bad string, ok bool) {
	if len(f) < 7 || !wordRe.MatchString(f[2]) {
		return PerfRow{}, "", false
	}
	whole := func(name, s string) (int64, bool) {
		v, err := strconv.ParseInt(s, 10, 64)
		if err == nil {
			return v, true
		}
		if _, ferr := strconv.ParseFloat(s, 64); errors.Is(err, strconv.ErrRange) || ferr == nil || errors.Is(ferr, strconv.ErrRange) {
			if bad == "" {
				bad = fmt.Sprintf("%s %s is not a whole number an int64 holds", name, clip(s, 40))
			}
			return 0, true
		}
		return 0, false
	}
	if r.Bytes, ok = whole("size", f[0]); !ok {
		return PerfRow{}, "", false
	}
	if r.Count, ok = whole("count", f[1]); !ok {
		return PerfRow{}, "", false
	}
	r.Type, r.Root, r.Where = intern(f[2]), -1, at.String()
	rest := f[3:]
	if wordRe.MatchString(rest[0]) {
		r.Redop, rest = intern(rest[0]), rest[1:]
	}
	root := p.root
	if !p.header {
		root = len(rest) == 9 || len(rest) == 5
	}
	if root {
		if len(rest) == 0 {
			return PerfRow{}, "", false
		}
		v, ok := whole("root", rest[0])
		if !ok || v > math.MaxInt32 || v < math.MinInt32 {
			return PerfRow{}, "", false
		}
		r.Root, rest = int(v), rest[1:]
	}
	if len(rest) != 4 && len(rest) != 8 {
		return PerfRow{}, "", false
	}
	if r.OutOfPlace, ok = perfRun(rest[:4]); !ok {
		return PerfRow{}, "", false
	}
	if len(rest) == 8 {
		if r.InPlace, ok = perfRun(rest[4:]); !ok {
			return PerfRow{}, "", false
		}
	}
	return r, bad, true
}

// notMeasured says which figure of the row is no measurement (NaN, an
// infinity, a negative time or bandwidth), "" when all can be.
func (r PerfRow) notMeasured() string {
	for _, run := range []struct {
		name string
		r    PerfRun
	}{{"out-of-place", r.OutOfPlace}, {"in-place", r.InPlace}} {
		for _, v := range []float64{run.r.TimeUs, run.r.AlgBW, run.r.BusBW} {
			if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
				return fmt.Sprintf("%s figure %v at %d bytes is no measurement", run.name, v, r.Bytes)
			}
		}
	}
	return ""
}

// perfRun reads time, algbw, busbw and #wrong; a figure past float64 (1e999)
// reads as an infinity, which notMeasured then refuses.
func perfRun(f []string) (PerfRun, bool) {
	var r PerfRun
	float := func(s string) (float64, bool) {
		v, err := strconv.ParseFloat(s, 64)
		return v, err == nil || errors.Is(err, strconv.ErrRange)
	}
	var ok bool
	if r.TimeUs, ok = float(f[0]); !ok {
		return r, false
	}
	if r.AlgBW, ok = float(f[1]); !ok {
		return r, false
	}
	if r.BusBW, ok = float(f[2]); !ok {
		return r, false
	}
	switch v, ferr := strconv.ParseFloat(f[3], 64); {
	case f[3] == "N/A":
		r.Wrong = -1
	case ferr != nil:
		return r, false
	case strings.ContainsAny(f[3], ".eE"):
		// nccl-tests 2.x's "error" column: the largest relative deviation
		// found. Rounding of float reductions leaves ~1e-7; the footer's
		// "Out of bounds values" is the verdict, and a deviation of 1e-3 or
		// more is wrong even where the capture lost the footer.
		if v >= wrongDeviation {
			r.Wrong = 1
		}
	case math.IsNaN(v) || math.IsInf(v, 0) || v < 0:
		r.Wrong = -1 // no count: as N/A
	default:
		r.Wrong = int(min(v, math.MaxInt32))
	}
	return r, true
}

// result returns the table of the source, if it had one.
func (p *perfParser) result() (Perf, bool) {
	if len(p.rows) == 0 && !p.hasOOB && p.avg == 0 && len(p.notNumbers) == 0 {
		return Perf{}, false
	}
	out := Perf{Source: p.source, Where: p.at.String(), Rows: p.rows, AvgBusBW: p.avg, OutOfBounds: -1, NotNumbers: p.notNumbers, badAt: p.badAt.String()}
	if p.hasOOB {
		out.OutOfBounds = p.oob
	}
	return out, true
}

// wrongDeviation is the relative error of nccl-tests 2.x's "error" column
// taken as a wrong result without the footer: far above float rounding.
const wrongDeviation = 1e-3

// collapseMin is the smallest message size at which a fall in bus bandwidth
// counts: below it latency dominates and numbers jump around.
const collapseMin = 1 << 20

// findings reports wrong results and a collapse of bus bandwidth: a size of
// at least 1 MiB reaching less than half the best busbw of the sizes before it.
func (p Perf) findings() []Finding {
	var out []Finding
	if len(p.NotNumbers) > 0 {
		out = append(out, Finding{Kind: BadNumber, Status: checks.StatusError, Where: p.badAt,
			Message: fmt.Sprintf("%d figure(s) of nccl-tests output in %s are no measurement (NaN, an infinity, a negative value, a number too large for its field), left out: %s; its bandwidth is not judged",
				len(p.NotNumbers), p.Source, p.NotNumbers[0])})
	}
	wrong := 0
	for _, r := range p.Rows {
		wrong += max(r.OutOfPlace.Wrong, 0) + max(r.InPlace.Wrong, 0)
	}
	if wrong > 0 || p.OutOfBounds > 0 {
		out = append(out, Finding{Kind: WrongResults, Status: checks.StatusFail, Where: p.Where,
			Message: fmt.Sprintf("nccl-tests found wrong results (%d wrong, %d out of bounds) in %s", wrong, max(p.OutOfBounds, 0), p.Source)})
	}
	if len(p.NotNumbers) > 0 {
		return out // rows are missing: a collapse cannot be told
	}
	var best PerfRow
	for _, r := range p.Rows {
		if r.Bytes < collapseMin {
			continue
		}
		if best.Bytes != 0 && r.OutOfPlace.BusBW < best.OutOfPlace.BusBW/2 {
			out = append(out, Finding{Kind: BusBWCollapse, Status: checks.StatusWarn, Where: r.Where,
				Message: fmt.Sprintf("bus bandwidth falls from %.2f GB/s at %d bytes to %.2f GB/s at %d bytes in %s",
					best.OutOfPlace.BusBW, best.Bytes, r.OutOfPlace.BusBW, r.Bytes, p.Source)})
			break
		}
		if r.OutOfPlace.BusBW > best.OutOfPlace.BusBW {
			best = r
		}
	}
	return out
}

// MaxBusBW returns the best out-of-place bus bandwidth of the table, GB/s.
func (p Perf) MaxBusBW() float64 {
	m := 0.0
	for _, r := range p.Rows {
		m = max(m, r.OutOfPlace.BusBW, r.InPlace.BusBW)
	}
	return m
}
