// Package checks holds what every fabricctl check has in common: the
// structured Result a check returns, its Status, the FailureClass that names
// the cause of a failure, and the small Check interface a runner fans out.
//
// A check is a unit of work that proves one thing about one target: "port 1 of
// mlx5_0 on gpu-01 is ACTIVE at 400 Gb/s", or "gpu-01/mlx5_0 → gpu-02/mlx5_0
// carries 92% of line rate". It never returns a Go error for a failed proof;
// it returns Results, so that a sweep over a thousand pairs keeps going and
// every failure arrives with its cause:
//
//	r := checks.Result{
//		ID:      "pairwise/write_bw",
//		Target:  "gpu-01/mlx5_0->gpu-02/mlx5_0",
//		Status:  checks.StatusFail,
//		Class:   checks.LowBandwidth,
//		Summary: "74.2 Gb/s is below 90% of the 100 Gb/s port rate",
//		Measurements: []checks.Measurement{
//			{Name: "bw_average", Value: 74.2, Unit: checks.UnitGbps},
//		},
//		Evidence: []string{"gpu-02 mlx5_0 out_of_sequence +1841 during the test"},
//	}
//
// A runner builds one Check per unit of work (a host, a device, a pair in a
// round), runs many of them concurrently and collects what they return; the
// schedule package decides which pairs may run at the same time. Worst folds
// a set of results into the status that decides the exit code.
//
// The sub-packages are pure (text in, structs out) and golden-tested:
// perftest parses ib_*_bw/ib_*_lat output and builds their argv, hostparse
// reads ibv_devinfo, ibstat, show_gids, ibdev2netdev, nvidia-smi topo -m and
// lspci -vvv, pcitopo classifies GPU↔NIC affinity from a PCIe tree, schedule
// pairs hosts into rounds, evaluate turns measurements into verdicts and
// counter deltas into evidence, and nccl analyses NCCL_DEBUG=INFO logs.
//
// Everything in this package is a plain value; Results may be shared between
// goroutines once written. A Check's own concurrency guarantees are stated by
// its implementation.
package checks
