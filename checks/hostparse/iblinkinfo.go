package hostparse

import (
	"fmt"
	"io"
	"regexp"
	"strings"
)

// IBLinkInfo is what iblinkinfo prints: every node (CA or switch) and its
// links with their width, speed and state.
type IBLinkInfo struct {
	Nodes  []IBLinkNode `json:"nodes"`
	Elided bool         `json:"elided,omitempty"` // "..." left lines out
	NumberErrors
}

// IBLinkNode is one "CA: name:" or "Switch: guid name:" block.
type IBLinkNode struct {
	Type  string       `json:"type"` // CA, Switch or Router
	Name  string       `json:"name"`
	Links []IBLinkPort `json:"links,omitempty"`
	// Line is the block header's line number (1-based; 0 for a block
	// without one), so a caller can tell which lines were read.
	Line int `json:"-"`
}

// IBLinkPort is one link line: "… 1[  ] ==( 4X 25.78125 Gbps Active/  LinkUp)==> … "peer"".
type IBLinkPort struct {
	Port      int     `json:"port"`
	Width     string  `json:"width"`    // "4X"
	LaneGbps  float64 `json:"laneGbps"` // per-lane signalling: 25.78125 (EDR), 53.125 (HDR), 106.25 (NDR)
	State     string  `json:"state"`    // Active, Down, Init, Armed
	PhysState string  `json:"physState"`
	Peer      string  `json:"peer,omitempty"`
	// PeerLID and PeerPort are the far end's; 0 when the port has no peer
	// (iblinkinfo prints `[  ] "" ( )` for a down port without one).
	PeerLID  int `json:"peerLID,omitempty"`
	PeerPort int `json:"peerPort,omitempty"`
	// CouldBe is iblinkinfo's own hint that the link trained below what
	// both ends support: "4X", "53.125 Gbps" or both (the "Could be …"
	// text of infiniband-diags' get_max_msg).
	CouldBe string `json:"couldBe,omitempty"`
	// Line is the link line's number (1-based).
	Line int `json:"-"`
}

// Connected reports whether iblinkinfo found a port at the other end.
func (p IBLinkPort) Connected() bool { return p.PeerPort > 0 || p.Peer != "" }

// The line layout is infiniband-diags' iblinkinfo.c print_port:
// "<lid> <port>[<ext>] ==(<width> <speed> <state>/ <phys>)==> " then the peer
// "<lid> <port>[<ext>] "<name>" (<could be width> <could be speed>)" or,
// without one, `[  ] "" ( )`; -l puts GUIDs in front, -p "(HOQ:… VL_Stall:…)"
// after the link, and an FDR10 link says "10.0 Gbps (FDR10)".
var (
	ibNodeRe = regexp.MustCompile(`^(CA|Switch|Router):\s+(?:0x[0-9a-f]+\s+)?(.*?):?$`)
	ibLinkRe = regexp.MustCompile(`(\d+)\[[^\]]*\]\s+==\(\s*(?:(\d+X)\s+([\d.]+) Gbps(?: \(FDR10\))?\s+)?(\w+)/\s*(\w+)\)(?: \(HOQ:\d+ VL_Stall:\d+\))?==>(.*)$`)
	ibPeerRe = regexp.MustCompile(`^\s*(?:0x[0-9a-fA-F]+\s+)?(\d+)\s+(\d+)\[[^\]]*\]\s+"([^"]*)"(?:\s*\(([^)]*)\))?`)
)

// linkPort reads link line n, matched by ibLinkRe; a number that does not
// fit is left out (zero) and recorded in BadNumbers.
func (out *IBLinkInfo) linkPort(n int, m []string) IBLinkPort {
	port, _ := out.index(n, "port", m[1])
	var g float64
	if m[3] != "" {
		g, _ = out.rate(n, "lane speed", m[3])
	}
	l := IBLinkPort{Port: port, Width: m[2], LaneGbps: g, State: m[4], PhysState: m[5], Line: n}
	if p := ibPeerRe.FindStringSubmatch(m[6]); p != nil {
		l.PeerLID, _ = out.index(n, "peer LID", p[1])
		l.PeerPort, _ = out.index(n, "peer port", p[2])
		l.Peer = p[3]
		l.CouldBe = couldBe(p[4])
	} else if q := strings.Index(m[6], `"`); q >= 0 {
		// `[  ] "" ( )` or a name without LIDs (an elided line).
		if name, _, ok := strings.Cut(m[6][q+1:], `"`); ok {
			l.Peer = name
		}
	}
	return l
}

// couldBe reads the peer comment "Could be 4X Could be 53.125 Gbps" as
// "4X 53.125 Gbps"; "" when the link runs at what both ends support.
func couldBe(comment string) string {
	var out []string
	for _, part := range strings.Split(comment, "Could be")[1:] {
		if part = strings.TrimSpace(part); part != "" {
			out = append(out, part)
		}
	}
	return strings.Join(out, " ")
}

// ParseIBLinkInfo reads iblinkinfo output.
func ParseIBLinkInfo(r io.Reader) (*IBLinkInfo, error) {
	var out IBLinkInfo
	var node *IBLinkNode
	err := scan(r, func(n, _ int, raw string) {
		s := strings.TrimSpace(raw)
		switch {
		case s == "..." || s == "[...]":
			out.Elided = true
		case ibNodeRe.MatchString(s):
			m := ibNodeRe.FindStringSubmatch(s)
			out.Nodes = append(out.Nodes, IBLinkNode{Type: m[1], Name: m[2], Line: n})
			node = &out.Nodes[len(out.Nodes)-1]
		case ibLinkRe.MatchString(s):
			if node == nil {
				out.Nodes = append(out.Nodes, IBLinkNode{Type: "CA"})
				node = &out.Nodes[len(out.Nodes)-1]
			}
			node.Links = append(node.Links, out.linkPort(n, ibLinkRe.FindStringSubmatch(s)))
		}
	})
	if err != nil {
		return nil, fmt.Errorf("parsing iblinkinfo output: %w", err)
	}
	links := 0
	for _, n := range out.Nodes {
		links += len(n.Links)
	}
	if links == 0 {
		return nil, fmt.Errorf("parsing iblinkinfo output: %w", ErrNoData)
	}
	return &out, nil
}
