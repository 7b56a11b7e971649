package runner

import (
	"fmt"
	"strings"

	"github.com/fabricctl/fabricctl/checks"
	"github.com/fabricctl/fabricctl/checks/localize"
	"github.com/fabricctl/fabricctl/checks/report"
	"github.com/fabricctl/fabricctl/checks/topology"
)

// Observations turns a report's bandwidth pairs into the localiser's
// observations: the client (B) sent to the server (A). A pair that failed
// with completion errors, a timeout or loss counters is lossy; one that
// produced no value for another reason (the out-of-band connection, a
// missing tool, an unusable host) is void, since it says nothing about the
// path. endpoint names the test endpoint of a host and its RDMA device
// (nil: the host name, right for hosts with one cabled NIC).
func Observations(pairs []report.Pair, endpoint func(host, device string) string) []localize.Observation {
	if endpoint == nil {
		endpoint = func(host, _ string) string { return host }
	}
	var out []localize.Observation
	for _, p := range pairs {
		if p.Unit != checks.UnitGbps {
			continue
		}
		o := localize.Observation{Client: endpoint(p.B, p.DeviceB), Server: endpoint(p.A, p.DeviceA), Detail: p.Summary}
		if p.Value != nil {
			o.Gbps = *p.Value
		}
		switch {
		case p.Class == checks.CompletionError || p.Class == checks.Timeout || p.Class == checks.CounterEvidence && lossEvidence(p.Evidence):
			o.Loss = true
		case p.Value == nil:
			o.Outcome = localize.Void
		}
		out = append(out, o)
	}
	return out
}

// lossEvidence reports whether counter evidence lines name loss (what
// checks/evaluate writes: "… (out-of-sequence; …)", "(retransmit…").
func lossEvidence(lines []string) bool {
	for _, l := range lines {
		for _, k := range []string{"(retransmit", "(out-of-sequence", "(sequence-error", "(drop", "(error"} {
			if strings.Contains(l, k) {
				return true
			}
		}
	}
	return false
}

// AttachSuspects localises the failures among rep's pairwise results over
// topo and writes the suspects and the topology into the report, for the
// table, JSON and HTML writers. It does nothing when the report has no
// bandwidth pairs or the topology no cabled host.
func AttachSuspects(rep *report.Report, topo *topology.Topology, endpoint func(host, device string) string, o localize.Options) error {
	obs := Observations(rep.Pairs, endpoint)
	if len(obs) == 0 || topo == nil {
		return nil
	}
	m, err := localize.NewModel(topo, o)
	if err != nil {
		return fmt.Errorf("localising failures: %w", err)
	}
	l := localize.New(m, o)
	if err := l.Add(obs...); err != nil {
		return fmt.Errorf("localising failures: %w", err)
	}
	rep.Suspects = l.Analyze().Suspects
	rep.Topology = topo
	return nil
}
