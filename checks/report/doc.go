// Package report turns the outcome of `fabricctl check` into the four forms
// people and machines read: an aligned table for the terminal, JSON for
// scripts, JUnit XML for CI servers and a self-contained HTML page with a
// pairwise bandwidth heatmap.
//
// A Report holds the Results of checks about one target (preflight, loopback,
// NCCL) and the Pairs measured between two hosts:
//
//	r := report.New("lab", started, report.SuitePreflight, report.SuiteLoopback, report.SuitePairwise)
//	r.Add(preflightResults...)            // []checks.Result
//	for _, res := range pairwiseResults { // Target "gpu-01/mlx5_0->gpu-02/mlx5_0"
//		p, err := report.PairOf(res, "bw_average")
//		if err != nil {
//			return err
//		}
//		r.AddPairs(p)
//	}
//	r.Finished = time.Now()
//
//	report.WriteTable(os.Stdout, r) // or WriteJSON, WriteJUnit, WriteHTML
//
// The table prints one line per check and per pair, failures first (error,
// fail, warn, skip, pass), then the evidence of what failed, then one line of
// counts:
//
//	STATUS  SUITE      CHECK              TARGET                        VALUE       CLASS             SUMMARY
//	FAIL    pairwise   pairwise/write_bw  gpu-02/mlx5_0->gpu-04/mlx5_0  61.30 Gb/s  counter-evidence  61.30 Gb/s, …
//	PASS    preflight  preflight/mtu      gpu-01/mlx5_0                 -           -                 MTU 9000
//	…
//	RESULT: FAIL, 16 checks (15 pass, …), 6 pairs (5 pass, 0 warn, 1 fail, 0 skip, 0 error)
//
// JSON carries apiVersion fabricctl.io/v1alpha1 and kind CheckReport, results
// sorted by target then ID, pairs by test, server and client, and a summary;
// ReadJSON reads it back strictly, so a saved report can be rendered again.
// JUnit has one testsuite per suite and one testcase per check (name = check
// ID, classname = target) and per pair; fail and error carry the summary as
// message, the checks.FailureClass as type and the evidence as text.
//
// The HTML page loads nothing from the network (inline CSS and SVG, no
// script), escapes every string through html/template, and shows for each
// pair test a hosts × hosts heatmap: a cell is the worst measurement between
// its two hosts in either direction, the diagonal is the host's loopback
// result of the same test, the colour runs from the worst value to the best
// (spanning at least 20% of the best, so a healthy fleet stays blue), and
// failed pairs are outlined. Every cell carries data-a, data-b, data-test,
// data-status and data-gbps (or data-usec for latency tests) with the exact
// JSON value, and a tooltip with the value and the verdict.
//
// Writers validate first (Validate names the offending entry) and never
// modify the Report. A Report is a plain value: fill it from one goroutine;
// once filled, any number of writers may read it concurrently.
package report
