package report

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/fabricctl/fabricctl/internal/output"
)

// CongestionProof says which counters one verdict of the incast suite
// (SuiteIncast: incast/lossless, incast/pfc, incast/ecn,
// incast/pause-storm) was judged from on a group of ports of one family:
// the counters read on them, or why the verdict could not be given there
// ("PFC activity not observable on rxe: …"). The results carry each
// port's own evidence; this is the summary a reader checks first.
type CongestionProof struct {
	Check string `json:"check"`
	// Family is the ports' NIC family or switch OS (rxe, mlx5, cumulus);
	// "" when it could not be told.
	Family string `json:"family,omitempty"`
	// Ports are "host/netdev/device:port" or "switch/port", sorted.
	Ports []string `json:"ports"`
	// Counters are the counters the verdict read on these ports, keyed as
	// read ("hw_counters/rcvd_seq_err", "ethtool/rx_prio3_pause", "Rx PFC3").
	Counters []string `json:"counters,omitempty"`
	// NotObservable is why the verdict could not be given on these ports.
	NotObservable string `json:"notObservable,omitempty"`
}

func (r *Report) sortCongestion() {
	r.Congestion = slices.Clone(r.Congestion)
	for i := range r.Congestion {
		p := &r.Congestion[i]
		p.Ports, p.Counters = slices.Sorted(slices.Values(p.Ports)), slices.Sorted(slices.Values(p.Counters))
	}
	slices.SortStableFunc(r.Congestion, func(a, b CongestionProof) int {
		return cmp.Or(cmp.Compare(proofRank(a.Check), proofRank(b.Check)), cmp.Compare(a.Check, b.Check),
			cmp.Compare(a.Family, b.Family), cmp.Compare(a.Ports[0], b.Ports[0]))
	})
}

// proofRank orders the verdicts as the congestion suite asks them: loss
// first, then PFC, ECN and pause storms; others after.
func proofRank(check string) int {
	i := slices.Index([]string{"incast/lossless", "incast/pfc", "incast/ecn", "incast/pause-storm"}, check)
	if i < 0 {
		return 99
	}
	return i
}

// writeCongestion writes the CONGESTION section of the table: per verdict
// of the incast suite and family of ports, the counters that decided it, or
// why it could not be decided.
func writeCongestion(b *strings.Builder, r *Report) {
	if len(r.Congestion) == 0 {
		return
	}
	b.WriteString("\nCONGESTION: which counters proved what (incast)\n")
	for _, p := range r.Congestion {
		what := strings.Join(p.Counters, ", ")
		if p.NotObservable != "" {
			what = "not judged: " + p.NotObservable
		}
		fam := ""
		if p.Family != "" {
			fam = " (" + p.Family + ")"
		}
		fmt.Fprintf(b, "  %s on %s%s: %s\n", p.Check, output.Names(p.Ports), fam, what)
	}
}
