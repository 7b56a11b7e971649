package ibdiag

import (
	"fmt"
	"regexp"
	"strings"
)

// Trace is what ibtracert prints for a unicast path: where it starts, each
// hop, and where it ends.
type Trace struct {
	From *TraceEnd `json:"from,omitempty"`
	Hops []Hop     `json:"hops"`
	To   *TraceEnd `json:"to,omitempty"`
	Accounting
}

// TraceEnd is the "From ca {0x…} portnum 1 lid 4-4 "lab-h1"" or "To …" line.
type TraceEnd struct {
	Type NodeType `json:"type"`
	GUID uint64   `json:"guid"` // the node GUID
	Port int      `json:"port"`
	// LIDLow and LIDHigh are the port's LID range (base LID to base+2^LMC-1).
	LIDLow  int    `json:"lidLow"`
	LIDHigh int    `json:"lidHigh"`
	Desc    string `json:"desc,omitempty"`
	Line    int    `json:"line"`
}

// Hop is one "[7] -> switch port {0x…}[1] lid 2-2 "spine-01"" line: the
// packet leaves the previous node by OutPort and enters this one by InPort.
type Hop struct {
	OutPort int      `json:"outPort"`
	Type    NodeType `json:"type"`
	// GUID is the node GUID for a switch, the port GUID for a CA.
	GUID    uint64 `json:"guid"`
	InPort  int    `json:"inPort"`
	LIDLow  int    `json:"lidLow"`
	LIDHigh int    `json:"lidHigh"`
	Desc    string `json:"desc,omitempty"`
	Line    int    `json:"line"`
}

var (
	trEndRe = regexp.MustCompile(`^(From|To) (ca|switch|router) \{(0x[0-9a-fA-F]+)\} portnum (\d+) lid (\d+)-(\d+)(?: "(.*)")?$`)
	trHopRe = regexp.MustCompile(`^\[(\d+)\] -> (ca|switch|router) port \{(0x[0-9a-fA-F]+)\}\[(\d+)\] lid (\d+)-(\d+)(?: "(.*)")?$`)
)

// ParseIBTracert reads ibtracert output (unicast; without -n).
func ParseIBTracert(text string) (*Trace, error) {
	t := &Trace{}
	for _, l := range lines(text) {
		s := strings.TrimSpace(l.s)
		if m := trEndRe.FindStringSubmatch(s); m != nil {
			e, ok := traceEnd(m, l.n)
			switch {
			case !ok:
				t.unparsed(l.n, s)
			case m[1] == "From" && t.From == nil:
				t.From = e
				t.Read++
			case m[1] == "To" && t.To == nil:
				t.To = e
				t.Read++
			default:
				t.unparsed(l.n, s)
			}
			continue
		}
		if m := trHopRe.FindStringSubmatch(s); m != nil {
			h, ok := traceHop(m, l.n)
			if !ok {
				t.unparsed(l.n, s)
				continue
			}
			t.Hops = append(t.Hops, h)
			t.Read++
			continue
		}
		if !t.toolError(l) {
			t.unparsed(l.n, s)
		}
	}
	if t.From == nil && len(t.Hops) == 0 {
		return t, fmt.Errorf("parsing ibtracert output: %w", ErrNoData)
	}
	return t, nil
}

// Complete reports whether the trace reached its destination.
func (t *Trace) Complete() bool { return t.From != nil && t.To != nil }

func traceEnd(m []string, n int) (*TraceEnd, bool) {
	ty, _ := parseNodeType(m[2])
	g, ok1 := parseGUID(m[3])
	p, ok2 := parsePort(m[4])
	lo, ok3 := parseLID(m[5])
	hi, ok4 := parseLID(m[6])
	if !ok1 || !ok2 || !ok3 || !ok4 {
		return nil, false
	}
	return &TraceEnd{Type: ty, GUID: g, Port: p, LIDLow: lo, LIDHigh: hi, Desc: m[7], Line: n}, true
}

func traceHop(m []string, n int) (Hop, bool) {
	out, ok0 := parsePort(m[1])
	e, ok := traceEnd([]string{"", "", m[2], m[3], m[4], m[5], m[6], m[7]}, n)
	if !ok0 || !ok {
		return Hop{}, false
	}
	return Hop{OutPort: out, Type: e.Type, GUID: e.GUID, InPort: e.Port, LIDLow: e.LIDLow, LIDHigh: e.LIDHigh, Desc: e.Desc, Line: n}, true
}
