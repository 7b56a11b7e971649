package schedule

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// leafHosts makes hosts of "leaf:host" (labelled) or "host" (not).
func leafHosts(spec ...string) []Host {
	var out []Host
	for _, s := range spec {
		leaf, name, ok := strings.Cut(s, ":")
		if !ok {
			leaf, name = "", s
		}
		h := Host{Name: name}
		if leaf != "" {
			h.Labels = map[string]string{LeafLabel: leaf}
		}
		out = append(out, h)
	}
	return out
}

func flows(ps ...string) []Pair {
	var out []Pair
	for i := 0; i+1 < len(ps); i += 2 {
		out = append(out, Pair{Server: ps[i], Client: ps[i+1]})
	}
	return out
}

// TestIncastTwoLeaves: the two-leaf lab (h1 h2 | h3 h4), three senders:
// each leaf's receiver takes the other leaf's hosts first, then its own;
// the cross-leaf rounds go A → B, then B → A.
func TestIncastTwoLeaves(t *testing.T) {
	got, err := Incast(leafHosts("a:h1", "a:h2", "b:h3", "b:h4"), LeafLabel, IncastOptions{Senders: 3, ReceiversPerLeaf: 1, CrossLeaf: true})
	if err != nil {
		t.Fatal(err)
	}
	want := []IncastRound{
		{Kind: IncastDownlink, Receiver: "h1", Leaf: "a", Flows: flows("h1", "h3", "h1", "h4", "h1", "h2")},
		{Kind: IncastDownlink, Receiver: "h4", Leaf: "b", Flows: flows("h4", "h2", "h4", "h1", "h4", "h3")},
		{Kind: IncastCrossLeaf, Flows: flows("h3", "h1", "h4", "h2")},
		{Kind: IncastCrossLeaf, Flows: flows("h1", "h3", "h2", "h4")},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got\n%+v\nwant\n%+v", got, want)
	}
	if r := got[0]; !slices.Equal(r.Senders(), []string{"h3", "h4", "h2"}) || !slices.Equal(r.Receivers(), []string{"h1"}) {
		t.Errorf("senders %v receivers %v", r.Senders(), r.Receivers())
	}
}

// TestIncastNoLeaves: without labels the hosts are one leaf; no cross-leaf
// round whatever CrossLeaf says; senders capped at the hosts less one.
func TestIncastNoLeaves(t *testing.T) {
	got, err := Incast(leafHosts("h1", "h2", "h3", "h4"), LeafLabel, IncastOptions{Senders: 8, ReceiversPerLeaf: 2, CrossLeaf: true})
	if err != nil {
		t.Fatal(err)
	}
	want := []IncastRound{
		{Kind: IncastDownlink, Receiver: "h1", Flows: flows("h1", "h2", "h1", "h3", "h1", "h4")},
		{Kind: IncastDownlink, Receiver: "h3", Flows: flows("h3", "h4", "h3", "h1", "h3", "h2")},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got\n%+v\nwant\n%+v", got, want)
	}
}

// TestIncastPrefersOtherLeaves: three leaves of four, three senders: every
// sender is off the receiver's leaf, from both other leaves; receivers
// rotate through the leaves, two each, on different hosts.
func TestIncastPrefersOtherLeaves(t *testing.T) {
	var spec []string
	for l := range 3 {
		for h := range 4 {
			spec = append(spec, fmt.Sprintf("leaf%d:h%d%d", l, l, h))
		}
	}
	hosts := leafHosts(spec...)
	got, err := Incast(hosts, LeafLabel, IncastOptions{Senders: 3, ReceiversPerLeaf: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 6 {
		t.Fatalf("%d rounds, want 3 leaves × 2 receivers", len(got))
	}
	var leaves []string
	perLeaf := map[string][]string{}
	for _, r := range got {
		leaves = append(leaves, r.Leaf)
		perLeaf[r.Leaf] = append(perLeaf[r.Leaf], r.Receiver)
		from := map[string]bool{}
		for _, s := range r.Senders() {
			l := s[:2]
			if "leaf"+l[1:] == r.Leaf {
				t.Errorf("round to %s: sender %s is on its leaf although other leaves have hosts", r.Receiver, s)
			}
			from[l] = true
		}
		if len(from) != 2 {
			t.Errorf("round to %s: senders %v from %d leaves, want both others", r.Receiver, r.Senders(), len(from))
		}
	}
	if !slices.Equal(leaves, []string{"leaf0", "leaf1", "leaf2", "leaf0", "leaf1", "leaf2"}) {
		t.Errorf("leaves in turn: %v", leaves)
	}
	for l, rs := range perLeaf {
		if len(rs) != 2 || rs[0] == rs[1] {
			t.Errorf("%s receivers %v", l, rs)
		}
	}
}

// TestIncastInvariants: on random fleets, whatever the options: no host
// both sends and receives in a round, a downlink round has one receiver
// and min(senders, n−1) distinct senders, one flow per sender everywhere,
// every leaf receives, and cross-leaf flows cross leaves.
func TestIncastInvariants(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	for trial := range 300 {
		leaves := 1 + rng.IntN(5)
		var spec []string
		for l := range leaves {
			for h := range 1 + rng.IntN(6) {
				spec = append(spec, fmt.Sprintf("l%d:x%d-%d", l, l, h))
			}
		}
		if len(spec) < 2 {
			continue
		}
		rng.Shuffle(len(spec), func(i, j int) { spec[i], spec[j] = spec[j], spec[i] })
		hosts := leafHosts(spec...)
		o := IncastOptions{Senders: rng.IntN(10), ReceiversPerLeaf: rng.IntN(4), CrossLeaf: rng.IntN(2) == 0}
		rounds, err := Incast(hosts, LeafLabel, o)
		if err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		leafOf := map[string]string{}
		for _, h := range hosts {
			leafOf[h.Name] = h.Labels[LeafLabel]
		}
		received := map[string]bool{}
		cross := 0
		for k, r := range rounds {
			recv, send := r.Receivers(), r.Senders()
			for _, s := range send {
				if slices.Contains(recv, s) {
					t.Fatalf("trial %d round %d: %s sends and receives", trial, k, s)
				}
			}
			if len(send) != len(r.Flows) {
				t.Fatalf("trial %d round %d: a sender has two flows: %v", trial, k, r.Flows)
			}
			switch r.Kind {
			case IncastDownlink:
				want := min(max(o.Senders, 1), len(hosts)-1)
				if len(recv) != 1 || recv[0] != r.Receiver || len(send) != want {
					t.Fatalf("trial %d round %d: receivers %v senders %v, want 1 and %d", trial, k, recv, send, want)
				}
				received[leafOf[r.Receiver]] = true
			case IncastCrossLeaf:
				cross++
				for _, f := range r.Flows {
					if leafOf[f.Server] == leafOf[f.Client] {
						t.Fatalf("trial %d: cross-leaf flow %v within a leaf", trial, f)
					}
				}
			}
		}
		if len(received) != leaves {
			t.Fatalf("trial %d: %d of %d leaves received", trial, len(received), leaves)
		}
		if want := map[bool]int{true: 2}[o.CrossLeaf && leaves > 1]; cross != want {
			t.Fatalf("trial %d: %d cross-leaf rounds, want %d", trial, cross, want)
		}
	}
}

func TestIncastRefuses(t *testing.T) {
	for _, c := range []struct {
		hosts []Host
		want  error
	}{
		{leafHosts("h1"), ErrTooFewHosts},
		{leafHosts("a:h1", "h2"), ErrMissingLabel},
		{leafHosts("h1", "h1"), ErrBadHostName},
	} {
		if _, err := Incast(c.hosts, LeafLabel, IncastOptions{Senders: 3}); !errors.Is(err, c.want) {
			t.Errorf("%v: %v, want %v", c.hosts, err, c.want)
		}
	}
}
