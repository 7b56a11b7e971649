package report

import (
	"time"

	"github.com/fabricctl/fabricctl/checks"
)

func gbps(v float64) *float64 { return &v }

// fixture is a constructed run over four hosts: preflight on each (gpu-03's
// GPU link is downgraded), loopback on each, all six pairs of write_bw (the
// gpu-02 → gpu-04 pair fails with counter evidence, gpu-01 → gpu-03 warns as
// an outlier), two latency pairs, one skipped and one errored check, and one
// NCCL finding. The results are deliberately out of order.
func fixture() *Report {
	start := time.Date(2025, 3, 14, 9, 26, 53, 0, time.UTC)
	r := New("lab", start, SuitePairwise, SuitePreflight, SuiteLoopback, SuiteNCCL)
	r.Finished = start.Add(4*time.Minute + 12*time.Second + 500*time.Millisecond)
	hosts := []string{"gpu-04", "gpu-02", "gpu-01", "gpu-03"}
	for i, h := range hosts {
		r.Add(
			checks.Result{ID: "preflight/port-active", Target: h + "/mlx5_0", Status: checks.StatusPass,
				Summary: "port 1 ACTIVE, LinkUp at 100 Gb/sec (4X EDR)"},
			checks.Result{ID: "preflight/roce-v2-gid", Target: h + "/mlx5_0", Status: checks.StatusPass,
				Summary: "RoCE v2 IPv4 GID at index 3"},
			checks.Result{ID: "loopback/write_bw", Target: h + "/mlx5_0", Status: checks.StatusPass,
				Summary:      "loopback at 98% of the 100 Gb/s port rate",
				Measurements: []checks.Measurement{{Name: "bw_average", Value: 97.9 + float64(i)/10, Unit: checks.UnitGbps}}},
		)
	}
	r.Add(
		checks.Result{ID: "preflight/pcie-link", Target: "gpu-03/0000:41:00.0", Status: checks.StatusFail,
			Summary:  "GPU PCIe link runs at 16 GT/s x8, capable of 32 GT/s x16",
			Evidence: []string{"LnkCap: Speed 32GT/s, Width x16", "LnkSta: Speed 16GT/s (downgraded), Width x8 (downgraded)"}},
		checks.Result{ID: "preflight/peer-memory", Target: "gpu-01", Status: checks.StatusSkip,
			Summary: "no GPU on this host"},
		checks.Result{ID: "preflight/versions", Target: "gpu-02", Status: checks.StatusError, Class: checks.MissingTool,
			Summary: "ib_write_bw not found in PATH"},
		checks.Result{ID: "nccl/network", Target: "gpu-04", Status: checks.StatusWarn,
			Summary:  "rank 3 fell back to NET/Socket on channel 2",
			Evidence: []string{"gpu-04:1234:1290 [3] NCCL INFO Channel 02/0 : 3[3] -> 0[0] [send] via NET/Socket/0"}},
	)
	pair := func(a, b string, v float64, st checks.Status, class checks.FailureClass, summary string, ev ...string) Pair {
		return Pair{A: a, B: b, DeviceA: "mlx5_0", DeviceB: "mlx5_0", Test: "write_bw", Value: gbps(v), Unit: checks.UnitGbps,
			Status: st, Class: class, Summary: summary, Evidence: ev}
	}
	r.AddPairs(
		pair("gpu-03", "gpu-04", 96.84, checks.StatusPass, "", "97% of port rate"),
		pair("gpu-02", "gpu-04", 61.3, checks.StatusFail, checks.CounterEvidence,
			"61.30 Gb/s, 61% of the 100 Gb/s port rate; retransmits on gpu-04",
			"gpu-04/mlx5_0: out_of_sequence +1841 during the test (out-of-sequence; healthy baseline +12)",
			"gpu-04/mlx5_0: packet_seq_err +212 during the test (sequence-error; healthy baseline +0)"),
		pair("gpu-01", "gpu-02", 97.41, checks.StatusPass, "", "97% of port rate"),
		pair("gpu-01", "gpu-03", 89.7, checks.StatusWarn, checks.LowBandwidth, "89.70 Gb/s is below 93% of the fleet's best (97.41 Gb/s)"),
		pair("gpu-01", "gpu-04", 97.12, checks.StatusPass, "", "97% of port rate"),
		pair("gpu-02", "gpu-03", 97.05, checks.StatusPass, "", "97% of port rate"),
		Pair{A: "gpu-01", B: "gpu-02", Test: "write_lat", Value: gbps(1.87), Unit: checks.UnitUsec, Status: checks.StatusPass,
			Summary: "typical 1.87 us within the 5 us bound"},
		Pair{A: "gpu-03", B: "gpu-04", Test: "write_lat", Unit: checks.UnitUsec, Status: checks.StatusError, Class: checks.QPBringUp,
			Summary:  "Failed to modify QP to RTR",
			Evidence: []string{"server gpu-03: Failed to modify QP 0x0117 to RTR", "client gpu-04: Couldn't connect to gpu-03:18516"}},
	)
	return r
}
