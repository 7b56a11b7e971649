// Package evaluate turns measurements into verdicts: bandwidth against an
// absolute floor (a percentage of the port rate sysfs reports) and against
// the fleet's best (an outlier below 93% of it), latency against a bound, and
// counter movements around a test into evidence.
//
//	rate, _ := evaluate.ParsePortRate("100 Gb/sec (4X EDR)") // 100
//	f, _ := evaluate.AbsoluteFloor(92.4, rate, 90)            // pass
//	evaluate.Merge(&result, f)
//
//	deltas := evaluate.Deltas(before, after) // hw_counters, counters, ethtool -S
//	f, evidence := evaluate.EvaluateCounters("gpu-02/mlx5_0", deltas, baseline)
//	// f: fail, CounterEvidence; evidence: "gpu-02/mlx5_0: out_of_sequence +1841
//	//    during the test (out-of-sequence; healthy baseline +12)"
//
// Counter names are those of mlx5 and rxe hw_counters, the IB port counters
// and mlx5's ethtool statistics (KindOf). A Baseline built from healthy runs
// (NewBaseline) says how much each counter may move without meaning anything;
// soft RoCE retransmits a little even when nothing is wrong.
//
// Everything here is pure and safe for concurrent use.
package evaluate
