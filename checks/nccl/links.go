package nccl

import (
	"cmp"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/fabricctl/fabricctl/checks"
)

// Link is one rank-to-rank connection of NCCL's channels, as the ranks of a
// host printed it ("Channel 03/0 : 0[0] -> 1[1] via P2P/CUMEM"): which
// transport carried it and on how many channels.
type Link struct {
	From int `json:"from"`
	To   int `json:"to"`
	// Transport is the folded transport name: P2P/CUMEM, P2P/IPC, SHM,
	// NET/IB, NET/Socket, …
	Transport string `json:"transport"`
	// GDRDMA is set when a NET channel of the link ran GPUDirect RDMA.
	GDRDMA bool `json:"gdrdma,omitempty"`
	// Channels is how many channels use the link (send and receive lines of
	// one channel count once).
	Channels int `json:"channels"`
	// Peer is the host of the rank at the other end ("" when the logs do not
	// say), Scope whether the link stays inside a node.
	Peer  string `json:"peer,omitempty"`
	Scope Scope  `json:"scope"`
	Where string `json:"where"` // first line that showed it
}

// Scope says whether a link stays inside one node.
type Scope string

// Scopes of a link. A P2P, SHM or NVLS link is within a node by what NCCL
// does; a NET link crosses nodes as NCCL sees them, which may still be one
// machine (containers with their own host id, P2P and SHM disabled).
const (
	IntraNode Scope = "intra-node"
	InterNode Scope = "inter-node"
)

// Path is one result of NCCL's topology search (NCCL_DEBUG_SUBSYS=GRAPH):
// "Pattern 4, crossNic 0, nChannels 16, bw 40.000000/40.000000, type NVL/PIX,
// sameChannels 1". Intra is the GPU-to-GPU path type inside the node (NVL:
// NVLink; PIX, PXB, PHB, NODE, SYS: PCIe and CPU paths; LOC: one GPU), Inter
// the GPU-to-NIC type.
type Path struct {
	Pattern  int     `json:"pattern"`
	Channels int     `json:"channels"`
	BW       float64 `json:"bw"` // GB/s per channel as NCCL estimated it
	Intra    string  `json:"intra"`
	Inter    string  `json:"inter"`
}

var (
	// patternRe: "Pattern 4, crossNic 0, nChannels 16, bw 40.000000/40.000000,
	// type NVL/PIX, sameChannels 1" (NCCL 2.12+), "speed" before.
	patternRe = regexp.MustCompile(`^Pattern (\d+), crossNic \d+, nChannels (\d+), (?:bw|speed) ([0-9.]+)/[0-9.]+, type (\w+)/(\w+)`)
	// nvlTopoRe: the topology dump's "+ NVL[370.8] - NVS/0" or "+ NVL[80.0] - GPU/41000".
	nvlTopoRe = regexp.MustCompile(`^\s*\+ NVL\[[0-9.]+\] - (?:GPU|NVS)/`)
	// channelNumRe reads the channel number of a channel line.
	channelNumRe = regexp.MustCompile(`^(?:Channel|Ring)\s+(\d+)`)
)

type linkKey struct {
	from, to  int
	transport string
}

type linkState struct {
	channels map[int]bool
	gdr      bool
	where    string
}

// graph records the GRAPH lines of one process; it reports whether msg was one.
func (h *hostState) graph(msg string) bool {
	switch {
	case patternRe.MatchString(msg):
		m := patternRe.FindStringSubmatch(msg)
		p := Path{Pattern: atoi(m[1]), Channels: atoi(m[2]), Intra: m[4], Inter: m[5]}
		p.BW, _ = strconv.ParseFloat(m[3], 64)
		if !slices.Contains(h.Paths, p) {
			h.Paths = append(h.Paths, p)
		}
	case nvlTopoRe.MatchString(msg):
		h.NVLink = true
	default:
		return false
	}
	return true
}

// link records one channel line's connection.
func (h *hostState) link(msg string, src, dst int, transport string, gdr bool, where string) {
	if h.links == nil {
		h.links = map[linkKey]*linkState{}
	}
	k := linkKey{src, dst, transport}
	l, ok := h.links[k]
	if !ok {
		l = &linkState{channels: map[int]bool{}, where: where}
		h.links[k] = l
	}
	ch := len(l.channels)
	if m := channelNumRe.FindStringSubmatch(msg); m != nil {
		ch = atoi(m[1])
	}
	l.channels[ch] = true
	l.gdr = l.gdr || gdr
}

// mergeLinks adds another process' links and paths to h.
func (h *hostState) mergeLinks(o *hostState) {
	for k, ol := range o.links {
		if h.links == nil {
			h.links = map[linkKey]*linkState{}
		}
		l, ok := h.links[k]
		if !ok {
			l = &linkState{channels: map[int]bool{}, where: ol.where}
			h.links[k] = l
		}
		maps.Copy(l.channels, ol.channels)
		l.gdr = l.gdr || ol.gdr
	}
	for _, p := range o.Paths {
		if !slices.Contains(h.Paths, p) {
			h.Paths = append(h.Paths, p)
		}
	}
	h.NVLink = h.NVLink || o.NVLink
}

// finishLinks turns a host's links into its sorted Links, naming each peer
// by rankHost, and sorts its Paths.
func (h *hostState) finishLinks(rankHost map[int]string) {
	for k, l := range h.links {
		link := Link{From: k.from, To: k.to, Transport: k.transport, GDRDMA: l.gdr, Channels: len(l.channels), Where: l.where, Scope: InterNode}
		other := k.to
		if !h.ranks[k.from] {
			other = k.from
		}
		link.Peer = rankHost[other]
		if !strings.HasPrefix(k.transport, "NET/") && !strings.HasPrefix(k.transport, "COLLNET") && k.transport != "CollNet" {
			link.Scope = IntraNode
		}
		h.Links = append(h.Links, link)
	}
	slices.SortFunc(h.Links, func(x, y Link) int {
		return cmp.Or(cmp.Compare(x.From, y.From), cmp.Compare(x.To, y.To), strings.Compare(x.Transport, y.Transport))
	})
	slices.SortFunc(h.Paths, func(x, y Path) int {
		return cmp.Or(cmp.Compare(x.Pattern, y.Pattern), strings.Compare(x.Intra, y.Intra), strings.Compare(x.Inter, y.Inter), cmp.Compare(x.Channels, y.Channels))
	})
}

// IntraTransports lists the transports of the host's links within the node,
// sorted, with their channel counts: "P2P/CUMEM ×24".
func (h Host) IntraTransports() []string { return h.transportsOf(IntraNode) }

// InterTransports lists the transports of the host's links across nodes.
func (h Host) InterTransports() []string { return h.transportsOf(InterNode) }

func (h Host) transportsOf(s Scope) []string {
	n := map[string]int{}
	for _, l := range h.Links {
		if l.Scope == s && l.From != l.To {
			name := l.Transport
			if l.GDRDMA {
				name += "/GDRDMA"
			}
			n[name] += l.Channels
		}
	}
	var out []string
	for _, k := range slices.Sorted(maps.Keys(n)) {
		out = append(out, fmt.Sprintf("%s ×%d", k, n[k]))
	}
	return out
}

// NVLinkPaths reports whether NCCL's topology search ran its intra-node
// paths over NVLink (a "type NVL/…" pattern) and whether it reported any
// intra-node path type at all.
func (h Host) NVLinkPaths() (nvl, known bool) {
	for _, p := range h.Paths {
		if p.Intra == "LOC" {
			continue // one GPU: no GPU-to-GPU path
		}
		known = true
		nvl = nvl || p.Intra == "NVL"
	}
	return nvl, known
}

// linkFindings reports links that do not do what their scope needs: ranks
// of one host connected through the network, and local ranks that fall back
// to shared host memory instead of GPU peer-to-peer.
func (a *analyzer) linkFindings(h *hostState) {
	for _, l := range h.Links {
		switch {
		case l.From == l.To:
			// NCCL 2.3 printed a rank's ring to itself ("0[0] -> 0[0] via
			// direct shared memory"): no peer, nothing to judge.
		case l.Scope == InterNode && l.Peer == h.Name:
			a.add(Finding{Kind: NetWithinHost, Status: checks.StatusWarn, Host: h.Name, Where: l.Where,
				Message: fmt.Sprintf("ranks %d and %d of one host connect via %s: NCCL took them for different nodes (containers with their own host id, NCCL_HOSTID, or P2P and SHM disabled)", min(l.From, l.To), max(l.From, l.To), l.Transport)})
		case l.Transport == "SHM":
			a.add(Finding{Kind: NoP2P, Status: checks.StatusWarn, Host: h.Name, Where: l.Where,
				Message: fmt.Sprintf("local ranks %d and %d connect via SHM (host memory): GPU peer-to-peer is unavailable between them (no NVLink or PCIe P2P: ACS or IOMMU redirection, a VM, NCCL_P2P_DISABLE or NCCL_P2P_LEVEL)", min(l.From, l.To), max(l.From, l.To))})
		}
	}
}
