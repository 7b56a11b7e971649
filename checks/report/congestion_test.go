package report

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/fabricctl/fabricctl/checks"
)

func congestionReport() *Report {
	r := New("lab", time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC), SuiteIncast)
	r.Add(checks.Result{ID: "incast/lossless", Target: "h1/eth0/rxe0:1", Status: checks.StatusPass, Summary: "lossless class held"})
	r.Congestion = []CongestionProof{
		{Check: "incast/pfc", Family: "rxe", Ports: []string{"h2/eth0/rxe0:1", "h1/eth0/rxe0:1"}, NotObservable: "PFC activity not observable on rxe: losslessness judged from retransmits and sequence errors only"},
		{Check: "incast/lossless", Family: "rxe", Ports: []string{"h1/eth0/rxe0:1"}, Counters: []string{"hw_counters/rcvd_seq_err", "hw_counters/out_of_seq_request"}},
	}
	return r
}

// TestCongestionSection: the table says which counters proved each verdict
// (lossless first) and why the others could not be given; JSON keeps it.
func TestCongestionSection(t *testing.T) {
	r := congestionReport()
	var b strings.Builder
	if err := WriteTable(&b, r); err != nil {
		t.Fatal(err)
	}
	want := "\nCONGESTION: which counters proved what (incast)\n" +
		"  incast/lossless on h1/eth0/rxe0:1 (rxe): hw_counters/out_of_seq_request, hw_counters/rcvd_seq_err\n" +
		"  incast/pfc on h1/eth0/rxe0:1, h2/eth0/rxe0:1 (rxe): not judged: PFC activity not observable on rxe: losslessness judged from retransmits and sequence errors only\n"
	if !strings.Contains(b.String(), want) {
		t.Errorf("table:\n%s\nwant the section\n%s", b.String(), want)
	}
	if r.Congestion[0].Check != "incast/pfc" {
		t.Error("writing sorted the caller's report")
	}
	var js bytes.Buffer
	if err := WriteJSON(&js, r); err != nil {
		t.Fatal(err)
	}
	back, err := ReadJSON(&js)
	if err != nil {
		t.Fatal(err)
	}
	if len(back.Congestion) != 2 || back.Congestion[0].Check != "incast/lossless" || back.Congestion[1].NotObservable == "" {
		t.Errorf("read back %+v", back.Congestion)
	}
	if back.Suites[0] != SuiteIncast {
		t.Errorf("suites %v", back.Suites)
	}
	r.Congestion = append(r.Congestion, CongestionProof{Check: "incast/ecn"})
	if err := r.Validate(); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "congestion[2]") {
		t.Errorf("a proof without ports: %v", err)
	}
}

// TestSuiteIncastOrder: the incast suite sorts after pairwise, before nccl.
func TestSuiteIncastOrder(t *testing.T) {
	if compareSuites(SuitePairwise, SuiteIncast) >= 0 || compareSuites(SuiteIncast, SuiteNCCL) >= 0 || SuiteOf("incast/lossless") != SuiteIncast {
		t.Error("incast is not between pairwise and nccl")
	}
}
