package hostparse

import (
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
)

// IBLinkInfo is what iblinkinfo prints: every node (CA or switch) and its
// links with their width, speed and state.
type IBLinkInfo struct {
	Nodes  []IBLinkNode `json:"nodes"`
	Elided bool         `json:"elided,omitempty"` // "..." left lines out
}

// IBLinkNode is one "CA: name:" or "Switch: guid name:" block.
type IBLinkNode struct {
	Type  string       `json:"type"` // CA or Switch
	Name  string       `json:"name"`
	Links []IBLinkPort `json:"links,omitempty"`
}

// IBLinkPort is one link line: "… 1[  ] ==( 4X 25.78125 Gbps Active/  LinkUp)==> … "peer"".
type IBLinkPort struct {
	Port      int     `json:"port"`
	Width     string  `json:"width"`    // "4X"
	LaneGbps  float64 `json:"laneGbps"` // per-lane signalling: 25.78125 (EDR), 53.125 (HDR), 106.25 (NDR)
	State     string  `json:"state"`    // Active, Down, Init, Armed
	PhysState string  `json:"physState"`
	Peer      string  `json:"peer,omitempty"`
}

var (
	ibNodeRe = regexp.MustCompile(`^(CA|Switch):\s+(?:0x[0-9a-f]+\s+)?(.*?):?$`)
	ibLinkRe = regexp.MustCompile(`(\d+)\[\s*\]\s+==\(\s*(?:(\d+X)\s+([\d.]+) Gbps\s+)?(\w+)/\s*(\w+)\)==>(?:.*"([^"]*)")?`)
)

// ParseIBLinkInfo reads iblinkinfo output.
func ParseIBLinkInfo(r io.Reader) (*IBLinkInfo, error) {
	var out IBLinkInfo
	var node *IBLinkNode
	err := scan(r, func(_, _ int, raw string) {
		s := strings.TrimSpace(raw)
		switch {
		case s == "..." || s == "[...]":
			out.Elided = true
		case ibNodeRe.MatchString(s):
			m := ibNodeRe.FindStringSubmatch(s)
			out.Nodes = append(out.Nodes, IBLinkNode{Type: m[1], Name: m[2]})
			node = &out.Nodes[len(out.Nodes)-1]
		case ibLinkRe.MatchString(s):
			if node == nil {
				out.Nodes = append(out.Nodes, IBLinkNode{Type: "CA"})
				node = &out.Nodes[len(out.Nodes)-1]
			}
			m := ibLinkRe.FindStringSubmatch(s)
			port, _ := strconv.Atoi(m[1])
			g, _ := strconv.ParseFloat(m[3], 64)
			node.Links = append(node.Links, IBLinkPort{Port: port, Width: m[2], LaneGbps: g, State: m[4], PhysState: m[5], Peer: m[6]})
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
