// Package congestion judges a congestion round from counters: the
// readings of every port (host NIC and switch) before and after the round,
// against what the profile intends (the lossless priorities, whether ECN is
// configured, the thresholds). It answers four questions per port and one
// for the round, as checks.Results:
//
//   - congestion/lossless: no drop on a lossless priority, no out-of-sequence,
//     NAK or retransmit — else fail, naming the port and the counters;
//   - congestion/pfc: pause frames on the lossless priorities only; pause on
//     a lossy priority, or 802.3x global pause, is a misconfigured port;
//   - congestion/ecn: packets marked and CNPs handled (or ECN not
//     configured); heavy pausing with no marking warns: the ECN thresholds
//     sit above the PFC threshold;
//   - congestion/pause-storm: the NIC's stall detector, pause longer than a
//     share of the round, or pause sent on a priority with no traffic;
//   - congestion/pfc-engaged (once): some port paused on a lossless priority.
//
// Absent is not zero. Every counter is read through Table, which names, per
// NIC family (mlx5, rxe, bnxt_re, irdma) and per switch OS (SONiC, Cumulus,
// EOS, Junos, NX-OS), the counters of each Signal with the page that
// documents them. A verdict whose counters the family lacks, or the reading
// lacks, is skip with "not observable" and the reason — on rxe: "PFC activity
// not observable on rxe: losslessness judged from retransmits and sequence
// errors only" — never a pass. Movements come from evaluate.Deltas, so a
// counter in one reading only is not compared, and a counter that went down
// (reset or wrapped) counts from zero as a lower bound.
//
//	ports := []congestion.Port{{Target: "gpu-02", Port: "ens1f0np0/mlx5_0:1",
//		Role: congestion.Receiver, Seconds: 30, Before: b, After: a}}
//	results := congestion.Evaluate(congestion.Intent{Lossless: []int{3}, ECN: true}, ports)
//
// Host keys may carry their source ("ethtool/rx_prio3_pause",
// "hw_counters/np_cnp_sent", as action/counters keys them). Switch counters
// use the names of Table; the switch drivers that read them are elsewhere.
// ParseText reads the text users paste (ethtool -S, hw_counters dumps,
// rdma statistic) into counters.
//
// Everything here is pure and safe for concurrent use.
package congestion
