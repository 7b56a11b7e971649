package e2e

// What the two-leaf scenarios read of a check report, and which failures
// of it lie off a fault's path. Not lab-tagged, so that the unit tests
// hold the reading right without a lab.

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// checkReport is the part of `fabricctl check -o json` the scenarios read.
type checkReport struct {
	// Pairs are the pairwise tests' verdicts (A the server, B the client).
	Pairs []struct {
		A, B   string
		Status string `json:"status"`
		Class  string `json:"class"`
	} `json:"pairs"`
	Results []struct {
		ID     string `json:"id"`
		Target string `json:"target"`
		Status string `json:"status"`
		Class  string `json:"class"`
	} `json:"results"`
	Suspects []struct {
		Rank         int    `json:"rank"`
		Kind         string `json:"kind"`
		Component    string `json:"component"`
		Name         string `json:"name"`
		Alternatives []struct {
			Component string `json:"component"`
		} `json:"alternatives"`
	} `json:"suspects"`
	Topology *struct {
		Links []json.RawMessage `json:"links"`
	} `json:"topology"`
	Retests []struct {
		Round  int      `json:"round"`
		Splits []string `json:"splits"`
		Pairs  []struct {
			A, B   string
			Status string `json:"status"`
			For    struct {
				Component string `json:"component"`
			} `json:"for"`
		} `json:"pairs"`
	} `json:"retests"`
	RetestStop string `json:"retestStop"`
}

// offPathFailures lists the failed pairwise tests and re-tests of rep between hosts whose path
// does not cross the fault (crosses false).
func offPathFailures(rep checkReport, crosses func(a, b string) bool) []string {
	var out []string
	for _, p := range rep.Pairs {
		if p.Status == "fail" && !crosses(p.A, p.B) {
			out = append(out, fmt.Sprintf("%s->%s %s", p.A, p.B, p.Class))
		}
	}
	for _, res := range rep.Results {
		a, b, ok := strings.Cut(res.Target, "->")
		if !ok || res.Status != "fail" || !strings.HasPrefix(res.ID, "pairwise/") {
			continue
		}
		ha, _, _ := strings.Cut(a, "/")
		hb, _, _ := strings.Cut(b, "/")
		if !crosses(ha, hb) {
			out = append(out, res.Target+" "+res.Class)
		}
	}
	for _, rr := range rep.Retests {
		for _, p := range rr.Pairs {
			if p.Status == "fail" && !crosses(p.A, p.B) {
				out = append(out, fmt.Sprintf("re-test %s->%s", p.A, p.B))
			}
		}
	}
	return out
}

// twoLeafOf is the two-leaf lab's leaf of each host.
var twoLeafOf = map[string]string{"lab-h1": "leaf-01", "lab-h2": "leaf-01", "lab-h3": "leaf-02", "lab-h4": "leaf-02"}

// acrossLeaves: a pair crosses the inter-leaf link.
func acrossLeaves(a, b string) bool { return twoLeafOf[a] != twoLeafOf[b] }

// involves: a pair crosses host's access link.
func involves(host string) func(a, b string) bool {
	return func(a, b string) bool { return a == host || b == host }
}

// TestOffPathFailures: a pairwise verdict between two hosts of one leaf
// failing while the inter-leaf link is impaired is off the fault's path
// (CI rehearsal: lab-h3->lab-h4 ended WR_FLUSH_ERR, the localiser then
// rightly blamed leaf-02, and the scenario did not check again because
// the pairs' verdicts were never read); failed verdicts that cross the
// link, passing ones, and failed re-tests off the path are told apart.
func TestOffPathFailures(t *testing.T) {
	const report = `{"pairs": [
	  {"a": "lab-h1", "b": "lab-h4", "status": "fail", "class": "counter-evidence"},
	  {"a": "lab-h3", "b": "lab-h4", "status": "fail", "class": "completion-error"},
	  {"a": "lab-h1", "b": "lab-h2", "status": "pass"}],
	 "results": [{"id": "pairwise/host", "target": "lab-h3", "status": "fail"}],
	 "retests": [{"round": 1, "pairs": [{"A": "lab-h2", "B": "lab-h1", "status": "fail"}, {"A": "lab-h2", "B": "lab-h3", "status": "fail"}]}]}`
	var rep checkReport
	if err := json.Unmarshal([]byte(report), &rep); err != nil {
		t.Fatal(err)
	}
	got := strings.Join(offPathFailures(rep, acrossLeaves), "; ")
	if want := "lab-h3->lab-h4 completion-error; re-test lab-h2->lab-h1"; got != want {
		t.Errorf("off the inter-leaf path: %q, want %q", got, want)
	}
	got = strings.Join(offPathFailures(rep, involves("lab-h4")), "; ")
	if want := "re-test lab-h2->lab-h1; re-test lab-h2->lab-h3"; got != want {
		t.Errorf("off lab-h4's access link: %q, want %q", got, want)
	}
}
