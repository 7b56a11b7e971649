package schedule

import (
	"errors"
	"fmt"
	"strings"
)

// Pair is one test between two hosts: Server starts first, Client connects
// to it. For write and send tests the data flows from Client to Server.
type Pair struct {
	Server string `json:"server"`
	Client string `json:"client"`
}

// Round is a set of pairs that may run at the same time: no host is in two
// of them, so each NIC runs one test at a time.
type Round []Pair

// Kind names a schedule in the fabric file (checks.pairwise.schedule).
type Kind string

// The schedules.
const (
	KindAllPairs  Kind = "all-pairs"  // every pair once, as a round-robin tournament
	KindRing      Kind = "ring"       // each host with the next, around a ring
	KindHalves    Kind = "halves"     // the first half against the second, all at once
	KindCrossLeaf Kind = "cross-leaf" // every pair of hosts on different leaves
)

// Kinds lists the schedules, sorted.
func Kinds() []Kind { return []Kind{KindAllPairs, KindCrossLeaf, KindHalves, KindRing, KindTopology} }

// LeafLabel is the host label CrossLeaf groups by.
const LeafLabel = "leaf"

// Sentinels for errors.Is.
var (
	ErrUnknownKind  = errors.New("unknown schedule")
	ErrTooFewHosts  = errors.New("too few hosts")
	ErrBadHostName  = errors.New("invalid host name")
	ErrMissingLabel = errors.New("host without a leaf label")
	ErrOneLeaf      = errors.New("all hosts on one leaf")
	ErrBadResult    = errors.New("invalid measurement")
)

// Host is a host to schedule, with its labels (DESIGN.md §2.2).
type Host struct {
	Name   string
	Labels map[string]string
}

// Plan is a schedule: rounds run one after the other.
type Plan struct {
	Kind   Kind    `json:"kind"`
	Rounds []Round `json:"rounds"`
}

// Pairs returns every pair of the plan in round order.
func (p Plan) Pairs() []Pair {
	var out []Pair
	for _, r := range p.Rounds {
		out = append(out, r...)
	}
	return out
}

// Build makes the schedule of the given kind over hosts, in their order.
func Build(kind Kind, hosts []Host) (Plan, error) {
	names := make([]string, len(hosts))
	for i, h := range hosts {
		names[i] = h.Name
	}
	var rounds []Round
	var err error
	switch kind {
	case KindAllPairs:
		rounds, err = AllPairs(names)
	case KindRing:
		rounds, err = Ring(names)
	case KindHalves:
		rounds, err = Halves(names)
	case KindCrossLeaf:
		rounds, err = CrossLeaf(hosts, LeafLabel)
	case KindTopology:
		rounds, err = Topology(hosts, LeafLabel, DefaultTopologyRounds)
	default:
		var valid []string
		for _, k := range Kinds() {
			valid = append(valid, string(k))
		}
		return Plan{}, fmt.Errorf("building schedule %q: %w (valid: %s)", kind, ErrUnknownKind, strings.Join(valid, ", "))
	}
	if err != nil {
		return Plan{}, fmt.Errorf("building %s schedule: %w", kind, err)
	}
	return Plan{Kind: kind, Rounds: rounds}, nil
}

// checkNames rejects fewer than min hosts, empty names and duplicates.
func checkNames(names []string, min int) error {
	if len(names) < min {
		return fmt.Errorf("%w: %d hosts, need at least %d", ErrTooFewHosts, len(names), min)
	}
	seen := make(map[string]bool, len(names))
	for i, n := range names {
		if n == "" {
			return fmt.Errorf("%w: hosts[%d] has no name", ErrBadHostName, i)
		}
		if seen[n] {
			return fmt.Errorf("%w: %q appears twice", ErrBadHostName, n)
		}
		seen[n] = true
	}
	return nil
}

// AllPairs pairs every host with every other exactly once, by the circle
// method: host 0 stays, the others rotate. With n even that is n−1 rounds of
// n/2 disjoint pairs, the least possible when each NIC runs one test at a
// time; with n odd, n rounds of (n−1)/2 pairs with one host idle in each.
// Server and client roles alternate so each host serves about half its tests.
func AllPairs(names []string) ([]Round, error) {
	if err := checkNames(names, 2); err != nil {
		return nil, err
	}
	m := len(names)
	if m%2 == 1 {
		m++ // the last slot is the bye
	}
	slot := make([]int, m)
	for i := range slot {
		slot[i] = i
	}
	rounds := make([]Round, 0, m-1)
	for r := 0; r < m-1; r++ {
		var round Round
		for i := 0; i < m/2; i++ {
			a, b := slot[i], slot[m-1-i]
			if a >= len(names) || b >= len(names) {
				continue // bye
			}
			// Orient by parity so each host serves about half its tests:
			// the lower index serves when the indices differ in parity.
			if a > b {
				a, b = b, a
			}
			if (a+b)%2 == 0 {
				a, b = b, a
			}
			round = append(round, Pair{Server: names[a], Client: names[b]})
		}
		rounds = append(rounds, round)
		// Rotate every slot but the first one step: the last moves to position 1.
		last := slot[m-1]
		copy(slot[2:], slot[1:m-1])
		slot[1] = last
	}
	return rounds, nil
}

// Ring pairs each host with the next one around the ring (host i
// serves, host i+1 is the client), so every host sends once and receives
// once. Even rings take 2 rounds, odd rings 3, two hosts 1.
func Ring(names []string) ([]Round, error) {
	if err := checkNames(names, 2); err != nil {
		return nil, err
	}
	n := len(names)
	if n == 2 {
		return []Round{{{Server: names[0], Client: names[1]}}}, nil
	}
	var even, odd, last Round
	for i := 0; i < n; i++ {
		p := Pair{Server: names[i], Client: names[(i+1)%n]}
		switch {
		case n%2 == 1 && i == n-1:
			last = append(last, p) // the odd ring's closing edge needs a third round
		case i%2 == 0:
			even = append(even, p)
		default:
			odd = append(odd, p)
		}
	}
	rounds := []Round{even, odd}
	if last != nil {
		rounds = append(rounds, last)
	}
	return rounds, nil
}

// Halves pairs host i of the first half with host i of the second, all
// in one round: the bisection of the fabric under load. With an odd count the
// last host is idle.
func Halves(names []string) ([]Round, error) {
	if err := checkNames(names, 2); err != nil {
		return nil, err
	}
	h := len(names) / 2
	round := make(Round, 0, h)
	for i := 0; i < h; i++ {
		round = append(round, Pair{Server: names[i], Client: names[h+i]})
	}
	return []Round{round}, nil
}

// CrossLeaf pairs every two hosts whose label values differ, and no two
// on the same leaf. With two leaves of p ≤ q hosts it takes q rounds (the
// least possible); with more leaves the round-robin tournament is filtered to
// cross-leaf pairs and packed first-fit.
func CrossLeaf(hosts []Host, label string) ([]Round, error) {
	g, err := groupLeaves(hosts, label)
	if err != nil {
		return nil, err
	}
	leafOf, leaves, members := g.leafOf, g.leaves, g.members
	switch len(leaves) {
	case 1:
		return nil, fmt.Errorf("%w: every host is on %s %q", ErrOneLeaf, label, leaves[0])
	case 2:
		return bipartite(members[leaves[0]], members[leaves[1]]), nil
	}
	all, _ := AllPairs(interleave(leaves, members))
	var cross []Pair
	for _, r := range all {
		for _, p := range r {
			if leafOf[p.Server] != leafOf[p.Client] {
				cross = append(cross, p)
			}
		}
	}
	return pack(cross), nil
}

// bipartite covers every (x, y) with x in a, y in b in max(|a|, |b|) rounds:
// round r pairs the i-th host of the smaller side with host (i+r) mod q of
// the larger.
func bipartite(a, b []string) []Round {
	if len(a) > len(b) {
		a, b = b, a
	}
	q := len(b)
	rounds := make([]Round, q)
	for r := range q {
		for i, x := range a {
			y := b[(i+r)%q]
			if (i+r)%2 == 1 {
				rounds[r] = append(rounds[r], Pair{Server: y, Client: x})
			} else {
				rounds[r] = append(rounds[r], Pair{Server: x, Client: y})
			}
		}
	}
	return rounds
}

// interleave orders hosts leaf by leaf in turn, so the tournament mixes leaves early.
func interleave(leaves []string, members map[string][]string) []string {
	var out []string
	for i := 0; ; i++ {
		added := false
		for _, l := range leaves {
			if i < len(members[l]) {
				out = append(out, members[l][i])
				added = true
			}
		}
		if !added {
			return out
		}
	}
}

// pack puts each pair, in order, into the first round where both hosts are free.
func pack(pairs []Pair) []Round {
	var rounds []Round
	var busy []map[string]bool
	for _, p := range pairs {
		placed := false
		for i := range rounds {
			if !busy[i][p.Server] && !busy[i][p.Client] {
				rounds[i] = append(rounds[i], p)
				busy[i][p.Server], busy[i][p.Client] = true, true
				placed = true
				break
			}
		}
		if !placed {
			rounds = append(rounds, Round{p})
			busy = append(busy, map[string]bool{p.Server: true, p.Client: true})
		}
	}
	return rounds
}
