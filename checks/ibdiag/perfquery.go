package ibdiag

import (
	"fmt"
	"regexp"
	"strings"
)

// PerfQuery is what perfquery prints: one block per port queried (-a on a
// switch without AllPortSelect, -l, or several invocations in one file).
type PerfQuery struct {
	Blocks []CounterBlock `json:"blocks"`
	Accounting
}

// CounterBlock is one "# Port counters: Lid 8 port 1 (CapMask: 0x1300)" block.
type CounterBlock struct {
	// Attribute is what the header names: "Port counters", "Port extended
	// counters", "PortRcvErrorDetails counters", "PortXmitDiscardDetails
	// counters" …
	Attribute string `json:"attribute"`
	// Target is the queried port as printed: "Lid 8" or "DR path …".
	Target string `json:"target"`
	LID    *int   `json:"lid,omitempty"`
	Port   *int   `json:"port,omitempty"` // 255 is all ports (-a)
	// CapMask and CapMask2 are the PMA ClassPortInfo masks as printed.
	CapMask  string `json:"capMask,omitempty"`
	CapMask2 string `json:"capMask2,omitempty"`
	// Counters by IBTA name; a counter not printed is absent.
	Counters map[string]Counter `json:"counters"`
	// Fields are the other "Name:....value" lines (PortSelect,
	// CounterSelect, CounterSelect2 …), as printed.
	Fields map[string]string `json:"fields,omitempty"`
	Line   int               `json:"line"`
}

// Extended reports whether the block is PortCountersExtended (perfquery -x),
// whose counters are 64 bits wide.
func (b CounterBlock) Extended() bool { return strings.Contains(b.Attribute, "extended") }

// Saturated returns the names of the block's saturated counters.
func (b CounterBlock) Saturated() []string {
	var out []string
	for _, name := range ErrorCounters {
		if b.Counters[name].Saturated {
			out = append(out, name)
		}
	}
	for _, name := range []string{"PortXmitData", "PortRcvData", "PortXmitPkts", "PortRcvPkts", "PortXmitWait", "QP1Dropped"} {
		if b.Counters[name].Saturated {
			out = append(out, name)
		}
	}
	return out
}

var (
	pqHeaderRe = regexp.MustCompile(`^#\s*(.+?):\s+(Lid (\d+)|DR path .*?|GUID 0x[0-9a-fA-F]+) port (\d+)(?:\s+\((.*)\))?\s*$`)
	pqFieldRe  = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9_]*):\.*\s*(\S+)$`)
	pqCapRe    = regexp.MustCompile(`CapMask: (0x[0-9a-fA-F]+)(?:\s+CapMask2: (0x[0-9a-fA-F]+))?`)
)

// ParsePerfQuery reads perfquery output: basic PortCounters, -x
// PortCountersExtended, -a, -E/-D detail blocks, with or without headers.
func ParsePerfQuery(text string) (*PerfQuery, error) {
	pq := &PerfQuery{}
	var b *CounterBlock
	for _, l := range lines(text) {
		s := strings.TrimSpace(l.s)
		if m := pqHeaderRe.FindStringSubmatch(s); m != nil {
			nb := CounterBlock{Attribute: m[1], Target: m[2], Counters: map[string]Counter{}, Fields: map[string]string{}, Line: l.n}
			if m[3] != "" {
				nb.LID = intp(m[3])
			}
			nb.Port = intp(m[4])
			if c := pqCapRe.FindStringSubmatch(m[5]); c != nil {
				nb.CapMask, nb.CapMask2 = c[1], c[2]
			}
			pq.Blocks = append(pq.Blocks, nb)
			b = &pq.Blocks[len(pq.Blocks)-1]
			pq.Read++
			continue
		}
		if m := pqFieldRe.FindStringSubmatch(s); m != nil && strings.Contains(s, ":.") {
			if b == nil || (m[1] == "PortSelect" && len(b.Counters) > 0) {
				// A block without its header (the header cut off, or -x
				// piped through grep).
				pq.Blocks = append(pq.Blocks, CounterBlock{Counters: map[string]Counter{}, Fields: map[string]string{}, Line: l.n})
				b = &pq.Blocks[len(pq.Blocks)-1]
			}
			if !b.add(m[1], m[2]) {
				pq.unparsed(l.n, s)
				continue
			}
			pq.Read++
			continue
		}
		if !pq.toolError(l) {
			pq.unparsed(l.n, s)
		}
	}
	if len(pq.Blocks) == 0 {
		return pq, fmt.Errorf("parsing perfquery output: %w", ErrNoData)
	}
	return pq, nil
}

// add records one "Name:....value" line; false when value is no number.
func (b *CounterBlock) add(name, value string) bool {
	if strings.HasPrefix(value, "0x") || name == "PortSelect" {
		if _, dup := b.Fields[name]; dup {
			return false
		}
		b.Fields[name] = value
		return true
	}
	if _, dup := b.Counters[name]; dup {
		return false
	}
	bits := portCounterBits[name]
	if b.Extended() {
		bits = 64
	} else if b.Attribute == "" && portCounterBits[name] == 32 && strings.HasPrefix(name, "Port") && name != "PortXmitWait" {
		bits = 0 // data counters of a headless block: 32 or 64 bits, unknown
	}
	if bits == 0 && b.Attribute != "" && !b.Extended() && !strings.HasPrefix(b.Attribute, "Port counters") {
		bits = 16 // detail counters (PortRcvErrorDetails …) are 16 bits
	}
	c, err := newCounter(value, bits)
	if err != nil {
		return false
	}
	b.Counters[name] = c
	return true
}
