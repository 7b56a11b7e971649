package check

import (
	"bytes"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fabricctl/fabricctl/checks"
	"github.com/fabricctl/fabricctl/checks/localize"
	"github.com/fabricctl/fabricctl/checks/report"
	"github.com/fabricctl/fabricctl/checks/schedule"
	"github.com/fabricctl/fabricctl/testkit/localizesim"
)

// TestAttachSuspects: pairwise results where every pair crossing the
// inter-leaf link lost packets name that link, in the report's table and
// JSON; a pair that never connected is void, not evidence.
func TestAttachSuspects(t *testing.T) {
	rep := report.New("lab", time.Date(2025, 3, 14, 9, 0, 0, 0, time.UTC), report.SuitePairwise)
	all, _ := schedule.AllPairs([]string{"lab-h1", "lab-h2", "lab-h3", "lab-h4"})
	leaf := map[string]int{"lab-h1": 1, "lab-h2": 1, "lab-h3": 2, "lab-h4": 2}
	for _, round := range all {
		for _, p := range round {
			v := 9.6
			pair := report.Pair{A: p.Server, B: p.Client, DeviceA: "rxe0", DeviceB: "rxe0", Test: "write_bw", Value: &v, Unit: checks.UnitGbps, Status: checks.StatusPass}
			if leaf[p.Server] != leaf[p.Client] {
				low := 1.2
				pair.Value, pair.Status, pair.Class = &low, checks.StatusFail, checks.CounterEvidence
				pair.Evidence = []string{p.Server + "/rxe0: rcvd_seq_err +311 during the test (sequence-error; healthy baseline +0)"}
				pair.CounterKinds = []string{"sequence-error"}
			}
			rep.AddPairs(pair)
		}
	}
	rep.AddPairs(report.Pair{A: "lab-h1", B: "lab-h2", Test: "write_bw", Unit: checks.UnitGbps, Status: checks.StatusError, Class: checks.OOBConnect})
	obs := Observations(rep.Pairs, nil)
	if n := len(obs); n != 7 || obs[6].Outcome != localize.Void || !obs[2].Loss && !obs[3].Loss {
		t.Fatalf("observations %+v", obs)
	}
	if err := AttachSuspects(rep, localizesim.TwoLeaves(2), nil, localize.Options{}); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range rep.Suspects {
		got = append(got, s.Component)
	}
	if !slices.Equal(got, []string{"link:leaf-01:isl"}) {
		t.Fatalf("suspects %v, want the inter-leaf link", got)
	}
	var table, js bytes.Buffer
	if err := report.WriteTable(&table, rep); err != nil {
		t.Fatal(err)
	}
	if err := report.WriteJSON(&js, rep); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(table.String(), "1. UPLINK  uplink leaf-01:isl <-> leaf-02:isl") || !strings.Contains(js.String(), `"component": "link:leaf-01:isl"`) {
		t.Errorf("table or JSON lacks the suspect:\n%s", table.String())
	}
}

// TestObservationsReadTheVerdict: the localiser takes the sweep's verdict
// on a failing pair: loss counters in its evidence are loss whatever its
// first class (the lab's lossy access link failed lab-h1→lab-h2 as
// low-bandwidth, with out-of-sequence evidence), and a pair failed for low
// bandwidth alone is slow even when the localiser's own floor (the
// fabric's minPercentOfBest of the median) would pass it.
func TestObservationsReadTheVerdict(t *testing.T) {
	v, w := 0.00042, 0.016
	pairs := []report.Pair{
		{A: "lab-h1", B: "lab-h2", Test: "write_bw", Value: &v, Unit: checks.UnitGbps, Status: checks.StatusFail, Class: checks.LowBandwidth,
			Evidence:     []string{"lab-h1/rxe0: out_of_seq_request +89 during the test (out-of-sequence; above the declared healthy ceiling of 8 per test)"},
			CounterKinds: []string{"out-of-sequence"}},
		{A: "lab-h3", B: "lab-h4", Test: "write_bw", Value: &v, Unit: checks.UnitGbps, Status: checks.StatusFail, Class: checks.LowBandwidth},
		{A: "lab-h2", B: "lab-h3", Test: "write_bw", Value: &w, Unit: checks.UnitGbps, Status: checks.StatusPass},
		// A stalled re-test whose loss shows only in its summary's short
		// form: the kinds say it, not the text.
		{A: "lab-h3", B: "lab-h1", Test: "write_bw", Value: &v, Unit: checks.UnitGbps, Status: checks.StatusFail, Class: checks.CounterEvidence,
			Summary: "lab-h1/rxe0: completer_retry_err beyond the healthy baseline", CounterKinds: []string{"retransmit"}},
		// A pause storm slows without loss.
		{A: "lab-h4", B: "lab-h1", Test: "write_bw", Value: &v, Unit: checks.UnitGbps, Status: checks.StatusFail, Class: checks.LowBandwidth,
			CounterKinds: []string{"pause", "pause-storm"}},
	}
	obs := Observations(pairs, nil)
	if len(obs) != 5 || !obs[0].Loss || obs[1].Loss || obs[1].Outcome != localize.Slow || obs[2].Loss || obs[2].Outcome != "" ||
		!obs[3].Loss || obs[4].Loss || obs[4].Outcome != localize.Slow {
		t.Errorf("observations %+v", obs)
	}
}
