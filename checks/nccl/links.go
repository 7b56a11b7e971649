package nccl

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"math/bits"
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
	chans chanSet
	gdr   bool
	at    pos
}

// chanSet is a set of channel numbers: NCCL's fit the bits (at most 64
// channels, MAXCHANNELS), others a set of their own.
type chanSet struct {
	bits [2]uint64
	more *set[int]
}

func (c *chanSet) add(ch int) {
	if ch >= 0 && ch < 128 {
		c.bits[ch/64] |= 1 << (ch % 64)
		return
	}
	if c.more == nil {
		c.more = &set[int]{}
	}
	c.more.add(ch)
}

func (c *chanSet) addAll(o *chanSet) {
	c.bits[0] |= o.bits[0]
	c.bits[1] |= o.bits[1]
	if o.more != nil {
		for _, ch := range o.more.keys {
			c.add(ch)
		}
	}
}

func (c *chanSet) len() int {
	n := bits.OnesCount64(c.bits[0]) + bits.OnesCount64(c.bits[1])
	if c.more != nil {
		n += c.more.len()
	}
	return n
}

// graph records the GRAPH lines of process p; it reports whether msg was
// one. A path whose numbers do not fit is a bad-number finding, not a path.
func (a *analyzer) graph(p *proc, msg string, at pos) bool {
	switch {
	case patternRe.MatchString(msg):
		m := patternRe.FindStringSubmatch(msg)
		pattern, ok1 := a.num(p, msg, at, "pattern", m[1])
		channels, ok2 := a.num(p, msg, at, "nChannels", m[2])
		bw, err := strconv.ParseFloat(m[3], 64)
		if err != nil || math.IsInf(bw, 0) {
			a.later(Finding{Kind: BadNumber, Status: checks.StatusError, Where: at.String(), Line: quote(msg),
				Message: fmt.Sprintf("bandwidth %s is not a number that fits: the line was not read", clip(m[3], 40))}, p, -1)
			return true
		}
		if !ok1 || !ok2 {
			return true
		}
		path := Path{Pattern: pattern, Channels: channels, BW: bw, Intra: intern(m[4]), Inter: intern(m[5])}
		if r := a.state(p).more(); !slices.Contains(r.paths, path) {
			r.paths = append(r.paths, path)
		}
	case nvlTopoRe.MatchString(msg):
		a.state(p).nvlink = true
	default:
		return false
	}
	return true
}

// link records one channel line's connection on channel ch (-1: the next
// one of the link).
func (h *hostState) link(src, dst, ch int, transport string, gdr bool, at pos) {
	l, _ := h.links.slot(linkKey{src, dst, transport})
	l.at = earlier(l.at, at)
	if ch < 0 {
		ch = l.chans.len()
	}
	l.chans.add(ch)
	l.gdr = l.gdr || gdr
}

// mergeLinks adds another process' links to h.
func (h *hostState) mergeLinks(o *hostState) {
	for k, ol := range o.links.all() {
		l, _ := h.links.slot(k)
		l.at = earlier(l.at, ol.at)
		l.chans.addAll(&ol.chans)
		l.gdr = l.gdr || ol.gdr
	}
	h.nvlink = h.nvlink || o.nvlink
}

// linkList returns the host's sorted Links, naming each peer by rankHost.
func (h *hostState) linkList(rankHost map[int]string) []Link {
	var out []Link
	for k, l := range h.links.all() {
		link := Link{From: k.from, To: k.to, Transport: k.transport, GDRDMA: l.gdr, Channels: l.chans.len(), Where: l.at.String(), Scope: InterNode}
		other := k.to
		if !h.ranks.has(k.from) {
			other = k.from
		}
		link.Peer = rankHost[other]
		if !strings.HasPrefix(k.transport, "NET/") && !strings.HasPrefix(k.transport, "COLLNET") && k.transport != "CollNet" {
			link.Scope = IntraNode
		}
		out = append(out, link)
	}
	slices.SortFunc(out, func(x, y Link) int {
		return cmp.Or(cmp.Compare(x.From, y.From), cmp.Compare(x.To, y.To), strings.Compare(x.Transport, y.Transport))
	})
	return out
}

// sortedPaths returns a sorted copy of the host's Paths.
func (h *hostState) sortedPaths() []Path {
	out := slices.Clone(h.seen().paths)
	slices.SortFunc(out, func(x, y Path) int {
		return cmp.Or(cmp.Compare(x.Pattern, y.Pattern), strings.Compare(x.Intra, y.Intra), strings.Compare(x.Inter, y.Inter), cmp.Compare(x.Channels, y.Channels))
	})
	return out
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
func (a *analyzer) linkFindings(h *Host) {
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
