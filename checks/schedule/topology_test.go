package schedule

import (
	"errors"
	"fmt"
	"testing"
)

// clos returns hosts spread over leaves (sizes in order), labelled.
func clos(sizes ...int) []Host {
	var hosts []Host
	for l, n := range sizes {
		for i := range n {
			hosts = append(hosts, Host{Name: fmt.Sprintf("h%02d-%02d", l, i), Labels: map[string]string{LeafLabel: fmt.Sprintf("leaf-%02d", l)}})
		}
	}
	return hosts
}

func leafOf(hosts []Host) map[string]string {
	m := map[string]string{}
	for _, h := range hosts {
		m[h.Name] = h.Labels[LeafLabel]
	}
	return m
}

// TestTopologyCovers checks what the localiser relies on, over fabric
// shapes from two leaves to 1,024 hosts on 32 leaves, odd and unequal leaves
// included: no host twice in a round, every host in every round (one idle at
// most), partners never repeated where the fabric has room, round 1 within leaves, later rounds
// across, each host both sending and receiving, and every leaf's uplinks
// loaded in every cross round in both directions.
func TestTopologyCovers(t *testing.T) {
	for _, sizes := range [][]int{{2, 2}, {4, 4, 4}, {3, 5, 4, 4}, {8, 8, 8, 8, 8}, {9, 9, 9, 9}, {7, 7, 7}, {1, 9}} {
		t.Run(fmt.Sprint(sizes), func(t *testing.T) {
			checkTopology(t, clos(sizes...), 4)
		})
	}
	sizes := make([]int, 32)
	for i := range sizes {
		sizes[i] = 32
	}
	t.Run("1024 hosts on 32 leaves", func(t *testing.T) { checkTopology(t, clos(sizes...), DefaultTopologyRounds) })
}

func checkTopology(t *testing.T, hosts []Host, rounds int) {
	t.Helper()
	got, err := Topology(hosts, LeafLabel, rounds)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != rounds {
		t.Fatalf("%d rounds, want %d", len(got), rounds)
	}
	seen := checkRounds(t, got)
	leaf := leafOf(hosts)
	roomy := len(countLeaves(hosts)) >= rounds // a new leaf for every cross round
	for l := range countLeaves(hosts) {
		roomy = roomy && countLeaf(hosts, l) >= 2*rounds
	}
	for k, n := range seen {
		if n > 1 && roomy {
			t.Errorf("pair %v scheduled %d times", k, n)
		}
	}
	sends, recvs := map[string]int{}, map[string]int{}
	smallest := len(hosts)
	for l := range countLeaves(hosts) {
		smallest = min(smallest, countLeaf(hosts, l))
	}
	for r, round := range got {
		if idle := len(hosts) - 2*len(round); idle > 1 {
			t.Errorf("round %d leaves %d hosts idle", r, idle)
		}
		upOut, upIn := map[string]int{}, map[string]int{}
		for _, p := range round {
			sends[p.Client]++
			recvs[p.Server]++
			same := leaf[p.Client] == leaf[p.Server]
			if r == 0 && !same && countLeaf(hosts, leaf[p.Client])%2 == 0 {
				t.Errorf("round 1 pairs %v across leaves though %s is even", p, leaf[p.Client])
			}
			if r > 0 && !same {
				upOut[leaf[p.Client]]++
				upIn[leaf[p.Server]]++
			}
		}
		if r > 0 {
			for l := range countLeaves(hosts) {
				if smallest >= 2 && (upOut[l] == 0 || upIn[l] == 0) {
					t.Errorf("round %d: leaf %s sends %d and receives %d cross-leaf flows", r, l, upOut[l], upIn[l])
				}
			}
		}
	}
	for _, h := range hosts {
		if sends[h.Name]+recvs[h.Name] < rounds-1 {
			t.Errorf("%s tested %d times in %d rounds", h.Name, sends[h.Name]+recvs[h.Name], rounds)
		}
		if smallest >= 2 && (sends[h.Name] == 0 || recvs[h.Name] == 0) {
			t.Errorf("%s sends %d times and receives %d times", h.Name, sends[h.Name], recvs[h.Name])
		}
	}
}

func countLeaf(hosts []Host, leaf string) int {
	n := 0
	for _, h := range hosts {
		if h.Labels[LeafLabel] == leaf {
			n++
		}
	}
	return n
}

func countLeaves(hosts []Host) map[string]bool {
	m := map[string]bool{}
	for _, h := range hosts {
		m[h.Labels[LeafLabel]] = true
	}
	return m
}

func TestTopologyOneLeafAndErrors(t *testing.T) {
	one := clos(6)
	got, err := Topology(one, LeafLabel, 3)
	if err != nil || len(got) != 3 {
		t.Fatalf("one leaf: %v, %v", got, err)
	}
	checkRounds(t, got)
	if _, err := Topology([]Host{{Name: "a", Labels: map[string]string{LeafLabel: "l"}}, {Name: "b"}}, LeafLabel, 4); !errors.Is(err, ErrMissingLabel) {
		t.Errorf("missing label: %v", err)
	}
	if _, err := Topology(clos(2, 2), LeafLabel, 0); err == nil {
		t.Error("0 rounds accepted")
	}
	if p, err := Build(KindTopology, clos(4, 4)); err != nil || len(p.Rounds) != DefaultTopologyRounds || p.Kind != KindTopology {
		t.Errorf("Build(topology) = %+v, %v", p, err)
	}
}
