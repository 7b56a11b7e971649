package schedule

import (
	"fmt"
	"slices"
)

// IncastKind says which links a round of the incast suite congests.
type IncastKind string

// The kinds of incast rounds.
const (
	// IncastDownlink: senders write to one receiver at once; its leaf's
	// downlink to it is the bottleneck.
	IncastDownlink IncastKind = "incast"
	// IncastCrossLeaf: every host of one group of leaves writes to a host
	// of the others; the leaves' uplinks are the bottleneck.
	IncastCrossLeaf IncastKind = "cross-leaf"
)

// IncastRound is one round of the incast suite: its flows run at once.
// Each flow's Client writes to its Server (ib_write_bw), so the servers
// are the receivers. No host is a receiver and a sender in one round.
type IncastRound struct {
	Kind IncastKind `json:"kind"`
	// Receiver is the one receiver of a downlink round ("" in a cross-leaf
	// round) and Leaf its leaf ("" without leaves).
	Receiver string `json:"receiver,omitempty"`
	Leaf     string `json:"leaf,omitempty"`
	Flows    []Pair `json:"flows"`
}

// Receivers lists the round's receivers (servers), in flow order, once each.
func (r IncastRound) Receivers() []string { return r.ends(func(p Pair) string { return p.Server }) }

// Senders lists the round's senders (clients), in flow order, once each.
func (r IncastRound) Senders() []string { return r.ends(func(p Pair) string { return p.Client }) }

func (r IncastRound) ends(end func(Pair) string) []string {
	var out []string
	for _, p := range r.Flows {
		if h := end(p); !slices.Contains(out, h) {
			out = append(out, h)
		}
	}
	return out
}

// IncastOptions shape the incast schedule.
type IncastOptions struct {
	// Senders writing to each receiver (at least 1; at most the hosts less one).
	Senders int
	// ReceiversPerLeaf: how many hosts of each leaf receive a round (at
	// least 1; at most the leaf's hosts).
	ReceiversPerLeaf int
	// CrossLeaf adds the two cross-leaf rounds when the hosts sit on more
	// than one leaf.
	CrossLeaf bool
}

// Incast plans the congestion suite over hosts grouped by their label (the
// "leaf" label, LeafLabel); hosts of which none has the label are one leaf.
//
// Downlink rounds come first: each leaf gives ReceiversPerLeaf receivers,
// spread over its hosts and starting at a different host on each leaf, and
// the rounds take the leaves in turn (the first receiver of every leaf,
// then the second…), so that every leaf's downlinks are congested in turn.
// A round's Senders come from the other leaves first — interleaved across
// them, so that the receiver's leaf takes the traffic through its uplinks
// from as many leaves as there are, each leaf's hosts taken from an offset
// that moves from round to round — and from the receiver's own leaf only
// when the others have too few hosts.
//
// With CrossLeaf and two or more leaves, two cross-leaf rounds follow: the
// leaves are split into two groups (alternate leaves, in order of first
// appearance); in the first every host of the first group writes to one
// host of the second, spread over its hosts, and in the second the other
// way round. One flow per sender; every leaf's uplinks carry all its hosts'
// traffic out in one round and in in the other.
//
// It fails on fewer than two hosts, empty or repeated names, and hosts of
// which some have the label and some do not.
func Incast(hosts []Host, label string, o IncastOptions) ([]IncastRound, error) {
	g, err := incastLeaves(hosts, label)
	if err != nil {
		return nil, err
	}
	n := len(g.names)
	senders := min(max(o.Senders, 1), n-1)
	per := max(o.ReceiversPerLeaf, 1)
	// The receivers of each leaf, evenly spaced, offset by the leaf's index.
	recv := make([][]string, len(g.leaves))
	most := 0
	for li, l := range g.leaves {
		m := g.members[l]
		r := min(per, len(m))
		for k := range r {
			recv[li] = append(recv[li], m[(li+k*len(m)/r)%len(m)])
		}
		most = max(most, r)
	}
	var out []IncastRound
	for k := range most {
		for li, l := range g.leaves {
			if k >= len(recv[li]) {
				continue
			}
			x := recv[li][k]
			round := IncastRound{Kind: IncastDownlink, Receiver: x, Leaf: l}
			for _, s := range incastSenders(g, li, x, len(out))[:senders] {
				round.Flows = append(round.Flows, Pair{Server: x, Client: s})
			}
			out = append(out, round)
		}
	}
	if o.CrossLeaf && len(g.leaves) > 1 {
		var a, b [][]string
		for li, l := range g.leaves {
			if li%2 == 0 {
				a = append(a, g.members[l])
			} else {
				b = append(b, g.members[l])
			}
		}
		out = append(out, crossRound(interleaveLists(a), interleaveLists(b)), crossRound(interleaveLists(b), interleaveLists(a)))
	}
	return out, nil
}

// incastGroups are the hosts by leaf; without labels, one leaf named "".
type incastGroups struct{ leafGroups }

func incastLeaves(hosts []Host, label string) (incastGroups, error) {
	labelled := 0
	for _, h := range hosts {
		if h.Labels[label] != "" {
			labelled++
		}
	}
	if labelled > 0 && label != "" {
		g, err := groupLeaves(hosts, label)
		if err != nil {
			return incastGroups{}, fmt.Errorf("planning the incast rounds: %w", err)
		}
		return incastGroups{g}, nil
	}
	g := leafGroups{leafOf: map[string]string{}, members: map[string][]string{}, leaves: []string{""}}
	for _, h := range hosts {
		g.names = append(g.names, h.Name)
		g.leafOf[h.Name] = ""
		g.members[""] = append(g.members[""], h.Name)
	}
	if err := checkNames(g.names, 2); err != nil {
		return incastGroups{}, fmt.Errorf("planning the incast rounds: %w", err)
	}
	return incastGroups{g}, nil
}

// incastSenders lists every possible sender of a round whose receiver x
// sits on leaf li, best first: the hosts of the other leaves, interleaved
// across them (the next leaf round the ring first), each leaf's hosts from
// an offset that moves with the round; then the other hosts of x's leaf,
// from the one after x.
func incastSenders(g incastGroups, li int, x string, round int) []string {
	var others [][]string
	for d := 1; d < len(g.leaves); d++ {
		m := g.members[g.leaves[(li+d)%len(g.leaves)]]
		others = append(others, rotate(m, round%len(m)))
	}
	out := interleaveLists(others)
	own := g.members[g.leaves[li]]
	i := slices.Index(own, x)
	for _, h := range rotate(own, (i+1)%len(own)) {
		if h != x {
			out = append(out, h)
		}
	}
	return out
}

// rotate returns s starting at index k.
func rotate(s []string, k int) []string {
	return append(slices.Clone(s[k:]), s[:k]...)
}

// interleaveLists takes the first of every list, then the second of every
// list, and so on.
func interleaveLists(ls [][]string) []string {
	var out []string
	for k := 0; ; k++ {
		took := false
		for _, l := range ls {
			if k < len(l) {
				out = append(out, l[k])
				took = true
			}
		}
		if !took {
			return out
		}
	}
}

// crossRound has every sender write to one receiver, round-robin.
func crossRound(senders, receivers []string) IncastRound {
	r := IncastRound{Kind: IncastCrossLeaf}
	for i, s := range senders {
		r.Flows = append(r.Flows, Pair{Server: receivers[i%len(receivers)], Client: s})
	}
	return r
}
