package fabric

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// Pos is a place in a YAML file.
type Pos struct {
	File string `json:"file,omitempty"`
	Line int    `json:"line,omitempty"`
	Col  int    `json:"col,omitempty"`
}

func (p Pos) String() string {
	switch {
	case p.Line > 0:
		return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
	case p.File != "":
		return p.File
	}
	return ""
}

// Severity says whether a finding makes a document invalid (an error) or
// only risky (a warning). It is a property of the finding's type: *Error is
// always SeverityError, *Warning always SeverityWarning.
type Severity int

// Severities, in JSON and text as "error" and "warning".
const (
	SeverityError Severity = iota
	SeverityWarning
)

func (s Severity) String() string {
	if s == SeverityWarning {
		return "warning"
	}
	return "error"
}

// MarshalText writes "error" or "warning".
func (s Severity) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText reads "error" or "warning".
func (s *Severity) UnmarshalText(b []byte) error {
	switch string(b) {
	case "error":
		*s = SeverityError
	case "warning":
		*s = SeverityWarning
	default:
		return fmt.Errorf("%q is not a severity (error, warning)", b)
	}
	return nil
}

// Error is one located problem: FILE:LINE:COL: YAML.PATH: message.
type Error struct {
	Pos  Pos
	Path string
	Msg  string
	// Code names the kind of problem for programs (CodeUnknownField, …);
	// empty for most errors, whose message is the whole story.
	Code string
	last bool // the too-many-errors notice, sorted after every error
}

// Stable codes of errors that tools may act on.
const (
	CodeUnknownField = "unknown-field"
	CodeYAMLSyntax   = "yaml-syntax"
	CodeYAMLTab      = "yaml-tab"
	CodeDuplicateKey = "duplicate-key"
)

// Severity is SeverityError.
func (e *Error) Severity() Severity { return SeverityError }

// Diagnostic is e as a flat record.
func (e *Error) Diagnostic() Diagnostic {
	return Diagnostic{Severity: SeverityError, Code: e.Code, File: e.Pos.File, Line: e.Pos.Line,
		Column: e.Pos.Col, Path: e.Path, Message: e.Msg}
}

func (e *Error) Error() string {
	var b strings.Builder
	if s := e.Pos.String(); s != "" {
		b.WriteString(s)
		b.WriteString(": ")
	}
	if e.Path != "" {
		b.WriteString(e.Path)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Errors is every problem found in a load, sorted by position. Load returns it
// as its error; use errors.As to get the list.
type Errors []*Error

func (es Errors) Error() string {
	lines := make([]string, len(es))
	for i, e := range es {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

func (es Errors) sort() {
	sort.SliceStable(es, func(i, j int) bool {
		if es[i].last != es[j].last {
			return es[j].last
		}
		return posLess(es[i].Pos, es[j].Pos, es[i].Msg, es[j].Msg)
	})
}

// posLess orders findings by file, line, column, then message.
func posLess(a, b Pos, am, bm string) bool {
	if a.File != b.File {
		return a.File < b.File
	}
	if a.Line != b.Line {
		return a.Line < b.Line
	}
	if a.Col != b.Col {
		return a.Col < b.Col
	}
	return am < bm
}

// Warning is one located risky intent: the document is valid and will be
// applied, but what it asks for is rarely what a RoCE fabric wants. It
// prints as FILE:LINE:COL: YAML.PATH: warning: message [code]. Code is
// stable (docs/fabric-yaml.md, "Warnings", lists them): scripts may match
// on it; the message may be reworded.
type Warning struct {
	Pos  Pos
	Path string
	Code string
	Msg  string
}

// Severity is SeverityWarning.
func (w *Warning) Severity() Severity { return SeverityWarning }

func (w *Warning) String() string {
	var b strings.Builder
	if s := w.Pos.String(); s != "" {
		b.WriteString(s)
		b.WriteString(": ")
	}
	if w.Path != "" {
		b.WriteString(w.Path)
		b.WriteString(": ")
	}
	b.WriteString("warning: ")
	b.WriteString(w.Msg)
	if w.Code != "" {
		b.WriteString(" [")
		b.WriteString(w.Code)
		b.WriteString("]")
	}
	return b.String()
}

// Diagnostic is w as a flat record.
func (w *Warning) Diagnostic() Diagnostic {
	return Diagnostic{Severity: SeverityWarning, Code: w.Code, File: w.Pos.File, Line: w.Pos.Line,
		Column: w.Pos.Col, Path: w.Path, Message: w.Msg}
}

// Warnings is every warning of a load, sorted by position.
type Warnings []*Warning

func (ws Warnings) sort() {
	sort.SliceStable(ws, func(i, j int) bool { return posLess(ws[i].Pos, ws[j].Pos, ws[i].Msg, ws[j].Msg) })
}

// Diagnostic is one finding of a load as a flat record, the form
// `fabricctl validate -o json` prints (like terraform validate -json).
type Diagnostic struct {
	Severity Severity `json:"severity"`
	Code     string   `json:"code,omitempty"`
	File     string   `json:"file,omitempty"`
	Line     int      `json:"line,omitempty"`
	Column   int      `json:"column,omitempty"`
	Path     string   `json:"path,omitempty"`
	Message  string   `json:"message"`
}

// String prints d as its Error or Warning prints: FILE:LINE:COL: PATH:
// message, with "warning: " before a warning's message and its code after.
func (d Diagnostic) String() string {
	if d.Severity == SeverityWarning {
		w := Warning{Pos: Pos{d.File, d.Line, d.Column}, Path: d.Path, Code: d.Code, Msg: d.Message}
		return w.String()
	}
	e := Error{Pos: Pos{d.File, d.Line, d.Column}, Path: d.Path, Msg: d.Message}
	return e.Error()
}

// Diagnostics returns the findings of a load in one list sorted by
// position: the errors of err (when it is Errors; any other error becomes
// one diagnostic without a position, its text the message) and ws.
func Diagnostics(err error, ws Warnings) []Diagnostic {
	type entry struct {
		d    Diagnostic
		last bool
	}
	var all []entry
	var es Errors
	switch {
	case err == nil:
	case errors.As(err, &es):
		for _, e := range es {
			all = append(all, entry{e.Diagnostic(), e.last})
		}
	default:
		all = append(all, entry{d: Diagnostic{Severity: SeverityError, Message: err.Error()}})
	}
	for _, w := range ws {
		all = append(all, entry{d: w.Diagnostic()})
	}
	sort.SliceStable(all, func(i, j int) bool {
		if all[i].last != all[j].last {
			return all[j].last
		}
		a, b := all[i].d, all[j].d
		return posLess(Pos{a.File, a.Line, a.Column}, Pos{b.File, b.Line, b.Column}, a.Message, b.Message)
	})
	out := make([]Diagnostic, len(all))
	for i, e := range all {
		out[i] = e.d
	}
	return out
}
