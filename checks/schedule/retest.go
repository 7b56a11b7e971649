package schedule

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/fabricctl/fabricctl/checks/evaluate"
)

// Measured is the bandwidth one pair reached.
type Measured struct {
	Pair Pair    `json:"pair"`
	Gbps float64 `json:"gbps"`
}

// RetestPlan says which hosts to test again, against whom, in which rounds.
type RetestPlan struct {
	Best     float64    `json:"best"`     // the fleet's best pair, Gb/s
	Floor    float64    `json:"floor"`    // Best × the relative floor (PlanRetests only)
	Outliers []Measured `json:"outliers"` // the bad pairs (below Floor for PlanRetests), slowest first
	// Suspects are the hosts of bad pairs that no pair has proven healthy:
	// a good pair clears both of its ends.
	Suspects []string `json:"suspects"`
	// Good are the hosts proven healthy by at least one pair: first those
	// with no outlier pair at all, then the others, each group best first (by
	// its median pair).
	Good []string `json:"good"`
	// Repeat are bad pairs whose two ends are both proven healthy
	// elsewhere: the path between them is in doubt, so the pair runs again.
	Repeat []Pair `json:"repeat,omitempty"`
	// Rounds pair each suspect (client) with known-good partners (server),
	// then the Repeat pairs, no host twice in a round.
	Rounds []Round `json:"rounds"`
	// Unpaired are suspects no good host is left to test against.
	Unpaired []string `json:"unpaired,omitempty"`
}

// PlanRetests finds the pairs below floor × the fleet's best (floor is a
// fraction, evaluate.DefaultRelativeFloor = 0.93) and plans re-tests: every
// suspect host against up to partners known-good hosts, spread over the good
// hosts so none becomes the bottleneck, and every outlier pair between two
// otherwise healthy hosts once more as it was.
func PlanRetests(results []Measured, floor float64, partners int) (RetestPlan, error) {
	if floor <= 0 || floor > 1 {
		return RetestPlan{}, fmt.Errorf("planning re-tests: %w: floor %.4g, partners %d", ErrBadResult, floor, partners)
	}
	best := 0.0
	for _, m := range results {
		if !math.IsNaN(m.Gbps) {
			best = max(best, m.Gbps)
		}
	}
	judged := make([]Judged, len(results))
	for i, m := range results {
		judged[i] = Judged{Pair: m.Pair, Gbps: m.Gbps, Bad: evaluate.IsOutlier(m.Gbps, best, floor)}
	}
	plan, err := PlanConfirm(judged, partners)
	plan.Floor = plan.Best * floor
	return plan, err
}

// Judged is a pair's first verdict, for PlanConfirm: Bad when it failed or
// was an outlier; Gbps what it measured (0 when nothing), which orders the
// good partners.
type Judged struct {
	Pair Pair    `json:"pair"`
	Bad  bool    `json:"bad"`
	Gbps float64 `json:"gbps"`
}

// PlanConfirm plans the re-tests that confirm or clear the bad pairs of a
// sweep before any verdict, as ClusterKit does: a host that some good pair
// proves healthy is cleared; every other end of a bad pair is a suspect and
// is tested against up to partners known-good hosts (a host is to be blamed
// only when it fails with good partners too); a bad pair between two cleared
// hosts runs once more as it was (a pair whose re-test passes is not a
// failure).
func PlanConfirm(judged []Judged, partners int) (RetestPlan, error) {
	if partners < 1 {
		return RetestPlan{}, fmt.Errorf("planning re-tests: %w: partners %d", ErrBadResult, partners)
	}
	var plan RetestPlan
	perHost := map[string][]float64{}
	for i, m := range judged {
		switch {
		case m.Pair.Server == "" || m.Pair.Client == "":
			return RetestPlan{}, fmt.Errorf("planning re-tests: %w: results[%d] names no host", ErrBadResult, i)
		case m.Pair.Server == m.Pair.Client:
			return RetestPlan{}, fmt.Errorf("planning re-tests: %w: results[%d] pairs %s with itself", ErrBadResult, i, m.Pair.Server)
		case math.IsNaN(m.Gbps) || math.IsInf(m.Gbps, 0) || m.Gbps < 0:
			return RetestPlan{}, fmt.Errorf("planning re-tests: %w: results[%d] %s→%s measured %v Gb/s", ErrBadResult, i, m.Pair.Client, m.Pair.Server, m.Gbps)
		}
		plan.Best = max(plan.Best, m.Gbps)
		perHost[m.Pair.Server] = append(perHost[m.Pair.Server], m.Gbps)
		perHost[m.Pair.Client] = append(perHost[m.Pair.Client], m.Gbps)
	}
	proven, inBad := map[string]bool{}, map[string]bool{}
	for _, m := range judged {
		if m.Bad {
			plan.Outliers = append(plan.Outliers, Measured{Pair: m.Pair, Gbps: m.Gbps})
			inBad[m.Pair.Server], inBad[m.Pair.Client] = true, true
		} else {
			proven[m.Pair.Server], proven[m.Pair.Client] = true, true
		}
	}
	slices.SortStableFunc(plan.Outliers, func(a, b Measured) int { return cmp.Compare(a.Gbps, b.Gbps) })

	median := map[string]float64{}
	for h, v := range perHost {
		slices.Sort(v)
		median[h] = v[len(v)/2]
		switch {
		case proven[h]:
			plan.Good = append(plan.Good, h)
		case inBad[h]:
			plan.Suspects = append(plan.Suspects, h)
		}
	}
	slices.Sort(plan.Suspects)
	slices.SortFunc(plan.Good, func(a, b string) int {
		return cmp.Or(cmp.Compare(b2i(inBad[a]), b2i(inBad[b])), cmp.Compare(median[b], median[a]), cmp.Compare(a, b))
	})
	for _, m := range plan.Outliers {
		if proven[m.Pair.Server] && proven[m.Pair.Client] {
			plan.Repeat = append(plan.Repeat, m.Pair)
		}
	}

	var pairs []Pair
	for i, s := range plan.Suspects {
		if len(plan.Good) == 0 {
			plan.Unpaired = append(plan.Unpaired, s)
			continue
		}
		for j := range min(partners, len(plan.Good)) {
			partner := plan.Good[(i*partners+j)%len(plan.Good)]
			pairs = append(pairs, Pair{Server: partner, Client: s})
		}
	}
	pairs = append(pairs, plan.Repeat...)
	plan.Rounds = pack(pairs)
	return plan, nil
}

// Pack puts pairs into as few rounds as a greedy pass allows, no host twice
// in a round, keeping their order within each round.
func Pack(pairs []Pair) []Round { return pack(pairs) }

// Pairs returns every planned re-test in round order.
func (p RetestPlan) Pairs() []Pair { return Plan{Rounds: p.Rounds}.Pairs() }

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
