package ibdiag

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/fabricctl/fabricctl/checks/hostparse"
)

// LinkInfo is iblinkinfo's output, typed: checks/hostparse reads the lines
// (ParseIBLinkInfo) and this adds the types and the account of every line.
type LinkInfo struct {
	Nodes []LinkNode `json:"nodes"`
	// Elided: "..." lines left ports out.
	Elided bool `json:"elided,omitempty"`
	// BadNumbers are hostparse's figures that fit no field.
	BadNumbers []string `json:"badNumbers,omitempty"`
	Accounting
}

// LinkNode is one "CA: name:" or "Switch: 0x… name:" block.
type LinkNode struct {
	Type  NodeType   `json:"type"`
	Name  string     `json:"name"`
	Ports []LinkPort `json:"ports"`
	Line  int        `json:"line,omitempty"`
}

// LinkPort is one port line.
type LinkPort struct {
	Port int `json:"port"`
	// Width and Speed are zero for a port that is not up.
	Width Width `json:"width,omitempty"`
	Speed Speed `json:"speed,omitempty"`
	// LaneGbps is the speed as printed (FDR10 prints 10.0).
	LaneGbps  float64   `json:"laneGbps,omitempty"`
	State     PortState `json:"state"`
	PhysState PhysState `json:"physState"`
	// StateRaw is the state pair as printed when either is unknown.
	StateRaw string `json:"stateRaw,omitempty"`
	Peer     string `json:"peer,omitempty"`
	PeerLID  int    `json:"peerLID,omitempty"`
	PeerPort int    `json:"peerPort,omitempty"`
	// CouldBe is iblinkinfo's "Could be …" hint, as hostparse reads it.
	CouldBe string `json:"couldBe,omitempty"`
	Line    int    `json:"line"`
}

// Up reports whether the port is Active/LinkUp.
func (p LinkPort) Up() bool { return p.State == StateActive && p.PhysState == PhysLinkUp }

// ParseIBLinkInfo reads iblinkinfo output.
func ParseIBLinkInfo(text string) (*LinkInfo, error) {
	li, err := hostparse.ParseIBLinkInfo(strings.NewReader(text))
	if err != nil {
		return nil, fmt.Errorf("parsing iblinkinfo output: %w", err)
	}
	out := &LinkInfo{Elided: li.Elided, BadNumbers: li.BadNumbers}
	raw := map[int]string{}
	for _, l := range lines(text) {
		raw[l.n] = l.s
	}
	read := map[int]bool{}
	for _, n := range li.Nodes {
		if n.Line == 0 {
			// port lines under no "CA:"/"Switch:" header (a grep of the
			// output): whose ports they are is not printed, and they may
			// be of several nodes, switches among them. They stay Unparsed
			// rather than be given to a node made up for them.
			continue
		}
		ty, _ := parseNodeType(n.Type)
		ln := LinkNode{Type: ty, Name: n.Name, Line: n.Line}
		if n.Line > 0 {
			read[n.Line] = true
		}
		for _, p := range n.Links {
			read[p.Line] = true
			lp := LinkPort{Port: p.Port, LaneGbps: p.LaneGbps, Peer: p.Peer, PeerLID: p.PeerLID, PeerPort: p.PeerPort, CouldBe: p.CouldBe, Line: p.Line}
			var ok1, ok2 bool
			lp.State, ok1 = ParsePortState(p.State)
			lp.PhysState, ok2 = ParsePhysState(p.PhysState)
			if !ok1 || !ok2 {
				lp.StateRaw = p.State + "/" + p.PhysState
			}
			if p.Width != "" {
				lp.Width, _ = ParseWidth(p.Width)
			}
			switch {
			case strings.Contains(raw[p.Line], "(FDR10)"):
				lp.Speed = FDR10
			case p.LaneGbps > 0:
				lp.Speed, _ = ParseSpeed(strconv.FormatFloat(p.LaneGbps, 'f', -1, 64) + " Gbps")
			}
			ln.Ports = append(ln.Ports, lp)
		}
		out.Nodes = append(out.Nodes, ln)
	}
	for _, l := range lines(text) {
		s := strings.TrimSpace(l.s)
		switch {
		case read[l.n], s == "...", s == "[...]":
			out.Read++
		case out.toolError(l):
		default:
			out.unparsed(l.n, s)
		}
	}
	if len(out.Nodes) == 0 {
		// nil, as when hostparse finds no port line: callers take a
		// non-nil result for a reading of the fabric
		return nil, fmt.Errorf("parsing iblinkinfo output: %d port lines under no node header: %w", len(out.Unparsed), ErrNoData)
	}
	return out, nil
}
