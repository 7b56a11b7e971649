package evaluate

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/fabricctl/fabricctl/checks"
	"github.com/fabricctl/fabricctl/internal/testutil"
)

// portRates are the rate strings sysfs prints for IB and RoCE ports.
var portRates = []string{
	"2.5 Gb/sec (1X SDR)", "10 Gb/sec (4X SDR)", "25 Gb/sec (1X EDR)", "56 Gb/sec (4X FDR)",
	"100 Gb/sec (4X EDR)", "200 Gb/sec (4X HDR)", "400 Gb/sec (4X NDR)", "100 Gb/sec (2X HDR)",
	"10 Gb/sec (1X QDR)\n", "40 Gb/sec (4X QDR)",
}

func TestParsePortRateGolden(t *testing.T) {
	var b strings.Builder
	for _, s := range portRates {
		v, err := ParsePortRate(s)
		if err != nil {
			t.Fatalf("ParsePortRate(%q): %v", s, err)
		}
		fmt.Fprintf(&b, "%-22q %g\n", s, v)
	}
	testutil.Golden(t, "port_rates.golden", []byte(b.String()))
}

func TestParsePortRateRejects(t *testing.T) {
	for _, s := range []string{"", "unknown", "Gb/sec", "0 Gb/sec (1X SDR)", "100 Mb/sec", "fast", "-5 Gb/sec"} {
		if _, err := ParsePortRate(s); !errors.Is(err, ErrBadRate) {
			t.Errorf("ParsePortRate(%q) = %v, want ErrBadRate", s, err)
		}
	}
}

func TestFloorsAndBounds(t *testing.T) {
	cases := []struct {
		name  string
		f     func() (Finding, error)
		want  checks.Status
		class checks.FailureClass
		text  string
	}{
		{"abs pass", func() (Finding, error) { return AbsoluteFloor(92.4, 100, 90) }, checks.StatusPass, "", "92.4% of the 100 Gb/s"},
		{"abs at floor", func() (Finding, error) { return AbsoluteFloor(90, 100, 90) }, checks.StatusPass, "", ""},
		{"abs fail", func() (Finding, error) { return AbsoluteFloor(74.2, 100, 90) }, checks.StatusFail, checks.LowBandwidth, "74.2% of the 100 Gb/s port rate, below the 90% floor"},
		{"rel pass", func() (Finding, error) { return RelativeFloor(94, 97, DefaultRelativeFloor) }, checks.StatusPass, "", ""},
		{"rel outlier", func() (Finding, error) { return RelativeFloor(88, 97, DefaultRelativeFloor) }, checks.StatusWarn, checks.LowBandwidth, "90.7% of the fleet's best 97.00 Gb/s, below 93%"},
		{"lat pass", func() (Finding, error) { return LatencyBound(1.66, 5) }, checks.StatusPass, "", ""},
		{"lat fail", func() (Finding, error) { return LatencyBound(7.3, 5) }, checks.StatusFail, checks.HighLatency, "7.30 us is above the 5 us bound"},
	}
	for _, c := range cases {
		f, err := c.f()
		if err != nil || f.Status != c.want || f.Class != c.class || !strings.Contains(f.Summary, c.text) {
			t.Errorf("%s: %+v %v", c.name, f, err)
		}
	}
	for name, f := range map[string]func() (Finding, error){
		"percent 0":      func() (Finding, error) { return AbsoluteFloor(1, 100, 0) },
		"percent 120":    func() (Finding, error) { return AbsoluteFloor(1, 100, 120) },
		"no port rate":   func() (Finding, error) { return AbsoluteFloor(1, 0, 90) },
		"fraction 1.5":   func() (Finding, error) { return RelativeFloor(1, 2, 1.5) },
		"no best":        func() (Finding, error) { return RelativeFloor(1, 0, 0.93) },
		"latency bound0": func() (Finding, error) { return LatencyBound(1, 0) },
	} {
		if _, err := f(); !errors.Is(err, ErrBadThreshold) {
			t.Errorf("%s: %v, want ErrBadThreshold", name, err)
		}
	}
}

func TestMerge(t *testing.T) {
	var r checks.Result
	Merge(&r, Finding{Status: checks.StatusPass, Summary: "ok: 92 Gb/s"})
	if r.Status != checks.StatusPass || r.Summary != "ok: 92 Gb/s" {
		t.Fatalf("after pass: %+v", r)
	}
	Merge(&r, Finding{Status: checks.StatusWarn, Class: checks.CounterEvidence, Summary: "pause frames"})
	if r.Status != checks.StatusWarn || r.Class != checks.CounterEvidence || r.Summary != "pause frames" {
		t.Fatalf("after warn: %+v", r)
	}
	Merge(&r, Finding{Status: checks.StatusFail, Class: checks.LowBandwidth, Summary: "slow"})
	if r.Status != checks.StatusFail || r.Class != checks.LowBandwidth || r.Summary != "pause frames; slow" {
		t.Fatalf("after fail: %+v", r)
	}
	Merge(&r, Finding{Status: checks.StatusWarn, Class: checks.CounterEvidence, Summary: "ecn"})
	Merge(&r, Finding{Status: checks.StatusPass, Summary: "ok"})
	if r.Status != checks.StatusFail || r.Class != checks.LowBandwidth || r.Summary != "pause frames; slow; ecn" {
		t.Fatalf("after milder findings: %+v", r)
	}
	// Counter kinds join once each, whatever the status decided: a test
	// failed for low bandwidth that also lost packets is lossy.
	Merge(&r, Finding{Status: checks.StatusWarn, Class: checks.CounterEvidence, Summary: "pause", Kinds: []Kind{Pause}})
	Merge(&r, Finding{Status: checks.StatusFail, Class: checks.CounterEvidence, Summary: "loss", Kinds: []Kind{OutOfSequence, Pause}})
	if !slices.Equal(r.CounterKinds, []string{"pause", "out-of-sequence"}) || r.Class != checks.LowBandwidth {
		t.Fatalf("counter kinds %v, class %s", r.CounterKinds, r.Class)
	}
}

// TestKindLoss: the kinds that mean lost packets, and those that only
// slow a flow (a lossless fabric pauses rather than drops).
func TestKindLoss(t *testing.T) {
	for k, want := range map[Kind]bool{Retransmit: true, OutOfSequence: true, SeqError: true, Drop: true, Error: true,
		Pause: false, PauseStorm: false, ECNMark: false, CNP: false, "": false} {
		if k.Loss() != want {
			t.Errorf("%q.Loss() = %v, want %v", k, k.Loss(), want)
		}
	}
}

func TestKindOf(t *testing.T) {
	want := map[string]Kind{
		// mlx5, DESIGN.md §4.3
		"np_cnp_sent": CNP, "np_ecn_marked_roce_packets": ECNMark, "rp_cnp_handled": CNP,
		"out_of_sequence": OutOfSequence, "packet_seq_err": SeqError, "local_ack_timeout_err": Retransmit,
		"rnr_nak_retry_err": Retransmit,
		// rxe
		"duplicate_request": Retransmit, "out_of_seq_request": OutOfSequence, "rcvd_seq_err": SeqError,
		"completer_retry_err": Retransmit, "retry_exceeded_err": Retransmit,
		// ethtool
		"rx_prio3_pause": Pause, "tx_prio3_pause": Pause, "rx_discards_phy": Drop, "rx_prio3_discards": Drop,
		"tx_pause_storm_error_events": PauseStorm,
		// IB port counters
		"symbol_error": Error, "port_xmit_discards": Drop,
	}
	for name, k := range want {
		if got, ok := KindOf(name); !ok || got != k {
			t.Errorf("KindOf(%s) = %s %v, want %s", name, got, ok, k)
		}
	}
	for _, name := range []string{"sent_pkts", "rcvd_pkts", "rdma_sends", "rx_prio3_pause_duration", "rx_prio9_pause", "port_xmit_data"} {
		if k, ok := KindOf(name); ok {
			t.Errorf("KindOf(%s) = %s: traffic counters carry no evidence", name, k)
		}
	}
}

func TestCounterEvidence(t *testing.T) {
	before := Counters{"out_of_sequence": 10, "np_cnp_sent": 100, "sent_pkts": 5, "rx_prio3_pause": 7, "duplicate_request": 900, "only_before": 1}
	after := Counters{"out_of_sequence": 1851, "np_cnp_sent": 180, "sent_pkts": 90000, "rx_prio3_pause": 7, "duplicate_request": 4, "only_after": 3}
	deltas := Deltas(before, after)
	if len(deltas) != 5 || deltas[0].Name != "duplicate_request" || !deltas[0].Reset || deltas[0].Delta != 4 {
		t.Fatalf("deltas %+v", deltas)
	}
	healthy := Deltas(Counters{"duplicate_request": 0, "np_cnp_sent": 0}, Counters{"duplicate_request": 12, "np_cnp_sent": 3})
	base := NewBaseline(healthy, Deltas(Counters{"np_cnp_sent": 0}, Counters{"np_cnp_sent": 100}))
	if base["duplicate_request"] != 12 || base["np_cnp_sent"] != 100 {
		t.Fatalf("baseline %v", base)
	}
	f, evidence := EvaluateCounters("gpu-02/mlx5_0", deltas, base)
	if f.Status != checks.StatusFail || f.Class != checks.CounterEvidence {
		t.Errorf("finding %+v", f)
	}
	testutil.Golden(t, "counter_evidence.golden", []byte(f.Summary+"\n"+strings.Join(evidence, "\n")+"\n"))

	// Congestion alone warns; movement within the baseline is silent.
	f, evidence = EvaluateCounters("h/d", Deltas(Counters{"rp_cnp_handled": 0, "duplicate_request": 0}, Counters{"rp_cnp_handled": 50, "duplicate_request": 12}), base)
	if f.Status != checks.StatusWarn || len(evidence) != 1 || !strings.Contains(evidence[0], "rp_cnp_handled +50") {
		t.Errorf("congestion only: %+v %q", f, evidence)
	}
	f, evidence = EvaluateCounters("h/d", healthy, base)
	if f.Status != checks.StatusPass || evidence != nil {
		t.Errorf("healthy: %+v %q", f, evidence)
	}
}

func FuzzParsePortRate(f *testing.F) {
	for _, s := range portRates {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParsePortRate(s)
		if err == nil && v <= 0 {
			t.Fatalf("ParsePortRate(%q) = %v without an error", s, v)
		}
	})
}

func TestAppendKinds(t *testing.T) {
	got := AppendKinds([]string{"drop"}, Retransmit, Drop, Retransmit, PauseStorm)
	if want := []string{"drop", string(Retransmit), string(PauseStorm)}; !slices.Equal(got, want) {
		t.Errorf("AppendKinds = %q, want %q", got, want)
	}
}
