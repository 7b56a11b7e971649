// Package schedule decides which hosts test against which, and when.
//
// A pairwise sweep runs in rounds; within a round no host appears twice, so
// every NIC runs one perftest at a time and the rounds run back to back:
//
//	plan, err := schedule.Build(schedule.KindAllPairs, hosts)
//	for _, round := range plan.Rounds {
//		// start every pair of the round at once (unique TCP port per pair),
//		// wait for all of them, then go on
//	}
//
// The schedules (checks.pairwise.schedule in the fabric file):
//
//	all-pairs   every pair exactly once as a round-robin tournament (circle
//	            method): n−1 rounds of n/2 pairs for even n, the lower bound;
//	            n rounds with one idle host each for odd n
//	ring        each host with the next one: 2 rounds (3 for odd n)
//	halves      the first half against the second, in one round (bisection)
//	cross-leaf  every pair on different "leaf" labels; two leaves of p ≤ q
//	            hosts take q rounds
//	topology    every NIC, access link and leaf uplink group exercised in
//	            every round: one round within the leaves, then rounds where
//	            half of each leaf sends to half of another (4 rounds by
//	            default, whatever the size: the localiser's input)
//
// Incast plans the congestion suite (check --suite incast): rounds of N
// senders writing to one receiver, every leaf's receivers in turn, senders
// from other leaves first; then two cross-leaf rounds that load the
// uplinks. In those rounds a receiver takes several flows at once, but no
// host both sends and receives.
//
// After a sweep, PlanConfirm takes every pair's first verdict (bad: failed
// or an outlier), clears every host with a good pair, and pairs each
// remaining suspect with known-good partners; a bad pair between two
// cleared hosts is run again as it was. PlanRetests does the same for
// bandwidth outliers (below 93% of the fleet's best pair,
// evaluate.DefaultRelativeFloor).
//
// All functions are pure and safe for concurrent use.
package schedule
