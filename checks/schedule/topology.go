package schedule

import (
	"cmp"
	"fmt"
	"slices"
)

// KindTopology is the topology-aware schedule: every NIC and every access
// link tested in every round, every leaf's uplinks loaded in all rounds but
// the first, in DefaultTopologyRounds rounds instead of all-pairs' n−1.
const KindTopology Kind = "topology"

// DefaultTopologyRounds is the number of rounds Build gives the topology
// schedule: one within the leaves and three across them, so each host is
// tested four times against four different partners on three other leaves.
const DefaultTopologyRounds = 4

// Topology covers a fabric in rounds rounds (at least 1) using its leaves,
// read from each host's label (the "leaf" label, LeafLabel; the runner
// fills it from the cabling when the fabric declares links):
//
//   - round 1 pairs hosts within their leaf: access links and NICs only,
//     no uplink, so a host's own fault shows apart from the fabric's;
//   - in every later round r, one half of each leaf sends to the other half
//     of the leaf r places further round the ring of leaves (the halves
//     rotate from round to round), so every leaf sends through its uplinks
//     with half its hosts and receives with the other half, and every host
//     meets a new partner on a new leaf (while rounds < leaves).
//
// Each host is in every round (one idle host when the count is odd), so
// every NIC and access link is exercised rounds times, both directions
// over the rounds (roles alternate). With unknown ECMP hashing no schedule
// can promise a given uplink: a leaf of h hosts puts h flows across its u
// uplinks per cross round, h·(rounds−1)/u per uplink on average, each
// missed with probability (1−1/u)^(h·(rounds−1)); see docs/localisation.md.
// Hosts on unequal leaves are paired among the leftovers, preferring
// other leaves and new partners. With a single leaf the rounds are the
// first rounds of the all-pairs tournament.
func Topology(hosts []Host, label string, rounds int) ([]Round, error) {
	if rounds < 1 {
		return nil, fmt.Errorf("%w: %d rounds", ErrTooFewHosts, rounds)
	}
	g, err := groupLeaves(hosts, label)
	if err != nil {
		return nil, err
	}
	names, leafOf, leaves, members := g.names, g.leafOf, g.leaves, g.members
	if len(leaves) == 1 {
		all, _ := AllPairs(names)
		return all[:min(rounds, len(all))], nil
	}
	met := map[[2]string]bool{}
	bal := map[string]int{} // sends minus receives so far, per host
	var out []Round
	// Round 1: within each leaf.
	var r0 [][2]string
	var left []string
	for _, l := range leaves {
		m := members[l]
		for i := 0; i+1 < len(m); i += 2 {
			r0 = append(r0, [2]string{m[i], m[i+1]})
		}
		if len(m)%2 == 1 {
			left = append(left, m[len(m)-1])
		}
	}
	r0 = append(r0, pairLeftovers(left, leafOf, met)...)
	out = append(out, orient(r0, leafOf, bal, met, nil))
	// Cross rounds: half of every leaf sends to the other half of the leaf
	// r places further round the ring of leaves.
	for r := 1; r < rounds; r++ {
		shift := 1 + (r-1)%(len(leaves)-1)
		var round Round
		var left []string
		intent := map[string]int{} // leftovers: +1 meant to send, -1 meant to receive
		send, recv := map[int][]string{}, map[int][]string{}
		for l, name := range leaves {
			m := members[name]
			h := len(m) / 2
			rot := make([]string, len(m)) // rotating by half the leaf each round swaps the halves
			for i := range m {
				rot[i] = m[(i+r*h)%len(m)]
			}
			send[l], recv[l] = rot[:h], rot[h:]
		}
		for l := range leaves {
			to := (l + shift) % len(leaves)
			ss, rs := spare(send[l], len(recv[to]), bal, false), spare(recv[to], len(send[l]), bal, true)
			n := min(len(ss), len(rs))
			for j := 0; j < n; j++ {
				round = append(round, Pair{Server: rs[(j+r)%n], Client: ss[j]})
			}
			for _, x := range ss[n:] {
				left = append(left, x)
				intent[x] = 1
			}
			for _, x := range rs[n:] {
				left = append(left, x)
				intent[x] = -1
			}
		}
		for _, p := range round {
			bal[p.Client]++
			bal[p.Server]--
			met[pairKey(p.Client, p.Server)] = true
		}
		round = append(round, orient(pairLeftovers(left, leafOf, met), leafOf, bal, met, intent)...)
		out = append(out, round)
	}
	return out, nil
}

// spare reorders hosts so that those beyond the first n, who find no
// partner on the other leaf and go to the leftovers (where a partner of the
// same intent may turn their role), are the receivers that received most
// and the senders that sent most, so that every host both sends and
// receives over the rounds.
func spare(hosts []string, n int, bal map[string]int, receivers bool) []string {
	if len(hosts) <= n {
		return hosts
	}
	out := slices.Clone(hosts)
	slices.SortStableFunc(out, func(a, b string) int {
		if receivers {
			return cmp.Compare(bal[b], bal[a]) // most sends first: they receive now
		}
		return cmp.Compare(bal[a], bal[b]) // fewest sends first: they send now, the busiest senders are spare
	})
	return out
}

// orient decides who sends in each pair of a round: the host meant to send
// in this round (intent), then the host that has sent
// less so far (so every NIC both sends and receives over the rounds), then
// the host whose leaf sends less in this round (so every leaf's uplinks
// carry both directions), then alternately. It records the pairs as met.
func orient(pairs [][2]string, leafOf map[string]string, bal map[string]int, met map[[2]string]bool, intent map[string]int) Round {
	out := make(Round, 0, len(pairs))
	leafBal := map[string]int{}
	for i, p := range pairs {
		x, y := p[0], p[1]
		var xSends bool
		switch {
		case intent[x] != intent[y]:
			xSends = intent[x] > intent[y]
		case bal[x] != bal[y]:
			xSends = bal[x] < bal[y]
		case leafBal[leafOf[x]] != leafBal[leafOf[y]]:
			xSends = leafBal[leafOf[x]] < leafBal[leafOf[y]]
		default:
			xSends = i%2 == 0
		}
		client, server := y, x
		if xSends {
			client, server = x, y
		}
		bal[client]++
		bal[server]--
		if leafOf[client] != leafOf[server] {
			leafBal[leafOf[client]]++
			leafBal[leafOf[server]]--
		}
		met[pairKey(x, y)] = true
		out = append(out, Pair{Server: server, Client: client})
	}
	return out
}

// pairLeftovers pairs hosts no leaf pair took, preferring a partner on
// another leaf and one not met before; one stays idle when the count is odd.
func pairLeftovers(left []string, leafOf map[string]string, met map[[2]string]bool) [][2]string {
	var out [][2]string
	taken := make([]bool, len(left))
	for i, x := range left {
		if taken[i] {
			continue
		}
		best, bestScore := -1, -1
		for j := i + 1; j < len(left); j++ {
			if taken[j] {
				continue
			}
			score := 0
			if leafOf[left[j]] != leafOf[x] {
				score += 2
			}
			if !met[pairKey(x, left[j])] {
				score++
			}
			if score > bestScore {
				best, bestScore = j, score
			}
		}
		if best < 0 {
			continue
		}
		taken[i], taken[best] = true, true
		out = append(out, [2]string{x, left[best]})
	}
	return out
}

// pairKey is a pair of hosts without direction.
func pairKey(a, b string) [2]string {
	if b < a {
		a, b = b, a
	}
	return [2]string{a, b}
}

// leafGroups are hosts grouped by their leaf label, in host order.
type leafGroups struct {
	names   []string
	leafOf  map[string]string
	leaves  []string            // in order of first appearance
	members map[string][]string // leaf → its hosts
}

// groupLeaves groups hosts by label, rejecting a host without it, fewer
// than two hosts, empty and duplicate names.
func groupLeaves(hosts []Host, label string) (leafGroups, error) {
	g := leafGroups{names: make([]string, len(hosts)), leafOf: make(map[string]string, len(hosts)), members: map[string][]string{}}
	for i, h := range hosts {
		g.names[i] = h.Name
		leaf := h.Labels[label]
		if leaf == "" {
			return g, fmt.Errorf("%w: %q has no %q label", ErrMissingLabel, h.Name, label)
		}
		g.leafOf[h.Name] = leaf
		if g.members[leaf] == nil {
			g.leaves = append(g.leaves, leaf)
		}
		g.members[leaf] = append(g.members[leaf], h.Name)
	}
	return g, checkNames(g.names, 2)
}
