package evaluate

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/fabricctl/fabricctl/checks"
)

// Counters are counter values read at one moment, by name: the files of
// /sys/class/infiniband/<dev>/ports/<n>/hw_counters/ and counters/, and the
// lines of ethtool -S <netdev>.
type Counters map[string]uint64

// Kind groups counters by what their movement means.
type Kind string

// The kinds of counters fabricctl reads as evidence.
const (
	Retransmit    Kind = "retransmit"      // the sender resent: timeouts, duplicates seen by the responder
	OutOfSequence Kind = "out-of-sequence" // packets arrived out of order: loss upstream
	SeqError      Kind = "sequence-error"  // PSN sequence errors / NAKs
	Drop          Kind = "drop"            // packets dropped for lack of buffers
	Error         Kind = "error"           // completion, access and link errors
	Pause         Kind = "pause"           // PFC / 802.3x pause frames
	PauseStorm    Kind = "pause-storm"     // the NIC's pause-storm detector fired
	ECNMark       Kind = "ecn-mark"        // packets arrived with CE set
	CNP           Kind = "cnp"             // DCQCN congestion notification packets sent or handled
)

// severity says how a kind moving beyond its baseline is judged: loss and
// errors fail the test; congestion signals, normal in a lossless fabric under
// load, warn.
var severity = map[Kind]checks.Status{
	Retransmit: checks.StatusFail, OutOfSequence: checks.StatusFail, SeqError: checks.StatusFail,
	Drop: checks.StatusFail, Error: checks.StatusFail, PauseStorm: checks.StatusFail,
	Pause: checks.StatusWarn, ECNMark: checks.StatusWarn, CNP: checks.StatusWarn,
}

// Loss reports whether a counter of kind k moving beyond its baseline
// means packets were lost or the transport failed on the way: retransmits,
// out-of-sequence arrivals, sequence-error NAKs, drops and errors. Pause,
// pause storms, ECN marks and CNPs slow a flow without losing it.
func (k Kind) Loss() bool {
	switch k {
	case Retransmit, OutOfSequence, SeqError, Drop, Error:
		return true
	}
	return false
}

// counterKinds names the counters of mlx5 and rxe (DESIGN.md §4.3), the IB
// port counters, and the mlx5 ethtool statistics.
var counterKinds = map[string]Kind{
	// mlx5 hw_counters
	"out_of_sequence": OutOfSequence, "packet_seq_err": SeqError, "implied_nak_seq_err": SeqError,
	"local_ack_timeout_err": Retransmit, "rnr_nak_retry_err": Retransmit, "duplicate_request": Retransmit,
	"roce_adp_retrans": Retransmit, "roce_adp_retrans_to": Retransmit, "roce_slow_restart": Retransmit,
	"out_of_buffer": Drop,
	"req_cqe_error": Error, "resp_cqe_error": Error, "req_remote_access_errors": Error,
	"req_remote_invalid_request": Error, "resp_local_length_error": Error, "resp_remote_access_errors": Error,
	"np_cnp_sent": CNP, "rp_cnp_handled": CNP, "rp_cnp_ignored": CNP, "roce_slow_restart_cnps": CNP,
	"np_ecn_marked_roce_packets": ECNMark,
	// rxe hw_counters (duplicate_request is shared with mlx5)
	"out_of_seq_request": OutOfSequence, "rcvd_seq_err": SeqError,
	"completer_retry_err": Retransmit, "retry_exceeded_err": Retransmit, "retry_rnr_exceeded_err": Retransmit,
	"rcvd_rnr_err": Retransmit, "send_rnr_err": Retransmit, "link_downed": Error, "send_err": Error,
	// IB port counters (counters/)
	"symbol_error": Error, "link_error_recovery": Error, "port_rcv_errors": Error,
	"port_rcv_remote_physical_errors": Error, "local_link_integrity_errors": Error,
	"excessive_buffer_overrun_errors": Drop, "port_xmit_discards": Drop, "port_rcv_switch_relay_errors": Error,
	// mlx5 ethtool -S
	"rx_discards_phy": Drop, "tx_discards_phy": Drop, "rx_out_of_buffer": Drop,
	"rx_pause_ctrl_phy": Pause, "tx_pause_ctrl_phy": Pause,
	"tx_pause_storm_warning_events": PauseStorm, "tx_pause_storm_error_events": PauseStorm,
	"rx_ecn_mark": ECNMark,
}

var (
	prioPauseRe   = regexp.MustCompile(`^(?:rx|tx)_prio[0-7]_pause$`)
	prioDiscardRe = regexp.MustCompile(`^(?:rx|tx)_prio[0-7]_discards$`)
)

// KindOf returns the kind of a counter name, and false for counters that carry
// no evidence (traffic counts, durations).
func KindOf(name string) (Kind, bool) {
	if k, ok := counterKinds[name]; ok {
		return k, true
	}
	switch {
	case prioPauseRe.MatchString(name):
		return Pause, true
	case prioDiscardRe.MatchString(name):
		return Drop, true
	}
	return "", false
}

// Delta is how one counter moved between two readings.
type Delta struct {
	Name   string `json:"name"`
	Kind   Kind   `json:"kind,omitempty"`
	Before uint64 `json:"before"`
	After  uint64 `json:"after"`
	Delta  uint64 `json:"delta"`
	// Reset is set when After < Before: the counter was cleared (or wrapped)
	// in between, and Delta is After, a lower bound.
	Reset bool `json:"reset,omitempty"`
}

// Deltas returns the movement of every counter present in both readings, by
// name. Counters only in one reading are skipped: they cannot be compared.
func Deltas(before, after Counters) []Delta {
	var out []Delta
	for name, a := range after {
		b, ok := before[name]
		if !ok {
			continue
		}
		d := Delta{Name: name, Before: b, After: a}
		d.Kind, _ = KindOf(name)
		if a >= b {
			d.Delta = a - b
		} else {
			d.Delta, d.Reset = a, true
		}
		out = append(out, d)
	}
	slices.SortFunc(out, func(x, y Delta) int { return strings.Compare(x.Name, y.Name) })
	return out
}

// Baseline is how far each counter may move during one healthy test: on soft
// RoCE, emulation alone causes some retransmits.
type Baseline map[string]uint64

// NewBaseline takes, for every counter, the largest movement seen in healthy
// runs.
func NewBaseline(healthy ...[]Delta) Baseline {
	b := Baseline{}
	for _, run := range healthy {
		for _, d := range run {
			if d.Delta > b[d.Name] {
				b[d.Name] = d.Delta
			}
		}
	}
	return b
}

// EvaluateCounters judges the deltas of one subject (a host's device port, named
// "gpu-02/mlx5_0") against the baseline. Every evidence counter that moved
// more than its baseline allows yields an evidence line; the finding is the
// worst severity among them (fail for loss and errors, warn for pause, ECN and
// CNP), with class CounterEvidence.
func EvaluateCounters(subject string, deltas []Delta, baseline Baseline) (Finding, []string) {
	status := checks.StatusPass
	var evidence, names []string
	var kinds []Kind
	for _, d := range deltas {
		if d.Kind == "" || d.Delta <= baseline[d.Name] {
			continue
		}
		line := fmt.Sprintf("%s: %s +%d during the test (%s", subject, d.Name, d.Delta, d.Kind)
		if base, ok := baseline[d.Name]; ok {
			line += fmt.Sprintf("; healthy baseline +%d", base)
		}
		if d.Reset {
			line += "; counter was reset, so at least this much"
		}
		evidence = append(evidence, line+")")
		names = append(names, d.Name)
		kinds = AppendKinds(kinds, d.Kind)
		if sev := severity[d.Kind]; sev.Worse(status) {
			status = sev
		}
	}
	if status == checks.StatusPass {
		return Finding{Status: checks.StatusPass, Summary: "ok: no error or congestion counter moved beyond its baseline"}, nil
	}
	return Finding{Status: status, Class: checks.CounterEvidence,
		Summary: fmt.Sprintf("%s: %s moved during the test", subject, strings.Join(names, ", ")), Kinds: kinds}, evidence
}
