package ibdiag

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// SMPQuery is what smpquery portinfo, nodeinfo or nodedesc prints: its
// header and its "Name:....value" fields in order. PortInfo, NodeInfo and
// NodeDesc read the typed values.
type SMPQuery struct {
	// Attribute is the header's ("Port info", "Node info"); "" when the
	// output has no header (nodedesc).
	Attribute string  `json:"attribute,omitempty"`
	Target    string  `json:"target,omitempty"` // "Lid 4 port 1", "DR path …"
	Fields    []Field `json:"fields"`
	Accounting
}

// Field is one "Name:....value" line; Flags are the indented lines under
// it (CapMask's "IsTrapSupported" …).
type Field struct {
	Name  string   `json:"name"`
	Value string   `json:"value"`
	Flags []string `json:"flags,omitempty"`
	Line  int      `json:"line"`
}

// Get returns the value of the named field; ok is false when it is not printed.
func (q *SMPQuery) Get(name string) (string, bool) {
	for _, f := range q.Fields {
		if f.Name == name {
			return f.Value, true
		}
	}
	return "", false
}

var (
	smpHeaderRe = regexp.MustCompile(`^#\s*([A-Za-z][A-Za-z0-9 ]*?):\s+(.*)$`)
	smpFieldRe  = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9_ ]*?):\.+(.*)$`)
	smpFlagRe   = regexp.MustCompile(`^\s+(Is\w+|\w+Supported|\w+)$`)
)

// ParseSMPQuery reads smpquery output (portinfo, nodeinfo, nodedesc, and
// any other attribute printed as "Name:....value" lines).
func ParseSMPQuery(text string) (*SMPQuery, error) {
	q := &SMPQuery{}
	for _, l := range lines(text) {
		s := strings.TrimSpace(l.s)
		switch {
		case q.Attribute == "" && len(q.Fields) == 0 && smpHeaderRe.MatchString(s):
			m := smpHeaderRe.FindStringSubmatch(s)
			q.Attribute, q.Target = m[1], m[2]
			q.Read++
		case smpFieldRe.MatchString(s):
			m := smpFieldRe.FindStringSubmatch(s)
			q.Fields = append(q.Fields, Field{Name: m[1], Value: strings.TrimSpace(m[2]), Line: l.n})
			q.Read++
		case len(q.Fields) > 0 && (l.s[0] == '\t' || l.s[0] == ' ') && smpFlagRe.MatchString(l.s):
			f := &q.Fields[len(q.Fields)-1]
			f.Flags = append(f.Flags, s)
			q.Read++
		case q.toolError(l):
		default:
			q.unparsed(l.n, s)
		}
	}
	if len(q.Fields) == 0 {
		return q, fmt.Errorf("parsing smpquery output: %w", ErrNoData)
	}
	return q, nil
}

// PortInfo is the typed reading of smpquery portinfo. A pointer field is
// nil when the field is not printed or not readable (then it is listed in
// Bad).
type PortInfo struct {
	LID, SMLID, LocalPort *int
	LMC                   *int
	State                 PortState
	PhysState             PhysState
	LinkDownDefState      PhysState
	WidthActive           Width
	WidthEnabled          Width
	// WidthSupported are the widths LinkWidthSupported lists.
	WidthSupported []Width
	// Speed is the active lane speed: LinkSpeedExtActive (FDR and up) when
	// it names one, LinkSpeedActive otherwise; FDR10 is not in PortInfo.
	Speed Speed
	// NeighborMTU and MTUCap in bytes.
	NeighborMTU, MTUCap *int
	// Bad names the fields present but not readable.
	Bad []string
}

// PortInfo reads the fields of a portinfo query.
func (q *SMPQuery) PortInfo() PortInfo {
	var p PortInfo
	num := func(name string) *int {
		v, ok := q.Get(name)
		if !ok {
			return nil
		}
		n, err := strconv.ParseInt(v, 0, 64)
		if err != nil {
			p.Bad = append(p.Bad, name)
			return nil
		}
		i := int(n)
		return &i
	}
	p.LID, p.SMLID, p.LocalPort, p.LMC = num("Lid"), num("SMLid"), num("LocalPort"), num("LMC")
	p.NeighborMTU, p.MTUCap = num("NeighborMTU"), num("MtuCap")
	if v, ok := q.Get("LinkState"); ok {
		if p.State, ok = ParsePortState(v); !ok {
			p.Bad = append(p.Bad, "LinkState")
		}
	}
	for name, dst := range map[string]*PhysState{"PhysLinkState": &p.PhysState, "LinkDownDefState": &p.LinkDownDefState} {
		if v, ok := q.Get(name); ok {
			if *dst, ok = ParsePhysState(v); !ok {
				p.Bad = append(p.Bad, name)
			}
		}
	}
	for name, dst := range map[string]*Width{"LinkWidthActive": &p.WidthActive, "LinkWidthEnabled": &p.WidthEnabled} {
		if v, ok := q.Get(name); ok {
			if *dst, ok = ParseWidth(v); !ok {
				p.Bad = append(p.Bad, name)
			}
		}
	}
	if v, ok := q.Get("LinkWidthSupported"); ok {
		for _, w := range strings.Split(v, " or ") {
			if x, ok := ParseWidth(w); ok {
				p.WidthSupported = append(p.WidthSupported, x)
			}
		}
	}
	for _, name := range []string{"LinkSpeedExt2Active", "LinkSpeedExtActive", "LinkSpeedActive"} {
		if v, ok := q.Get(name); ok {
			if sp, ok := ParseSpeed(v); ok {
				p.Speed = sp
				break
			}
		}
	}
	return p
}

// NodeInfo is the typed reading of smpquery nodeinfo.
type NodeInfo struct {
	Type                       NodeType
	NumPorts, LocalPort        *int
	GUID, PortGUID, SystemGUID *uint64
	VendorID, DeviceID         *uint64
	Bad                        []string
}

// NodeInfo reads the fields of a nodeinfo query.
func (q *SMPQuery) NodeInfo() NodeInfo {
	var n NodeInfo
	hex := func(name string) *uint64 {
		v, ok := q.Get(name)
		if !ok {
			return nil
		}
		g, ok := parseGUID(v)
		if !ok {
			n.Bad = append(n.Bad, name)
			return nil
		}
		return &g
	}
	num := func(name string) *int {
		v, ok := q.Get(name)
		if !ok {
			return nil
		}
		i, err := strconv.Atoi(v)
		if err != nil {
			n.Bad = append(n.Bad, name)
			return nil
		}
		return &i
	}
	if v, ok := q.Get("NodeType"); ok {
		if n.Type, ok = parseNodeType(v); !ok {
			n.Bad = append(n.Bad, "NodeType")
		}
	}
	n.NumPorts, n.LocalPort = num("NumPorts"), num("LocalPort")
	n.GUID, n.PortGUID, n.SystemGUID = hex("Guid"), hex("PortGuid"), hex("SystemGuid")
	n.VendorID, n.DeviceID = hex("VendorId"), hex("DevId")
	return n
}

// NodeDesc returns smpquery nodedesc's NodeDescription.
func (q *SMPQuery) NodeDesc() (string, bool) { return q.Get("Node Description") }
