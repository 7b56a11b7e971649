package switchcfg

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// ErrorKind says what a receive error counter of a switch port is
// evidence of, as the localiser (checks/localize) reads it.
type ErrorKind string

// The error kinds.
const (
	// PhyErrors: frames that arrived corrupted (FCS/CRC, symbol, alignment,
	// framing errors): the cable or transceivers arriving at this port.
	PhyErrors ErrorKind = "phy-errors"
	// Discards: frames the port received whole and dropped (buffers,
	// policy): the port or its load, not the cable.
	Discards ErrorKind = "discards"
)

// PortCounter is one receive error counter of one switch port, as the NOS
// reports it: a running total since the counters were last cleared.
type PortCounter struct {
	Port  string    `json:"port"` // the switch's port name as the fabric file writes it
	Kind  ErrorKind `json:"kind"`
	Name  string    `json:"name"` // the counter as the NOS names it (fcsErrors, eth_fcs_err, framing-errors…)
	Value uint64    `json:"value"`
}

// CounterReader is implemented by drivers that can read the switch's
// per-port receive error counters, so that fabricctl check can tell a
// corrupting cable (errors counted where it arrives) from a failing host.
// Like NeighborReader, the parse half is pure and golden-tested on the
// NOS's real output, and the commands run through the same Session:
//
//	if cr, ok := d.(switchcfg.CounterReader); ok {
//		rb := switchcfg.Readback{}
//		for _, c := range cr.CounterCommands() {
//			out, err := sess.Send(ctx, c)
//			…
//			rb[c] = []byte(out)
//		}
//		cs, err := cr.ParseCounters(rb) // []PortCounter, every physical port
//	}
//
// The drivers' commands are listed in docs/localisation.md ("Switch port
// error counters") with the counters each reads as which kind. Only physical ports are reported
// (no VLAN, loopback, bond or logical unit), each with every counter it
// has, zeros included: a port that is read and shows nothing is evidence
// too.
type CounterReader interface {
	// CounterCommands lists the commands whose outputs ParseCounters needs.
	CounterCommands() []string
	// ParseCounters turns their outputs into counters, sorted by port
	// and name. Pure.
	ParseCounters(rb Readback) ([]PortCounter, error)
}

// ParseCounterOutput is a driver's ParseCounters for one command: parse
// applied to the output of cmd in rb, the counters sorted, or an error
// naming the command (its output missing or not what parse reads).
func ParseCounterOutput(rb Readback, cmd string, parse func([]byte) ([]PortCounter, error)) ([]PortCounter, error) {
	out, ok := rb[cmd]
	if !ok {
		return nil, fmt.Errorf("parsing port counters: no output of %q", cmd)
	}
	cs, err := parse(out)
	if err != nil {
		return nil, fmt.Errorf("parsing the output of %q: %w", cmd, err)
	}
	SortCounters(cs)
	return cs, nil
}

// SortCounters sorts counters by port, then name.
func SortCounters(cs []PortCounter) {
	slices.SortFunc(cs, func(a, b PortCounter) int {
		if c := strings.Compare(a.Port, b.Port); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
}

// CounterField maps a NOS's counter name to its kind; a driver lists the
// counters it reads as a table of these, so that docs and code agree.
type CounterField struct {
	Name string
	Kind ErrorKind
}

// DecodeJSON decodes one JSON document of a NOS's counter output into v,
// as DecodeNeighborJSON does: errors name their line and column, and text
// after the document is an error.
func DecodeJSON(out []byte, v any) error { return DecodeNeighborJSON(out, v) }

// CongestionCounter is one congestion counter of one switch port: PFC
// pause frames per priority, ECN-marked packets and drops per queue or
// traffic class, as a running total since the counters were last cleared.
// Name is the NOS's own counter with the port cut out and the priority or
// queue in place ("Tx PFC3" on SONiC, "pfc-stats 3 rx-pause-frames" on
// Cumulus): the names checks/congestion's Table reads, per switch OS.
// Counters the table does not name are kept too (evidence), and a counter
// the output does not show is absent, never 0.
type CongestionCounter struct {
	Port  string `json:"port"`
	Name  string `json:"name"`
	Value uint64 `json:"value"`
	// From is the command whose output held the counter.
	From string `json:"from"`
}

// UnreadLine is a line (or, in JSON, a field) of a congestion command's
// output that the parser did not understand: its counters, if it had any,
// are absent from the reading, and the line says so instead of vanishing.
type UnreadLine struct {
	Command string `json:"command"`
	// Line is 1-based in the command's output; 0 for a JSON field (Text
	// then holds its path).
	Line   int    `json:"line,omitempty"`
	Text   string `json:"text"`
	Reason string `json:"reason"`
}

// CongestionReading is what a CongestionReader read: every counter of
// every physical port, sorted by port and name, and the lines it could not
// read.
type CongestionReading struct {
	Counters []CongestionCounter `json:"counters"`
	Unread   []UnreadLine        `json:"unread,omitempty"`
}

// MaxUnread is how many unread lines a reading lists per command; the
// rest are counted in one more entry.
const MaxUnread = 50

// Ports lists the ports of the reading, sorted.
func (r CongestionReading) Ports() []string {
	var out []string
	for _, c := range r.Counters {
		if len(out) == 0 || out[len(out)-1] != c.Port {
			out = append(out, c.Port)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Of returns the counters of port by name (nil when the port has none):
// the shape checks/congestion reads (its Port.Before and After).
func (r CongestionReading) Of(port string) map[string]uint64 {
	var out map[string]uint64
	for _, c := range r.Counters {
		if c.Port == port {
			if out == nil {
				out = map[string]uint64{}
			}
			out[c.Name] = c.Value
		}
	}
	return out
}

// CongestionReader is implemented by drivers that can read their ports'
// congestion counters — per-priority PFC pause frames received and sent,
// ECN-marked packets and drops per queue — so that a congestion round can
// be judged on the switches as on the hosts (checks/congestion). As with
// CounterReader, the commands run through the driver's Session and the
// parse half is pure:
//
//	if cr, ok := d.(switchcfg.CongestionReader); ok {
//		rb := switchcfg.Readback{}
//		for _, c := range cr.CongestionCommands(ports) {
//			out, err := sess.Send(ctx, c) // …
//			rb[c] = []byte(out)
//		}
//		r, err := cr.ParseCongestion(rb) // r.Of("Ethernet0")["Tx PFC3"]
//	}
//
// The commands and the counters each reads are listed in
// docs/congestion.md ("Reading the switches").
type CongestionReader interface {
	// CongestionCommands lists the commands whose outputs ParseCongestion
	// needs to read ports (the fabric file's names for them). A NOS whose
	// commands show every port at once ignores ports; one whose commands
	// show one port (Cumulus NVUE) returns a command per port.
	CongestionCommands(ports []string) []string
	// ParseCongestion reads the outputs. An output missing, or not the
	// command's format at all, is an error naming the command; a line of
	// it that is not understood is listed in Unread. Pure.
	ParseCongestion(rb Readback) (CongestionReading, error)
}

// CongestionParse collects a reading, one command at a time: Set records
// a counter (a port's counter given twice keeps the first and lists the
// second as unread), Unread a line not understood. Done sorts it.
type CongestionParse struct {
	Command string
	r       CongestionReading
	seen    map[[2]string]bool
	unread  map[string]int
}

// Set records port's counter name from the current command.
func (p *CongestionParse) Set(port, name string, v uint64, line int, text string) {
	if p.seen == nil {
		p.seen = map[[2]string]bool{}
	}
	k := [2]string{port, name}
	if p.seen[k] {
		p.Unread(line, text, fmt.Sprintf("%s %s given twice; the first value is kept", port, name))
		return
	}
	p.seen[k] = true
	p.r.Counters = append(p.r.Counters, CongestionCounter{Port: port, Name: name, Value: v, From: p.Command})
}

// Unread lists a line of the current command that was not understood.
func (p *CongestionParse) Unread(line int, text, reason string) {
	if p.unread == nil {
		p.unread = map[string]int{}
	}
	p.unread[p.Command]++
	n := p.unread[p.Command]
	switch {
	case n <= MaxUnread:
		if len(text) > 200 {
			text = text[:200] + "…"
		}
		p.r.Unread = append(p.r.Unread, UnreadLine{Command: p.Command, Line: line, Text: text, Reason: reason})
	case n == MaxUnread+1:
		p.r.Unread = append(p.r.Unread, UnreadLine{Command: p.Command, Line: line, Text: "…", Reason: "more lines not read"})
	default:
		p.r.Unread[len(p.r.Unread)-1].Reason = fmt.Sprintf("%d more lines not read (only the first %d are listed)", n-MaxUnread, MaxUnread)
	}
}

// Done returns the reading, counters sorted by port and name.
func (p *CongestionParse) Done() CongestionReading {
	slices.SortStableFunc(p.r.Counters, func(a, b CongestionCounter) int {
		if c := strings.Compare(a.Port, b.Port); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
	return p.r
}

// CongestionOutput returns the output of cmd in rb, or an error naming it.
func CongestionOutput(rb Readback, cmd string) ([]byte, error) {
	out, ok := rb[cmd]
	if !ok {
		return nil, fmt.Errorf("parsing congestion counters: no output of %q", cmd)
	}
	return out, nil
}

// ParseCongestionOutputs reads the outputs in rb of cmds, in order, into
// one reading: parse reads a command's output into p, whose Command is
// that command. An output missing is CongestionOutput's error; an error
// of parse is returned naming the command.
func ParseCongestionOutputs(rb Readback, cmds []string, parse func(p *CongestionParse, cmd string, out []byte) error) (CongestionReading, error) {
	var p CongestionParse
	for _, cmd := range cmds {
		out, err := CongestionOutput(rb, cmd)
		if err != nil {
			return CongestionReading{}, err
		}
		p.Command = cmd
		if err := parse(&p, cmd, out); err != nil {
			return CongestionReading{}, fmt.Errorf("parsing the output of %q: %w", cmd, err)
		}
	}
	return p.Done(), nil
}

// CountOf reads a counter as NOSes print it: digits, with or without
// thousands separators ("1,204"), or a JSON number or string of digits.
// present is false for the NOSes' ways of printing no value ("N/A", "n/a",
// "-", "--", ""); ok is false for anything else, which is no count.
func CountOf(v any) (n uint64, present, ok bool) {
	var s string
	switch x := v.(type) {
	case nil:
		return 0, false, true
	case json.Number:
		s = x.String()
	case string:
		s = strings.TrimSpace(x)
	case float64:
		if x < 0 || x != float64(uint64(x)) {
			return 0, false, false
		}
		return uint64(x), true, true
	default:
		return 0, false, false
	}
	switch strings.ToLower(s) {
	case "", "n/a", "na", "-", "--", "not available":
		return 0, false, true
	}
	s = strings.ReplaceAll(s, ",", "")
	u, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, false, false
	}
	return u, true, true
}

// DecodeCounterJSON decodes one JSON document of a counter command, with
// numbers kept exact (json.Number: counters pass 2^53), errors naming
// their line and column as DecodeJSON's do.
func DecodeCounterJSON(out []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(out))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	if err == nil {
		if _, extra := dec.Token(); extra != io.EOF {
			return nil, fmt.Errorf("%s: text after the JSON document", lineCol(out, int(dec.InputOffset())))
		}
		return v, nil
	}
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se):
		return nil, fmt.Errorf("%s: %v", lineCol(out, int(se.Offset)-1), err)
	case errors.Is(err, io.EOF):
		return nil, errors.New("no JSON document")
	}
	return nil, fmt.Errorf("%s: %v", lineCol(out, int(dec.InputOffset())), err)
}

// SetCount records port's counter name from a value as the output holds
// it (CountOf): a count is set, an absent value ("N/A", "-") is left out,
// and anything else lists where (the line's text, or a JSON path) as
// unread.
func (p *CongestionParse) SetCount(port, name string, v any, line int, where string) {
	n, present, ok := CountOf(v)
	switch {
	case !ok:
		p.Unread(line, where, fmt.Sprintf("%s %s %q is not a count", port, name, clipValue(v)))
	case present:
		p.Set(port, name, n, line, where)
	}
}

func clipValue(v any) string {
	s := fmt.Sprint(v)
	if len(s) > 40 {
		s = s[:40] + "…"
	}
	return s
}

// SplitReadback reads the outputs of several commands kept in one text,
// each after a line "=== <command>" — the form the drivers' congestion
// samples are kept in. Text before the first such line is an error, as is
// a command given twice.
func SplitReadback(text []byte) (Readback, error) {
	rb := Readback{}
	cmd := ""
	var body []string
	flush := func() {
		if cmd != "" {
			rb[cmd] = []byte(strings.Join(body, ""))
		}
	}
	for i, line := range strings.SplitAfter(string(text), "\n") {
		if c, ok := strings.CutPrefix(line, "=== "); ok {
			flush()
			cmd, body = strings.TrimSpace(c), nil
			if _, dup := rb[cmd]; dup {
				return nil, fmt.Errorf("line %d: %q given twice", i+1, cmd)
			}
			continue
		}
		if cmd == "" && strings.TrimSpace(line) != "" {
			return nil, fmt.Errorf("line %d: text before the first \"=== <command>\" line", i+1)
		}
		body = append(body, line)
	}
	flush()
	return rb, nil
}

// Format writes the reading as text, a counter a line ("PORT  NAME =
// VALUE"), then the unread lines ("unread COMMAND:LINE: TEXT (REASON)"):
// the form golden files and reports show it in.
func (r CongestionReading) Format() string {
	var b strings.Builder
	for _, c := range r.Counters {
		fmt.Fprintf(&b, "%s  %s = %d\n", c.Port, c.Name, c.Value)
	}
	for _, u := range r.Unread {
		fmt.Fprintf(&b, "unread %s:%d: %s (%s)\n", u.Command, u.Line, strings.TrimSpace(u.Text), u.Reason)
	}
	return b.String()
}
