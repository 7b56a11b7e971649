package ibdiag

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Topology is what ibnetdiscover prints: its topology file (the default
// and -g), its port list (-p), its node lists (-l, -H, -S, and ibhosts,
// ibswitches) and, with -s, the directed routes it walked.
type Topology struct {
	Nodes []Node `json:"nodes,omitempty"`
	// PortLines are the lines of ibnetdiscover -p, one per port.
	PortLines []PortLine `json:"portLines,omitempty"`
	// Discovery are the "DR path … -> new Switch {…}" lines of -s.
	Discovery []DRStep `json:"discovery,omitempty"`
	Accounting
}

// Node is one "Switch|Ca|Rt N "ID" # "desc" …" record of the topology
// file, or one line of a node list.
type Node struct {
	Type NodeType `json:"type"`
	// ID is ibnetdiscover's node name ("S-0008f10400000201", "H-…").
	ID   string `json:"id,omitempty"`
	GUID uint64 `json:"guid"` // switchguid=, caguid=, rtguid=
	// SysImageGUID, VendorID and DeviceID are the record's sysimgguid=,
	// vendid= and devid= lines (nil: not printed).
	SysImageGUID *uint64 `json:"sysImageGUID,omitempty"`
	VendorID     *uint64 `json:"vendorID,omitempty"`
	DeviceID     *uint64 `json:"deviceID,omitempty"`
	NumPorts     int     `json:"numPorts"`
	// Desc is the NodeDescription ("leaf-01", "gpu-01 mlx5_0").
	Desc string `json:"desc"`
	// LID and LMC are a switch's (port 0, "base port 0 lid 3 lmc 0");
	// a CA's LIDs are per port. Nil when not printed.
	LID *int `json:"lid,omitempty"`
	LMC *int `json:"lmc,omitempty"`
	// Enhanced: the switch port 0 is enhanced (it supports the PMA).
	Enhanced bool       `json:"enhanced,omitempty"`
	Ports    []NodePort `json:"ports,omitempty"`
	Line     int        `json:"line"`
}

// NodePort is one cabled port of a Node: "[1] "H-…"[1](guid) # "desc" lid 4 4xEDR".
type NodePort struct {
	Num int `json:"num"`
	// GUID is the port GUID printed after the port number (CA and router
	// ports; switch ports share the switch's GUID); 0 when not printed.
	GUID uint64 `json:"guid,omitempty"`
	// Label is the port's label where ibdiagnet prints one ("1/1/1").
	Label string `json:"label,omitempty"`
	// LID and LMC are a CA port's own ("# lid 7 lmc 0 …"); nil otherwise.
	LID *int `json:"lid,omitempty"`
	LMC *int `json:"lmc,omitempty"`
	// The far end: its node ID, port, port GUID or label, description and LID.
	PeerID    string `json:"peerID"`
	PeerPort  int    `json:"peerPort"`
	PeerGUID  uint64 `json:"peerGUID,omitempty"`
	PeerLabel string `json:"peerLabel,omitempty"`
	PeerDesc  string `json:"peerDesc,omitempty"`
	PeerLID   *int   `json:"peerLID,omitempty"`
	Width     Width  `json:"width,omitempty"`
	Speed     Speed  `json:"speed,omitempty"`
	// SpeedRaw is the speed as printed when it is none of the IBTA
	// speeds ("???").
	SpeedRaw string `json:"speedRaw,omitempty"`
	Line     int    `json:"line"`
}

// PortLine is one line of ibnetdiscover -p:
//
//	CA     4  1 0x0002c90300001001 4x EDR - SW     3  1 0x0008f10400000201 ( 'lab-h1' - 'leaf-01' )
type PortLine struct {
	Local    PortEnd  `json:"local"`
	Peer     *PortEnd `json:"peer,omitempty"` // nil: the port has no peer
	Width    Width    `json:"width,omitempty"`
	Speed    Speed    `json:"speed,omitempty"`
	SpeedRaw string   `json:"speedRaw,omitempty"`
	Line     int      `json:"line"`
}

// PortEnd is one end of a -p line.
type PortEnd struct {
	Type NodeType `json:"type"`
	LID  int      `json:"lid"`
	Port int      `json:"port"`
	GUID uint64   `json:"guid"`
	Desc string   `json:"desc"`
}

// DRStep is one "DR path slid 0; dlid 0; 0,1 -> new Switch {…} portnum 0 lid 0-0 """ line of -s.
type DRStep struct {
	Path string   `json:"path"`
	New  bool     `json:"new"`
	Type NodeType `json:"type"`
	GUID uint64   `json:"guid"`
	Port int      `json:"port"`
	Desc string   `json:"desc,omitempty"`
	Line int      `json:"line"`
}

// LinkEnd is one end of a Link.
type LinkEnd struct {
	ID   string `json:"id"`
	Desc string `json:"desc,omitempty"`
	Port int    `json:"port"`
}

func (e LinkEnd) String() string { return fmt.Sprintf("%s[%d]", e.ID, e.Port) }

// Link is a cable between two ports, listed once.
type Link struct {
	A, B     LinkEnd
	Width    Width  `json:"width,omitempty"`
	Speed    Speed  `json:"speed,omitempty"`
	SpeedRaw string `json:"speedRaw,omitempty"`
}

// Links returns every cable of the topology file once, in the order first
// met, each as its first listing said (ibnetdiscover lists a link from both
// ends).
func (t *Topology) Links() []Link {
	desc := map[string]string{}
	for _, n := range t.Nodes {
		desc[n.ID] = n.Desc
	}
	seen := map[[2]string]bool{}
	var out []Link
	for _, n := range t.Nodes {
		for _, p := range n.Ports {
			a := LinkEnd{ID: n.ID, Desc: n.Desc, Port: p.Num}
			b := LinkEnd{ID: p.PeerID, Desc: p.PeerDesc, Port: p.PeerPort}
			if b.Desc == "" {
				b.Desc = desc[b.ID]
			}
			k := [2]string{a.String(), b.String()}
			if k[0] > k[1] {
				k[0], k[1] = k[1], k[0]
			}
			if seen[k] {
				continue
			}
			seen[k] = true
			out = append(out, Link{A: a, B: b, Width: p.Width, Speed: p.Speed, SpeedRaw: p.SpeedRaw})
		}
	}
	return out
}

// Node returns the node with the given ID or description.
func (t *Topology) Node(idOrDesc string) (*Node, bool) {
	for i := range t.Nodes {
		if t.Nodes[i].ID == idOrDesc || t.Nodes[i].Desc == idOrDesc {
			return &t.Nodes[i], true
		}
	}
	return nil, false
}

var (
	ndGlobalRe = regexp.MustCompile(`^(vendid|devid|sysimgguid|switchguid|caguid|rtguid)=(0x[0-9a-fA-F]+)(?:\(([0-9a-fA-F]+)\))?(?:\s*#.*)?$`)
	ndNodeRe   = regexp.MustCompile(`^(Switch|Ca|Rt)\s+(\d+)\s+"([^"]*)"\s*(?:#\s*"(.*)"(?:\s+(base|enhanced) port 0 lid (\d+) lmc (\d+))?)?$`)
	ndPortRe   = regexp.MustCompile(`^\[(\d+)\]((?:\([^)]*\))*)\s*"([^"]*)"\[(\d+)\]((?:\([^)]*\))*)\s*(?:#\s*(.*))?$`)
	// the comment of a port line: [lid N lmc M] "peer desc" lid N 4xEDR
	ndPortCommentRe = regexp.MustCompile(`^(?:lid (\d+) lmc (\d+)\s+)?"(.*)"\s+lid (\d+)(?:\s+(\d+)x(\S+))?$`)
	ndListRe        = regexp.MustCompile(`^(Switch|Ca|Router)\s*:\s*(0x[0-9a-fA-F]+)\s+ports\s+(\d+)\s+"(.*)"(?:\s+(base|enhanced) port 0 lid (\d+) lmc (\d+))?$`)
	ndPRe           = regexp.MustCompile(`^(CA|SW|RT)\s+(\d+)\s+(\d+)\s+(0x[0-9a-fA-F]+)\s+(\d+)x\s+(\S+)\s*(.*)$`)
	ndPPeerRe       = regexp.MustCompile(`^-\s+(CA|SW|RT)\s+(\d+)\s+(\d+)\s+(0x[0-9a-fA-F]+)\s+\(\s*'(.*)'\s+-\s+'(.*)'\s*\)$`)
	// -g groups nodes by chassis: "Non-Chassis Nodes", "ISR9288 Chassis 1 (guid 0x…)".
	ndChassisRe = regexp.MustCompile(`^(?:Non-Chassis Nodes|(?:\S+ )?Chassis \d+(?: \(.*\))?)$`)
	ndDRRe      = regexp.MustCompile(`^DR path slid \d+; dlid \d+; ([\d,]+) -> (?:(new|known)\s+)?(Channel Adapter|Switch|Router) \{([0-9a-fA-F]+)\} portnum (\d+) lid \d+-\d+ "(.*)"$`)
)

// ParseIBNetDiscover reads ibnetdiscover output (any of its forms, mixed
// as -s mixes them).
func ParseIBNetDiscover(text string) (*Topology, error) {
	t := &Topology{}
	var node *Node
	globals := map[string]uint64{}
	for _, l := range lines(text) {
		s := strings.TrimSpace(l.s)
		switch {
		case strings.HasPrefix(s, "#"):
			t.Read++
		case t.global(s, globals):
			t.Read++
		case ndChassisRe.MatchString(s):
			t.Read++
		case ndNodeRe.MatchString(s):
			t.Nodes = append(t.Nodes, newNode(ndNodeRe.FindStringSubmatch(s), globals, l.n))
			node = &t.Nodes[len(t.Nodes)-1]
			globals = map[string]uint64{}
			t.Read++
		case ndPortRe.MatchString(s) && node != nil:
			p, ok := parseNodePort(ndPortRe.FindStringSubmatch(s), l.n)
			if !ok {
				t.unparsed(l.n, s)
				continue
			}
			node.Ports = append(node.Ports, p)
			t.Read++
		case ndListRe.MatchString(s):
			m := ndListRe.FindStringSubmatch(s)
			ty, _ := parseNodeType(m[1])
			g, _ := parseGUID(m[2])
			n, _ := strconv.Atoi(m[3])
			nd := Node{Type: ty, GUID: g, NumPorts: n, Desc: m[4], Line: l.n, Enhanced: m[5] == "enhanced"}
			if m[6] != "" {
				nd.LID, nd.LMC = intp(m[6]), intp(m[7])
			}
			t.Nodes = append(t.Nodes, nd)
			node = nil
			t.Read++
		case ndPRe.MatchString(s):
			p, ok := parsePortLine(ndPRe.FindStringSubmatch(s), l.n)
			if !ok {
				t.unparsed(l.n, s)
				continue
			}
			t.PortLines = append(t.PortLines, p)
			t.Read++
		case ndDRRe.MatchString(s):
			m := ndDRRe.FindStringSubmatch(s)
			ty, _ := parseNodeType(m[3])
			g, _ := parseGUID(m[4])
			p, _ := strconv.Atoi(m[5])
			t.Discovery = append(t.Discovery, DRStep{Path: m[1], New: m[2] == "new", Type: ty, GUID: g, Port: p, Desc: m[6], Line: l.n})
			t.Read++
		case t.toolError(l):
		default:
			t.unparsed(l.n, s)
		}
	}
	if len(t.Nodes) == 0 && len(t.PortLines) == 0 && len(t.Discovery) == 0 {
		return t, fmt.Errorf("parsing ibnetdiscover output: %w", ErrNoData)
	}
	return t, nil
}

// global records a "key=0x…" line of a node record.
func (t *Topology) global(s string, g map[string]uint64) bool {
	m := ndGlobalRe.FindStringSubmatch(s)
	if m == nil {
		return false
	}
	v, ok := parseGUID(m[2])
	if !ok {
		return false
	}
	g[m[1]] = v
	return true
}

func newNode(m []string, g map[string]uint64, n int) Node {
	ty, _ := parseNodeType(m[1])
	np, _ := strconv.Atoi(m[2])
	nd := Node{Type: ty, ID: m[3], NumPorts: np, Desc: m[4], Line: n, Enhanced: m[5] == "enhanced"}
	for _, k := range []string{"switchguid", "caguid", "rtguid"} {
		if v, ok := g[k]; ok {
			nd.GUID = v
		}
	}
	if v, ok := g["sysimgguid"]; ok {
		nd.SysImageGUID = &v
	}
	if v, ok := g["vendid"]; ok {
		nd.VendorID = &v
	}
	if v, ok := g["devid"]; ok {
		nd.DeviceID = &v
	}
	if m[6] != "" {
		nd.LID, nd.LMC = intp(m[6]), intp(m[7])
	}
	return nd
}

func intp(s string) *int {
	v, err := strconv.Atoi(s)
	if err != nil {
		return nil
	}
	return &v
}

// guidOrLabel reads the parentheses after a port number: a port GUID in
// hex, and a label such as "1/1/1" or "1" (ibdiagnet prints
// "[1](1)(b0cf0e0300e5b948)"). A GUID has more than 4 hex digits (its
// OUI fills the high bytes); anything shorter, or with a '/', is a label.
func guidOrLabel(s string) (uint64, string) {
	var g uint64
	var labels []string
	for _, p := range strings.Split(strings.TrimSuffix(strings.TrimPrefix(s, "("), ")"), ")(") {
		if v, ok := parseGUID(p); ok && len(p) > 4 && g == 0 {
			g = v
			continue
		}
		if p != "" {
			labels = append(labels, p)
		}
	}
	return g, strings.Join(labels, " ")
}

func parseNodePort(m []string, n int) (NodePort, bool) {
	var ok1, ok2 bool
	p := NodePort{PeerID: m[3], Line: n}
	p.Num, ok1 = parsePort(m[1])
	p.PeerPort, ok2 = parsePort(m[4])
	if !ok1 || !ok2 {
		return p, false
	}
	p.GUID, p.Label = guidOrLabel(m[2])
	p.PeerGUID, p.PeerLabel = guidOrLabel(m[5])
	if m[6] == "" {
		return p, true
	}
	c := ndPortCommentRe.FindStringSubmatch(strings.TrimSpace(m[6]))
	if c == nil {
		return p, false
	}
	if c[1] != "" {
		p.LID, p.LMC = intp(c[1]), intp(c[2])
	}
	p.PeerDesc = c[3]
	p.PeerLID = intp(c[4])
	if c[5] != "" {
		w, ok := ParseWidth(c[5] + "X")
		if !ok {
			return p, false
		}
		p.Width = w
		p.Speed, p.SpeedRaw = speedOrRaw(c[6])
	}
	return p, true
}

// speedOrRaw reads a speed, keeping the text when it is no IBTA speed.
func speedOrRaw(s string) (Speed, string) {
	if sp, ok := ParseSpeed(s); ok {
		return sp, ""
	}
	return "", s
}

func parsePortLine(m []string, n int) (PortLine, bool) {
	ty, _ := parseNodeType(m[1])
	lid, ok1 := parseLID(m[2])
	port, ok2 := parsePort(m[3])
	g, ok3 := parseGUID(m[4])
	w, ok4 := ParseWidth(m[5] + "X")
	if !ok1 || !ok2 || !ok3 || !ok4 {
		return PortLine{}, false
	}
	p := PortLine{Local: PortEnd{Type: ty, LID: lid, Port: port, GUID: g}, Width: w, Line: n}
	p.Speed, p.SpeedRaw = speedOrRaw(m[6])
	rest := strings.TrimSpace(m[7])
	if q := ndPPeerRe.FindStringSubmatch(rest); q != nil {
		pty, _ := parseNodeType(q[1])
		plid, ok1 := parseLID(q[2])
		pport, ok2 := parsePort(q[3])
		pg, ok3 := parseGUID(q[4])
		if !ok1 || !ok2 || !ok3 {
			return PortLine{}, false
		}
		p.Local.Desc = q[5]
		p.Peer = &PortEnd{Type: pty, LID: plid, Port: pport, GUID: pg, Desc: q[6]}
		return p, true
	}
	// A port without a peer ends with its node's name: 'name'.
	if len(rest) < 2 || rest[0] != '\'' || rest[len(rest)-1] != '\'' {
		return PortLine{}, false
	}
	p.Local.Desc = rest[1 : len(rest)-1]
	return p, true
}
