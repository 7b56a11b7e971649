package checks

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/fabricctl/fabricctl/internal/testutil"
)

func TestWorst(t *testing.T) {
	cases := []struct {
		in   []Status
		want Status
	}{
		{nil, StatusPass},
		{[]Status{StatusPass, StatusSkip}, StatusSkip},
		{[]Status{StatusWarn, StatusPass, StatusSkip}, StatusWarn},
		{[]Status{StatusPass, StatusFail, StatusWarn}, StatusFail},
		{[]Status{StatusFail, StatusError, StatusPass}, StatusError},
	}
	for _, c := range cases {
		var rs []Result
		for _, s := range c.in {
			rs = append(rs, Result{Status: s})
		}
		if got := Worst(rs); got != c.want {
			t.Errorf("Worst(%v) = %s, want %s", c.in, got, c.want)
		}
	}
}

func TestStatusUnmarshalRejectsUnknown(t *testing.T) {
	var r Result
	err := json.Unmarshal([]byte(`{"id":"x","status":"passed"}`), &r)
	if !errors.Is(err, ErrUnknownStatus) {
		t.Fatalf("got %v, want ErrUnknownStatus", err)
	}
	if err := json.Unmarshal([]byte(`{"id":"x","status":"warn"}`), &r); err != nil || r.Status != StatusWarn {
		t.Fatalf("got %v %q", err, r.Status)
	}
}

func TestFailureClassesDescribed(t *testing.T) {
	all := []FailureClass{OOBConnect, QPBringUp, CompletionError, ArgumentError, LowBandwidth, HighLatency,
		CounterEvidence, Timeout, MissingTool, ClockCalibration, NoDevice, PortDown}
	seen := map[FailureClass]bool{}
	for _, c := range all {
		if !c.Valid() || c.Describe() == string(c) {
			t.Errorf("class %q has no description", c)
		}
		if seen[c] {
			t.Errorf("class %q defined twice", c)
		}
		seen[c] = true
	}
	if FailureClass("bogus").Valid() {
		t.Error("bogus class is valid")
	}
}

func TestSortAndJSON(t *testing.T) {
	rs := []Result{
		{ID: "pairwise/write_bw", Target: "b->a", Status: StatusPass, Summary: "ok",
			Measurements: []Measurement{{Name: "bw_average", Value: 92.4, Unit: UnitGbps}}},
		ErrorResult("loopback/write_bw", "gpu-02/mlx5_0", MissingTool, errors.New("ib_write_bw: command not found")),
		{ID: "pairwise/write_bw", Target: "a->b", Status: StatusFail, Class: LowBandwidth, Summary: "slow",
			Evidence: []string{"gpu-02 mlx5_0 out_of_sequence +12"}},
	}
	Sort(rs)
	if m, ok := rs[2].Measurement("bw_average"); !ok || m.Value != 92.4 {
		t.Errorf("Measurement lookup after sort: %v %v", m, ok)
	}
	if _, ok := rs[2].Measurement("nope"); ok {
		t.Error("found a measurement that does not exist")
	}
	testutil.Golden(t, "results.golden", testutil.JSON(t, rs))
}

func TestWCStatusName(t *testing.T) {
	for n, want := range map[int]string{0: "SUCCESS", 5: "WR_FLUSH_ERR", 10: "REM_ACCESS_ERR", 12: "RETRY_EXC_ERR", 13: "RNR_RETRY_EXC_ERR", 99: "status 99", -1: "status -1"} {
		if got := WCStatusName(n); got != want {
			t.Errorf("WCStatusName(%d) = %q, want %q", n, got, want)
		}
	}
}
