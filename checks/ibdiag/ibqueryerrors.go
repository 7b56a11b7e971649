package ibdiag

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// QueryErrors is what ibqueryerrors prints: the ports whose counters are
// over a threshold (or, with --counters, every port's data counters) and
// its summary. The older ibcheckerrors form ("#warn: counter SymbolErrors
// = 13151 (threshold 10) lid 193 port 4") is read too, its counter names
// mapped to the IBTA ones.
type QueryErrors struct {
	Ports   []PortErrors `json:"ports"`
	Summary Summary      `json:"summary"`
	Accounting
}

// PortErrors is one "GUID 0x… port 1: [SymbolErrorCounter == 57] …" line.
type PortErrors struct {
	// Node is the "Errors for 0x… "leaf-02"" header's description.
	Node string `json:"node"`
	// NodeGUID is the header's GUID (switches); GUID the line's own (the
	// port GUID for a CA).
	NodeGUID uint64 `json:"nodeGUID,omitempty"`
	GUID     uint64 `json:"guid,omitempty"`
	LID      *int   `json:"lid,omitempty"` // the legacy form names the LID
	// Port is nil for "port ALL", the switch's sum over its ports.
	Port *int `json:"port,omitempty"`
	// Counters by IBTA name; a counter not printed is absent.
	Counters map[string]Counter `json:"counters"`
	// Thresholds are the legacy form's per-counter thresholds.
	Thresholds map[string]uint64 `json:"thresholds,omitempty"`
	// Link is the "Link info:" line (-r), as iblinkinfo prints it.
	Link string `json:"link,omitempty"`
	// Data: a --counters line (data counters, no errors).
	Data bool `json:"data,omitempty"`
	Line int  `json:"line"`
}

// All reports whether the line is the switch's "port ALL" sum.
func (p PortErrors) All() bool { return p.Port == nil }

// Summary is the "## Summary" block; a figure not printed is nil.
type Summary struct {
	NodesChecked, BadNodes, PortsChecked, BadPorts, PMAFailures *int
	// Thresholds and Suppressed are printed as text.
	Thresholds *string `json:"thresholds,omitempty"`
	Suppressed *string `json:"suppressed,omitempty"`
}

// legacyNames maps ibcheckerrors' counter names to the IBTA ones.
var legacyNames = map[string]string{
	"SymbolErrors": "SymbolErrorCounter", "LinkRecovers": "LinkErrorRecoveryCounter", "LinkDowned": "LinkDownedCounter",
	"RcvErrors": "PortRcvErrors", "RcvRemotePhysErrors": "PortRcvRemotePhysicalErrors", "RcvSwRelayErrors": "PortRcvSwitchRelayErrors",
	"XmtDiscards": "PortXmitDiscards", "XmtConstraintErrors": "PortXmitConstraintErrors", "RcvConstraintErrors": "PortRcvConstraintErrors",
	"LinkIntegrityErrors": "LocalLinkIntegrityErrors", "ExcBufOverrunErrors": "ExcessiveBufferOverrunErrors", "VL15Dropped": "VL15Dropped",
	"XmtWait": "PortXmitWait",
}

var (
	qeNodeRe     = regexp.MustCompile(`^(?:Errors|Data Counters) for (?:(0x[0-9a-fA-F]+) )?"(.*)"$`)
	qePortRe     = regexp.MustCompile(`^GUID (0x[0-9a-fA-F]+) port (ALL|\d+):((?:\s*\[[^\]]*\])+)$`)
	qeCounterRe  = regexp.MustCompile(`\[(\w+) == (\d+)(?: \([^)]*\))?\]`)
	qeLinkRe     = regexp.MustCompile(`^Link info:\s*(.*)$`)
	qeNodesRe    = regexp.MustCompile(`^## Summary: (\d+) nodes checked, (\d+) bad nodes found$`)
	qePortsRe    = regexp.MustCompile(`^##\s+(\d+) ports checked, (\d+) ports have errors beyond threshold$`)
	qeStateRe    = regexp.MustCompile(`^##\s+(\d+) ports checked, (\d+) ports with bad state found$`)
	qePMARe      = regexp.MustCompile(`^##\s+(\d+) PMA query failures$`)
	qeThreshRe   = regexp.MustCompile(`^## Thresholds:\s*(.*)$`)
	qeSuppressRe = regexp.MustCompile(`^## Suppressed:\s*(.*)$`)
	qeWarnRe     = regexp.MustCompile(`^#warn: counter (\w+) = (\d+)\s+\(threshold (\d+)\)(?: lid (\d+) port (\d+|all))?$`)
	qeCheckRe    = regexp.MustCompile(`^(?:Error check on lid \d+ \(.*\) port (?:\d+|all):\s+FAILED|# Checked (?:Switch|Ca|CA|Router): nodeguid 0x[0-9a-fA-F]+ with failure)$`)
)

// ParseIBQueryErrors reads ibqueryerrors output (plain, -r, --details,
// --data, --counters, -s), and the legacy ibcheckerrors form.
func ParseIBQueryErrors(text string) (*QueryErrors, error) {
	q := &QueryErrors{}
	node, nodeGUID := "", uint64(0)
	data := false
	seen := false
	for _, l := range lines(text) {
		s := strings.TrimSpace(l.s)
		switch {
		case qeNodeRe.MatchString(s):
			m := qeNodeRe.FindStringSubmatch(s)
			nodeGUID, _ = parseGUID(m[1])
			node = m[2]
			data = strings.HasPrefix(s, "Data")
			q.Read++
			seen = true
		case qePortRe.MatchString(s):
			p, ok := parsePortErrors(qePortRe.FindStringSubmatch(s), l.n)
			if !ok {
				q.unparsed(l.n, s)
				continue
			}
			p.Node, p.NodeGUID, p.Data = node, nodeGUID, data
			q.Ports = append(q.Ports, p)
			q.Read++
		case qeLinkRe.MatchString(s) && len(q.Ports) > 0 && q.Ports[len(q.Ports)-1].Link == "":
			q.Ports[len(q.Ports)-1].Link = qeLinkRe.FindStringSubmatch(s)[1]
			q.Read++
		case qeWarnRe.MatchString(s):
			if !q.legacy(qeWarnRe.FindStringSubmatch(s), l.n) {
				q.unparsed(l.n, s)
				continue
			}
			q.Read++
			seen = true
		case qeCheckRe.MatchString(s):
			q.Read++
		case q.summary(s):
			q.Read++
			seen = true
		case q.toolError(l):
		default:
			q.unparsed(l.n, s)
		}
	}
	if !seen && len(q.Ports) == 0 {
		return q, fmt.Errorf("parsing ibqueryerrors output: %w", ErrNoData)
	}
	return q, nil
}

func parsePortErrors(m []string, n int) (PortErrors, bool) {
	g, ok := parseGUID(m[1])
	if !ok {
		return PortErrors{}, false
	}
	p := PortErrors{GUID: g, Counters: map[string]Counter{}, Line: n}
	if m[2] != "ALL" {
		v, ok := parsePort(m[2])
		if !ok {
			return PortErrors{}, false
		}
		p.Port = &v
	}
	cs := qeCounterRe.FindAllStringSubmatch(m[3], -1)
	// every bracket must be a counter: a bracket not read is a line not understood
	if len(cs) != strings.Count(m[3], "[") {
		return PortErrors{}, false
	}
	for _, c := range cs {
		bits := portCounterBits[c[1]]
		if p.Port == nil {
			bits = 0 // a sum over ports
		}
		v, err := newCounter(c[2], bits)
		if _, dup := p.Counters[c[1]]; err != nil || dup {
			return PortErrors{}, false
		}
		p.Counters[c[1]] = v
	}
	return p, true
}

// legacy records one ibcheckerrors "#warn: counter …" line.
func (q *QueryErrors) legacy(m []string, n int) bool {
	name, ok := legacyNames[m[1]]
	if !ok {
		name = m[1]
	}
	c, err := newCounter(m[2], portCounterBits[name])
	th, err2 := strconv.ParseUint(m[3], 10, 64)
	if err != nil || err2 != nil {
		return false
	}
	var lid, port *int
	if m[4] != "" {
		lid = intp(m[4])
		port = intp(m[5]) // nil for "all"
	}
	// warnings of one port follow each other: merge them
	if k := len(q.Ports) - 1; k >= 0 && q.Ports[k].Thresholds != nil && eqp(q.Ports[k].LID, lid) && eqp(q.Ports[k].Port, port) {
		if _, dup := q.Ports[k].Counters[name]; !dup {
			q.Ports[k].Counters[name] = c
			q.Ports[k].Thresholds[name] = th
			return true
		}
	}
	q.Ports = append(q.Ports, PortErrors{LID: lid, Port: port, Counters: map[string]Counter{name: c}, Thresholds: map[string]uint64{name: th}, Line: n})
	return true
}

func eqp(a, b *int) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

// summary records one "## …" summary line.
func (q *QueryErrors) summary(s string) bool {
	sm := &q.Summary
	switch {
	case qeNodesRe.MatchString(s):
		m := qeNodesRe.FindStringSubmatch(s)
		sm.NodesChecked, sm.BadNodes = intp(m[1]), intp(m[2])
	case qePortsRe.MatchString(s):
		m := qePortsRe.FindStringSubmatch(s)
		sm.PortsChecked, sm.BadPorts = intp(m[1]), intp(m[2])
	case qeStateRe.MatchString(s):
		// ibcheckerrors' port state line: counted ports, not counters
	case qePMARe.MatchString(s):
		sm.PMAFailures = intp(qePMARe.FindStringSubmatch(s)[1])
	case qeThreshRe.MatchString(s):
		v := qeThreshRe.FindStringSubmatch(s)[1]
		sm.Thresholds = &v
	case qeSuppressRe.MatchString(s):
		v := qeSuppressRe.FindStringSubmatch(s)[1]
		sm.Suppressed = &v
	default:
		return false
	}
	return true
}
