package schedule

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/internal/testutil"
)

func hostNames(n int) []string {
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("h%02d", i)
	}
	return names
}

type key struct{ a, b string }

func unordered(p Pair) key {
	if p.Server < p.Client {
		return key{p.Server, p.Client}
	}
	return key{p.Client, p.Server}
}

// checkRounds asserts no host twice in a round and no self-pair, and returns
// how often each unordered pair was scheduled.
func checkRounds(t *testing.T, rounds []Round) map[key]int {
	t.Helper()
	seen := map[key]int{}
	for r, round := range rounds {
		busy := map[string]bool{}
		for _, p := range round {
			if p.Server == p.Client {
				t.Fatalf("round %d pairs %s with itself", r, p.Server)
			}
			if busy[p.Server] || busy[p.Client] {
				t.Fatalf("round %d uses a host twice: %v", r, round)
			}
			busy[p.Server], busy[p.Client] = true, true
			seen[unordered(p)]++
		}
	}
	return seen
}

func TestAllPairsProperties(t *testing.T) {
	for n := 2; n <= 40; n++ {
		names := hostNames(n)
		rounds, err := AllPairs(names)
		if err != nil {
			t.Fatal(err)
		}
		wantRounds := n - 1
		if n%2 == 1 {
			wantRounds = n
		}
		if len(rounds) != wantRounds {
			t.Errorf("n=%d: %d rounds, want %d", n, len(rounds), wantRounds)
		}
		for r, round := range rounds {
			if len(round) != n/2 {
				t.Errorf("n=%d round %d: %d pairs, want %d", n, r, len(round), n/2)
			}
		}
		seen := checkRounds(t, rounds)
		if len(seen) != n*(n-1)/2 {
			t.Errorf("n=%d: %d distinct pairs, want %d", n, len(seen), n*(n-1)/2)
		}
		for k, c := range seen {
			if c != 1 {
				t.Errorf("n=%d: %v scheduled %d times", n, k, c)
			}
		}
		// Roles are balanced: nobody serves more than half its tests plus one.
		serves := map[string]int{}
		for _, r := range rounds {
			for _, p := range r {
				serves[p.Server]++
			}
		}
		for h, s := range serves {
			if s > (n-1)/2+1 {
				t.Errorf("n=%d: %s serves %d of %d tests", n, h, s, n-1)
			}
		}
	}
}

func TestRingProperties(t *testing.T) {
	for n := 2; n <= 40; n++ {
		names := hostNames(n)
		rounds, err := Ring(names)
		if err != nil {
			t.Fatal(err)
		}
		want := map[int]int{2: 1}[n]
		if want == 0 {
			want = 2 + n%2
		}
		if len(rounds) != want {
			t.Errorf("n=%d: %d rounds, want %d", n, len(rounds), want)
		}
		seen := checkRounds(t, rounds)
		wantPairs := n
		if n == 2 {
			wantPairs = 1
		}
		if len(seen) != wantPairs {
			t.Errorf("n=%d: %d pairs, want %d", n, len(seen), wantPairs)
		}
		for i := range n {
			if seen[unordered(Pair{names[i], names[(i+1)%n]})] != 1 {
				t.Errorf("n=%d: neighbours %s,%s not paired once", n, names[i], names[(i+1)%n])
			}
		}
	}
}

func TestHalvesProperties(t *testing.T) {
	for n := 2; n <= 40; n++ {
		names := hostNames(n)
		rounds, err := Halves(names)
		if err != nil {
			t.Fatal(err)
		}
		checkRounds(t, rounds)
		if len(rounds) != 1 || len(rounds[0]) != n/2 {
			t.Fatalf("n=%d: %v", n, rounds)
		}
		for _, p := range rounds[0] {
			if !(p.Server < names[n/2] && p.Client >= names[n/2]) {
				t.Errorf("n=%d: %v does not cross the halves", n, p)
			}
		}
	}
}

func TestCrossLeafProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for n := 2; n <= 40; n++ {
		for leaves := 2; leaves <= min(n, 5); leaves++ {
			hosts := make([]Host, n)
			leafOf := map[string]string{}
			for i, name := range hostNames(n) {
				leaf := fmt.Sprintf("leaf-%d", i%leaves) // every leaf gets a host
				if i >= leaves {
					leaf = fmt.Sprintf("leaf-%d", rng.IntN(leaves))
				}
				hosts[i] = Host{Name: name, Labels: map[string]string{LeafLabel: leaf, "rack": "r1"}}
				leafOf[name] = leaf
			}
			plan, err := Build(KindCrossLeaf, hosts)
			if err != nil {
				t.Fatal(err)
			}
			seen := checkRounds(t, plan.Rounds)
			want, sizes := 0, map[string]int{}
			for i, a := range hosts {
				sizes[leafOf[a.Name]]++
				for _, b := range hosts[i+1:] {
					if leafOf[a.Name] != leafOf[b.Name] {
						want++
						if seen[unordered(Pair{a.Name, b.Name})] != 1 {
							t.Errorf("n=%d leaves=%d: %s,%s not paired once", n, leaves, a.Name, b.Name)
						}
					}
				}
			}
			if len(seen) != want {
				t.Errorf("n=%d leaves=%d: %d pairs, want %d (a same-leaf pair slipped in)", n, leaves, len(seen), want)
			}
			if leaves == 2 {
				if q := max(sizes["leaf-0"], sizes["leaf-1"]); len(plan.Rounds) != q {
					t.Errorf("n=%d two leaves: %d rounds, want %d", n, len(plan.Rounds), q)
				}
			} else if len(plan.Rounds) > n {
				t.Errorf("n=%d leaves=%d: %d rounds, more than the tournament", n, leaves, len(plan.Rounds))
			}
		}
	}
}

func TestBuildRejects(t *testing.T) {
	h := func(names ...string) []Host {
		var out []Host
		for _, n := range names {
			out = append(out, Host{Name: n, Labels: map[string]string{LeafLabel: "l1"}})
		}
		return out
	}
	cases := []struct {
		kind  Kind
		hosts []Host
		err   error
		text  string
	}{
		{"mesh", h("a", "b"), ErrUnknownKind, "valid: all-pairs, cross-leaf, halves, ring"},
		{KindAllPairs, h("a"), ErrTooFewHosts, "1 hosts"},
		{KindRing, h("a", "a"), ErrBadHostName, `"a" appears twice`},
		{KindHalves, h("a", ""), ErrBadHostName, "hosts[1]"},
		{KindCrossLeaf, h("a", "b"), ErrOneLeaf, `"l1"`},
		{KindCrossLeaf, []Host{{Name: "a", Labels: map[string]string{LeafLabel: "l1"}}, {Name: "b"}}, ErrMissingLabel, `"b"`},
	}
	for _, c := range cases {
		_, err := Build(c.kind, c.hosts)
		if !errors.Is(err, c.err) || !strings.Contains(err.Error(), c.text) {
			t.Errorf("Build(%s): %v, want %v mentioning %q", c.kind, err, c.err, c.text)
		}
	}
}

func TestPlansGolden(t *testing.T) {
	leafHosts := []Host{
		{"gpu-01", map[string]string{"leaf": "leaf-01"}}, {"gpu-02", map[string]string{"leaf": "leaf-01"}},
		{"gpu-03", map[string]string{"leaf": "leaf-02"}}, {"gpu-04", map[string]string{"leaf": "leaf-02"}},
		{"gpu-05", map[string]string{"leaf": "leaf-03"}},
	}
	var plans []Plan
	for _, k := range Kinds() {
		p, err := Build(k, leafHosts)
		if err != nil {
			t.Fatal(err)
		}
		plans = append(plans, p)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	if err := enc.Encode(plans); err != nil {
		t.Fatal(err)
	}
	testutil.Golden(t, "plans.golden", b.Bytes())
	if n := len(plans[0].Pairs()); n != 10 {
		t.Errorf("all-pairs over 5 hosts has %d pairs, want 10", n)
	}
}
