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
// and mlx5's ethtool statistics (KindOf). Counters are judged against the
// healthy spread of a fleet, not "a counter moved": NewSpreads takes the
// samples of healthy tests (each side's deltas and the GB its test moved),
// and Spreads.Judge says whether a sample lies beyond mean + k·σ per GB
// (σ at least the counting noise of the expected number), moved at least
// MinEvents and is not ignored:
//
//	base := evaluate.NewSpreads(healthySamples)
//	f, evidence := base.Judge(evaluate.Sample{Subject: "gpu-02/mlx5_0", Deltas: deltas, GB: 61.2},
//		evaluate.Rules{Sigma: 4, MinEvents: 10})
//
// The older Baseline (NewBaseline, EvaluateCounters) allows each counter the
// largest movement seen in healthy runs.
//
// Everything here is pure and safe for concurrent use.
package evaluate
