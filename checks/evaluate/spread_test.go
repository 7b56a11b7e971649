package evaluate

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/checks"
	"github.com/fabricctl/fabricctl/internal/testutil"
)

func sample(subject string, gb float64, moved map[string]uint64) Sample {
	before, after := Counters{"sent_pkts": 0}, Counters{"sent_pkts": 9000}
	for k, v := range moved {
		before[k], after[k] = 1000, 1000+v
	}
	return Sample{Subject: subject, GB: gb, Deltas: Deltas(before, after)}
}

func TestNewSpreads(t *testing.T) {
	b := NewSpreads([]Sample{
		sample("a/d", 0.5, map[string]uint64{"out_of_seq_request": 0, "completer_retry_err": 10}),
		sample("b/d", 0.25, map[string]uint64{"out_of_seq_request": 0, "completer_retry_err": 10}),
		sample("c/d", 0, map[string]uint64{"completer_retry_err": 40}),
	})
	if b.Samples != 3 || b.PerGB["completer_retry_err"].N != 2 || b.PerTest["completer_retry_err"].N != 3 {
		t.Fatalf("%+v", b)
	}
	if sp := b.PerGB["completer_retry_err"]; sp.Mean != 30 || math.Abs(sp.StdDev-math.Sqrt(200)) > 1e-9 {
		t.Errorf("per GB %+v, want mean 30 (20 and 40 per GB), σ √200", sp)
	}
	if sp := b.PerTest["completer_retry_err"]; sp.Mean != 20 {
		t.Errorf("per test %+v", sp)
	}
	if _, ok := b.PerGB["sent_pkts"]; ok {
		t.Error("a traffic counter entered the baseline")
	}
	if sp := b.PerGB["out_of_seq_request"]; sp.N != 2 || sp.Mean != 0 || sp.StdDev != 0 {
		t.Errorf("zeros count: %+v", sp)
	}
}

// TestSpreadsJudge: what is evidence and what is not, each with its line.
func TestSpreadsJudge(t *testing.T) {
	healthy := NewSpreads([]Sample{
		sample("h2/rxe0", 0.03, map[string]uint64{"out_of_seq_request": 0, "rcvd_seq_err": 1, "completer_retry_err": 9, "duplicate_request": 800}),
		sample("h3/rxe0", 0.02, map[string]uint64{"out_of_seq_request": 1, "rcvd_seq_err": 0, "completer_retry_err": 5, "duplicate_request": 1500}),
		sample("h4/rxe0", 0.04, map[string]uint64{"out_of_seq_request": 0, "rcvd_seq_err": 0, "completer_retry_err": 14, "duplicate_request": 400}),
		sample("h4/rxe0", 0.03, map[string]uint64{"out_of_seq_request": 0, "rcvd_seq_err": 0, "completer_retry_err": 7, "duplicate_request": 3000}),
	})
	rules := Rules{Sigma: 4, MinEvents: 10, Ignore: []string{"duplicate_request"}}
	cases := []struct {
		name   string
		s      Sample
		rules  Rules
		status checks.Status
		names  string
	}{
		{"lossy host", sample("h1/rxe0", 0.03, map[string]uint64{"rcvd_seq_err": 45, "completer_retry_err": 40, "duplicate_request": 9000}), rules, checks.StatusFail, "completer_retry_err, rcvd_seq_err"},
		{"healthy noise", sample("h1/rxe0", 0.03, map[string]uint64{"rcvd_seq_err": 1, "completer_retry_err": 12, "duplicate_request": 2900}), rules, checks.StatusPass, ""},
		{"below minEvents", sample("h1/rxe0", 0.03, map[string]uint64{"out_of_seq_request": 9}), rules, checks.StatusPass, ""},
		{"ignored", sample("h1/rxe0", 0.03, map[string]uint64{"duplicate_request": 90000}), rules, checks.StatusPass, ""},
		{"ignore nothing", sample("h1/rxe0", 0.03, map[string]uint64{"duplicate_request": 90000}), Rules{Sigma: 4, MinEvents: 10}, checks.StatusFail, "duplicate_request"},
		{"above minPerGB only", sample("h1/rxe0", 0.03, map[string]uint64{"out_of_seq_request": 20}), Rules{Sigma: 4, MinEvents: 10, MinPerGB: 1000}, checks.StatusPass, ""},
		{"no data moved", sample("h1/rxe0", 0, map[string]uint64{"out_of_seq_request": 30}), rules, checks.StatusFail, "out_of_seq_request"},
		{"congestion warns", sample("h1/mlx5_0", 0.03, map[string]uint64{"np_cnp_sent": 500}), rules, checks.StatusWarn, "np_cnp_sent"},
	}
	var golden strings.Builder
	for _, c := range cases {
		f, ev := healthy.Judge(c.s, c.rules)
		if f.Status != c.status || (c.names != "" && !strings.Contains(f.Summary, c.names)) {
			t.Errorf("%s: %+v %q", c.name, f, ev)
		}
		if f.Status != checks.StatusPass && f.Class != checks.CounterEvidence {
			t.Errorf("%s: class %s", c.name, f.Class)
		}
		golden.WriteString(c.name + ": " + string(f.Status) + ": " + f.Summary + "\n")
		if len(f.Kinds) > 0 {
			golden.WriteString(fmt.Sprintf("  kinds %v\n", f.Kinds))
		}
		for _, e := range ev {
			golden.WriteString("  " + e + "\n")
		}
	}
	testutil.Golden(t, "spread_judge.golden", []byte(golden.String()))
}

// TestSpreadsCountingNoise: a baseline of alike tests (σ 0) still allows
// the counting noise of the number it expects, so a wobble is not evidence.
func TestSpreadsCountingNoise(t *testing.T) {
	b := NewSpreads([]Sample{sample("a", 0.1, map[string]uint64{"completer_retry_err": 10}), sample("b", 0.1, map[string]uint64{"completer_retry_err": 10})})
	rules := Rules{Sigma: 4, MinEvents: 10}
	// 10 expected, √10 ≈ 3.2: up to 10 + 4·3.2 ≈ 22.6 is noise.
	if f, _ := b.Judge(sample("c", 0.1, map[string]uint64{"completer_retry_err": 22}), rules); f.Status != checks.StatusPass {
		t.Errorf("22 against 10±0: %+v", f)
	}
	if f, _ := b.Judge(sample("c", 0.1, map[string]uint64{"completer_retry_err": 23}), rules); f.Status != checks.StatusFail {
		t.Errorf("23 against 10±0: %+v", f)
	}
	// No baseline at all: a movement of MinEvents counts.
	if f, ev := (Spreads{}).Judge(sample("c", 0.1, map[string]uint64{"rcvd_seq_err": 10}), rules); f.Status != checks.StatusFail || !strings.Contains(ev[0], "no healthy baseline") {
		t.Errorf("no baseline: %+v %q", f, ev)
	}
}

// TestSpreadsHealthyCeiling: when most of the fleet's tests cross one bad
// link (the two-leaf lab with the inter-leaf link at 5 % loss: 4 of 6 pairs,
// 59–84 sequence events each in ~0.0024 GB), the spread of the runs a host
// took no part in is itself lossy and excuses the loss. A declared healthy
// ceiling per test caps what that spread may excuse; below the ceiling, or
// below minEvents, nothing changes, so a healthy fabric still passes.
func TestSpreadsHealthyCeiling(t *testing.T) {
	contaminated := NewSpreads([]Sample{
		sample("h2/rxe0", 0.0024, map[string]uint64{"out_of_seq_request": 78, "rcvd_seq_err": 59}),
		sample("h3/rxe0", 0.0022, map[string]uint64{"out_of_seq_request": 69, "rcvd_seq_err": 70}),
		sample("h3/rxe0", 0.0024, map[string]uint64{"out_of_seq_request": 84, "rcvd_seq_err": 69}),
		sample("h2/rxe0", 0.027, map[string]uint64{"out_of_seq_request": 0, "rcvd_seq_err": 1}),
	})
	lossy := sample("h1/rxe0", 0.0024, map[string]uint64{"out_of_seq_request": 67, "rcvd_seq_err": 62})
	rules := Rules{Sigma: 4, MinEvents: 10}
	if f, ev := contaminated.Judge(lossy, rules); f.Status != checks.StatusPass {
		t.Fatalf("without a ceiling the contaminated spread should excuse the loss (the gap this closes): %+v %q", f, ev)
	}
	rules.MaxHealthyPerTest = 5
	f, ev := contaminated.Judge(lossy, rules)
	if f.Status != checks.StatusFail || f.Class != checks.CounterEvidence || len(ev) != 2 {
		t.Fatalf("contaminated baseline + ceiling 5: %+v %q, want counter evidence on both counters", f, ev)
	}
	if !strings.Contains(ev[0], "declared healthy ceiling of 5 per test") {
		t.Errorf("the line does not say the ceiling decided: %q", ev[0])
	}
	// Per test too (no data moved).
	if f, _ := contaminated.Judge(sample("h1/rxe0", 0, map[string]uint64{"rcvd_seq_err": 40}), rules); f.Status != checks.StatusFail {
		t.Errorf("per test, above the ceiling: %+v", f)
	}
	// Healthy movement under the ceiling, or above it but under minEvents or
	// minPerGB, is never evidence.
	healthy := NewSpreads([]Sample{
		sample("h2/rxe0", 0.027, map[string]uint64{"out_of_seq_request": 0, "rcvd_seq_err": 1}),
		sample("h3/rxe0", 0.025, map[string]uint64{"out_of_seq_request": 2, "rcvd_seq_err": 0}),
	})
	for name, s := range map[string]Sample{
		"healthy 2":        sample("h1/rxe0", 0.027, map[string]uint64{"out_of_seq_request": 2, "rcvd_seq_err": 1}),
		"under minEvents":  sample("h1/rxe0", 0.027, map[string]uint64{"out_of_seq_request": 9}),
		"contaminated 4":   sample("h1/rxe0", 0.0024, map[string]uint64{"out_of_seq_request": 4}),
		"no data, healthy": sample("h1/rxe0", 0, map[string]uint64{"rcvd_seq_err": 2}),
	} {
		for _, b := range []Spreads{healthy, contaminated} {
			if f, ev := b.Judge(s, rules); f.Status != checks.StatusPass {
				t.Errorf("%s: %+v %q", name, f, ev)
			}
		}
	}
	if f, _ := contaminated.Judge(lossy, Rules{Sigma: 4, MinEvents: 10, MaxHealthyPerTest: 5, MinPerGB: 1e6}); f.Status != checks.StatusPass {
		t.Errorf("minPerGB is still a floor under the ceiling: %+v", f)
	}
}
