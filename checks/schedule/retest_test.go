package schedule

import (
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/fabricctl/fabricctl/checks/evaluate"
	"github.com/google/go-cmp/cmp"
)

// sweep runs an all-pairs schedule over names and measures each pair with bw.
func sweep(t *testing.T, names []string, bw func(p Pair) float64) []Measured {
	t.Helper()
	rounds, err := AllPairs(names)
	if err != nil {
		t.Fatal(err)
	}
	var out []Measured
	for _, r := range rounds {
		for _, p := range r {
			out = append(out, Measured{Pair: p, Gbps: bw(p)})
		}
	}
	return out
}

func TestRetestOneBadHost(t *testing.T) {
	names := hostNames(6)
	results := sweep(t, names, func(p Pair) float64 {
		if p.Server == "h03" || p.Client == "h03" {
			return 61.5
		}
		return 97 + float64(len(p.Server+p.Client)%3)/10
	})
	plan, err := PlanRetests(results, evaluate.DefaultRelativeFloor, 2)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"h03"}, plan.Suspects); d != "" {
		t.Errorf("suspects (-want +got):\n%s", d)
	}
	if len(plan.Outliers) != 5 || len(plan.Good) != 5 || plan.Repeat != nil || plan.Unpaired != nil {
		t.Errorf("plan %+v", plan)
	}
	checkRounds(t, plan.Rounds)
	got := plan.Pairs()
	if len(got) != 2 {
		t.Fatalf("retests %v, want h03 against two good hosts", got)
	}
	for _, p := range got {
		if p.Client != "h03" || !slices.Contains(plan.Good, p.Server) {
			t.Errorf("retest %v", p)
		}
	}
	if got[0].Server == got[1].Server {
		t.Errorf("both retests use partner %s", got[0].Server)
	}
}

func TestRetestPathAndSpread(t *testing.T) {
	names := hostNames(8)
	results := sweep(t, names, func(p Pair) float64 {
		switch unordered(p) {
		case key{"h01", "h02"}: // a bad path between two healthy hosts
			return 40
		}
		if p.Server == "h06" || p.Client == "h06" || p.Server == "h07" || p.Client == "h07" {
			return 50
		}
		return 98
	})
	plan, err := PlanRetests(results, 0.93, 3)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"h06", "h07"}, plan.Suspects); d != "" {
		t.Errorf("suspects (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]Pair{{"h01", "h02"}}, normalise(plan.Repeat)); d != "" {
		t.Errorf("repeat (-want +got):\n%s", d)
	}
	checkRounds(t, plan.Rounds)
	partners := map[string]int{}
	for _, p := range plan.Pairs() {
		partners[p.Server]++
	}
	for h, n := range partners {
		if n > 2 {
			t.Errorf("good host %s carries %d re-tests: not spread", h, n)
		}
	}
	if len(plan.Pairs()) != 7 || plan.Outliers[0].Gbps != 40 {
		t.Errorf("%d re-tests, slowest outlier %v", len(plan.Pairs()), plan.Outliers[0])
	}
}

func normalise(ps []Pair) []Pair {
	var out []Pair
	for _, p := range ps {
		k := unordered(p)
		out = append(out, Pair{k.a, k.b})
	}
	return out
}

func TestRetestGoodOrder(t *testing.T) {
	results := []Measured{
		{Pair{"a", "b"}, 97}, {Pair{"c", "d"}, 98}, {Pair{"a", "e"}, 50}, {Pair{"e", "c"}, 52},
	}
	plan, err := PlanRetests(results, 0.93, 1)
	if err != nil {
		t.Fatal(err)
	}
	// d and b have no outlier pair: they come first, the faster first.
	if d := cmp.Diff([]string{"d", "b", "c", "a"}, plan.Good); d != "" {
		t.Errorf("good (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]Pair{{"d", "e"}}, plan.Pairs()); d != "" {
		t.Errorf("retests (-want +got):\n%s", d)
	}
}

func TestRetestHealthyFleet(t *testing.T) {
	plan, err := PlanRetests(sweep(t, hostNames(5), func(Pair) float64 { return 97 }), 0.93, 2)
	if err != nil || len(plan.Outliers) != 0 || len(plan.Rounds) != 0 || len(plan.Good) != 5 {
		t.Errorf("healthy fleet: %+v %v", plan, err)
	}
}

func TestRetestRejects(t *testing.T) {
	ok := []Measured{{Pair{"a", "b"}, 10}}
	cases := map[string]struct {
		r        []Measured
		floor    float64
		partners int
	}{
		"floor 0":      {ok, 0, 1},
		"floor 2":      {ok, 2, 1},
		"no partners":  {ok, 0.93, 0},
		"no host":      {[]Measured{{Pair{"a", ""}, 1}}, 0.93, 1},
		"self":         {[]Measured{{Pair{"a", "a"}, 1}}, 0.93, 1},
		"negative":     {[]Measured{{Pair{"a", "b"}, -1}}, 0.93, 1},
		"not a number": {[]Measured{{Pair{"a", "b"}, math.NaN()}}, 0.93, 1},
	}
	for name, c := range cases {
		if _, err := PlanRetests(c.r, c.floor, c.partners); !errors.Is(err, ErrBadResult) {
			t.Errorf("%s: %v, want ErrBadResult", name, err)
		}
	}
}

// TestPlanConfirm: bad pairs of any cause (not only bandwidth outliers):
// the host with no good pair is the suspect and meets known-good
// partners; a bad pair between two hosts proven elsewhere runs again.
func TestPlanConfirm(t *testing.T) {
	j := func(s, c string, bad bool) Judged {
		return Judged{Pair: Pair{Server: s, Client: c}, Bad: bad, Gbps: 0.05}
	}
	plan, err := PlanConfirm([]Judged{
		j("h1", "h4", false), j("h2", "h3", true), j("h3", "h1", true),
		j("h4", "h2", false), j("h1", "h2", true), j("h3", "h4", true),
	}, 2)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"h3"}, plan.Suspects); d != "" {
		t.Errorf("suspects (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]Pair{{Server: "h1", Client: "h2"}}, plan.Repeat); d != "" {
		t.Errorf("repeat (-want +got):\n%s", d)
	}
	checkRounds(t, plan.Rounds)
	var withSuspect int
	for _, p := range plan.Pairs() {
		if p.Client == "h3" {
			withSuspect++
			if !slices.Contains(plan.Good, p.Server) {
				t.Errorf("h3 re-tested against %s, not a known-good host", p.Server)
			}
		}
	}
	if withSuspect != 2 || len(plan.Pairs()) != 3 {
		t.Errorf("re-tests %v", plan.Pairs())
	}
	if _, err := PlanConfirm(nil, 0); !errors.Is(err, ErrBadResult) {
		t.Errorf("no partners: %v", err)
	}
	if _, err := PlanConfirm([]Judged{j("h1", "h1", true)}, 2); !errors.Is(err, ErrBadResult) {
		t.Errorf("self pair: %v", err)
	}
}
