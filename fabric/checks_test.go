package fabric

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// withChecks is goodFabric with a spec.checks block before its switches.
func withChecks(checks string) string {
	return strings.Replace(goodFabric, "  switches:", "  checks:\n"+checks+"  switches:", 1)
}

func TestChecksPolicyLoads(t *testing.T) {
	f, err := Load("f.yaml", Options{ReadFile: memFS(map[string]string{"p.yaml": goodProfile, "f.yaml": withChecks(`    loopback: {duration: 8s, portRate: 250Mb/s, minPercentOfPortRate: 10, minPercentOfBest: 50, retestOutliers: true, retries: 0, qpTimeout: 18}
    pairwise: {bidirectional: true, portRate: sysfs, minPercentOfPortRate: 90, minPercentOfBest: 80, maxLatency: 5us, retestOutliers: true, partners: 3, retries: 4, localizeRounds: 5, qpTimeout: 20}
    counters: {sigma: 5, minEvents: 20, minPerGB: 100, maxHealthyPerTest: 4, ignore: [duplicate_request]}
`)})})
	if err != nil {
		t.Fatal(err)
	}
	c := f.Spec.Checks
	if c.Loopback.PortRate != 0.25 || c.Loopback.Duration != Duration(8*time.Second) || RetriesOr(c.Loopback.Retries) != 0 || !c.Loopback.RetestOutliers {
		t.Errorf("loopback %+v", c.Loopback)
	}
	if c.Pairwise.PortRate != 0 || !c.Pairwise.Bidirectional || c.Pairwise.Partners != 3 || RetriesOr(c.Pairwise.Retries) != 4 || c.Pairwise.MinPercentOfBest != 80 {
		t.Errorf("pairwise %+v", c.Pairwise)
	}
	if c.Counters.Sigma != 5 || c.Counters.MinEvents != 20 || c.Counters.MinPerGB != 100 || c.Counters.MaxHealthyPerTest != 4 || c.Counters.Ignore[0] != "duplicate_request" {
		t.Errorf("counters %+v", c.Counters)
	}
	if LocalizeRoundsOr(c.Pairwise.LocalizeRounds) != 5 || LocalizeRoundsOr(nil) != DefaultLocalizeRounds || LocalizeRoundsOr(c.Loopback.Retries) != 0 {
		t.Errorf("localizeRounds %v", c.Pairwise.LocalizeRounds)
	}
	if c.Loopback.QPTimeout != 18 || c.Pairwise.QPTimeout != 20 {
		t.Errorf("qpTimeout: loopback %d, pairwise %d; want 18, 20", c.Loopback.QPTimeout, c.Pairwise.QPTimeout)
	}
	if RetriesOr(nil) != DefaultRetries {
		t.Error("retries default")
	}
}

// TestChecksPolicyInvalid: every rule of the policy has a located message.
func TestChecksPolicyInvalid(t *testing.T) {
	cases := []struct{ checks, want string }{
		{"    pairwise: {portRate: 100}\n", `f.yaml:16:26: spec.checks.pairwise.portRate: expected sysfs or a rate such as 100Gb/s, got an integer`},
		{"    pairwise: {portRate: fast}\n", `spec.checks.pairwise.portRate: "fast" is not a rate; use sysfs or a number with Gb/s or Mb/s`},
		{"    pairwise: {portRate: 0Gb/s}\n", `spec.checks.pairwise.portRate: "0Gb/s" is not a rate between 0 and 1000000 Gb/s`},
		{"    pairwise: {minPercentOfBest: 120}\n", `f.yaml:16:34: spec.checks.pairwise.minPercentOfBest: 120 is outside 1..100`},
		{"    loopback: {minPercentOfPortRate: -1}\n", `spec.checks.loopback.minPercentOfPortRate: -1 is outside 0..100`},
		{"    pairwise: {retries: 11}\n", `spec.checks.pairwise.retries: 11 is outside 0..10`},
		{"    pairwise: {localizeRounds: 9}\n", `f.yaml:16:32: spec.checks.pairwise.localizeRounds: 9 is outside 0..8 (absent: 3)`},
		{"    pairwise: {localizeRounds: -1}\n", `spec.checks.pairwise.localizeRounds: -1 is outside 0..8`},
		{"    pairwise: {localizeRounds: many}\n", `spec.checks.pairwise.localizeRounds`},
		{"    pairwise: {partners: 40}\n", `spec.checks.pairwise.partners: 40 is outside 1..16`},
		{"    pairwise: {qpTimeout: 32}\n", `f.yaml:16:27: spec.checks.pairwise.qpTimeout: 32 is outside 1..31 (0 or absent: perftest's 14)`},
		{"    loopback: {qpTimeout: -1}\n", `spec.checks.loopback.qpTimeout: -1 is outside 1..31`},
		{"    pairwise: {duration: 2s}\n", `spec.checks.pairwise.duration: 2s: perftest runs whole seconds, at least 5s`},
		{"    loopback: {duration: 5500ms}\n", `spec.checks.loopback.duration: 5.5s: perftest runs whole seconds, at least 5s`},
		{"    pairwise: {test: send_lat, bidirectional: true}\n", `spec.checks.pairwise.bidirectional: applies to bandwidth tests; test send_lat measures latency`},
		{"    counters: {sigma: -1}\n", `spec.checks.counters.sigma: -1 is outside 0..100`},
		{"    counters: {minEvents: -5}\n", `spec.checks.counters.minEvents: -5 is negative`},
		{"    counters: {maxHealthyPerTest: -1}\n", `f.yaml:16:35: spec.checks.counters.maxHealthyPerTest: -1 is negative`},
		{"    counters: {ignore: [Duplicate-Request]}\n", `spec.checks.counters.ignore[0]: "Duplicate-Request" is not a counter name`},
		{"    counters: {ignore: [a, a]}\n", `spec.checks.counters.ignore[1]: a is listed twice`},
		{"    counters: {sigmas: 4}\n", `spec.checks.counters.sigmas: unknown field (did you mean "sigma"?)`},
	}
	for _, c := range cases {
		_, err := Load("f.yaml", Options{ReadFile: memFS(map[string]string{"p.yaml": goodProfile, "f.yaml": withChecks(c.checks)})})
		var errs Errors
		if !errors.As(err, &errs) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v\nwant %s", strings.TrimSpace(c.checks), err, c.want)
		}
	}
}

func TestParseRate(t *testing.T) {
	for s, want := range map[string]Rate{"sysfs": 0, "100Gb/s": 100, "250Mb/s": 0.25, "1.5 Gbps": 1.5, "400Gbit/s": 400} {
		if got, err := ParseRate(s); err != nil || got != want {
			t.Errorf("ParseRate(%q) = %v %v, want %v", s, got, err, want)
		}
	}
	for _, s := range []string{"", "100", "Gb/s", "-1Gb/s", "1e400Gb/s", "2000000Gb/s", "10 GB/s"} {
		if _, err := ParseRate(s); err == nil {
			t.Errorf("ParseRate(%q) accepted", s)
		}
	}
	if Rate(0).String() != "sysfs" || Rate(0.25).String() != "0.25Gb/s" {
		t.Errorf("strings %s %s", Rate(0), Rate(0.25))
	}
}

// TestIncastLoads: spec.checks.incast decodes, and IncastOrDefault fills
// what is absent (ignore from spec.checks.counters).
func TestIncastLoads(t *testing.T) {
	f, err := Load("f.yaml", Options{ReadFile: memFS(map[string]string{"p.yaml": goodProfile, "f.yaml": withChecks(`    incast: {senders: 5, messageSize: 1MiB, qps: 4, duration: 20s, receiversPerLeaf: 2, crossLeaf: false, retries: 1, qpTimeout: 20,
      bounds: {maxPausedPercent: 40, heavyPausedPercent: 2.5, heavyPauseFrames: 500}}
    counters: {ignore: [duplicate_request]}
`)})})
	if err != nil {
		t.Fatal(err)
	}
	in := f.Spec.Checks.IncastOrDefault()
	if in.Senders != 5 || in.MessageSize != 1<<20 || in.QPs != 4 || in.Duration != Duration(20*time.Second) || in.ReceiversPerLeaf != 2 ||
		in.CrossLeaf == nil || *in.CrossLeaf || RetriesOr(in.Retries) != 1 || in.QPTimeout != 20 {
		t.Errorf("incast %+v", in)
	}
	if b := in.Bounds; b == nil || b.MaxPausedPercent != 40 || b.HeavyPausedPercent != 2.5 || b.HeavyPauseFrames != 500 {
		t.Errorf("bounds %+v", in.Bounds)
	}
	if len(in.Ignore) != 1 || in.Ignore[0] != "duplicate_request" {
		t.Errorf("ignore %v, want spec.checks.counters.ignore", in.Ignore)
	}
	d := (*Checks)(nil).IncastOrDefault()
	if d.Senders != DefaultIncastSenders || d.MessageSize != DefaultIncastMessageSize || d.QPs != DefaultIncastQPs ||
		d.Duration != DefaultIncastDuration || d.ReceiversPerLeaf != DefaultIncastReceiversPerLeaf || d.CrossLeaf != nil || d.Ignore != nil {
		t.Errorf("defaults %+v", d)
	}
	own := (&Checks{Incast: &Incast{Ignore: []string{"rcvd_pkts"}}, Counters: &CounterRules{Ignore: []string{"x"}}}).IncastOrDefault()
	if len(own.Ignore) != 1 || own.Ignore[0] != "rcvd_pkts" {
		t.Errorf("incast.ignore %v did not win over counters.ignore", own.Ignore)
	}
}

// TestIncastInvalid: every rule of spec.checks.incast has a located message.
func TestIncastInvalid(t *testing.T) {
	cases := []struct{ checks, want string }{
		{"    incast: {senders: -1}\n", `f.yaml:16:23: spec.checks.incast.senders: -1 is outside 1..1024 (0 or absent: 3)`},
		{"    incast: {senders: many}\n", `spec.checks.incast.senders`},
		{"    incast: {messageSize: 2GiB}\n", `spec.checks.incast.messageSize: 2GiB is outside 1B..1GiB`},
		{"    incast: {qps: 20000}\n", `spec.checks.incast.qps: 20000 is outside 1..16384 (0 or absent: 2)`},
		{"    incast: {duration: 3s}\n", `spec.checks.incast.duration: 3s: perftest runs whole seconds, at least 5s`},
		{"    incast: {duration: 7500ms}\n", `spec.checks.incast.duration: 7.5s: perftest runs whole seconds`},
		{"    incast: {receiversPerLeaf: 65}\n", `spec.checks.incast.receiversPerLeaf: 65 is outside 1..64`},
		{"    incast: {retries: 11}\n", `spec.checks.incast.retries: 11 is outside 0..10`},
		{"    incast: {qpTimeout: 32}\n", `spec.checks.incast.qpTimeout: 32 is outside 1..31`},
		{"    incast: {crossLeaf: maybe}\n", `spec.checks.incast.crossLeaf`},
		{"    incast: {bounds: {maxPausedPercent: 101}}\n", `spec.checks.incast.bounds.maxPausedPercent: 101 is outside 0..100`},
		{"    incast: {bounds: {heavyPausedPercent: -1}}\n", `spec.checks.incast.bounds.heavyPausedPercent: -1 is outside 0..100`},
		{"    incast: {bounds: {maxPausedPercent: 10, heavyPausedPercent: 20}}\n", `spec.checks.incast.bounds.heavyPausedPercent: 20 is not below maxPausedPercent 10`},
		{"    incast: {bounds: {heavyPauseFrames: -5}}\n", `spec.checks.incast.bounds.heavyPauseFrames: -5 is negative`},
		{"    incast: {ignore: [rx-prio3-pause]}\n", `spec.checks.incast.ignore[0]: "rx-prio3-pause" is not a counter name`},
		{"    incast: {ignore: [a, a]}\n", `spec.checks.incast.ignore[1]: a is listed twice`},
		{"    incast: {sender: 4}\n", `spec.checks.incast.sender: unknown field (did you mean "senders"?)`},
	}
	for _, c := range cases {
		_, err := Load("f.yaml", Options{ReadFile: memFS(map[string]string{"p.yaml": goodProfile, "f.yaml": withChecks(c.checks)})})
		var errs Errors
		if !errors.As(err, &errs) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v\nwant %s", strings.TrimSpace(c.checks), err, c.want)
		}
	}
}
