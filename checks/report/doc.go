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
// script), escapes every string through html/template, and opens with its
// verdict: the worst status in a word and its colour and, on a failure, the
// components to blame by name, each with its reason and its count of
// evidence — the localiser's Suspects, then the hosts HostVerdicts fails,
// then the path between two hosts whose failed pairs no blamed host
// explains — and the warnings and undecided checks, alike ones grouped.
// For each pair test it shows a hosts × hosts heatmap: a cell is the worst
// measurement between its two hosts in either direction and prints its
// value; its hue is the verdict (pass blue, warn amber, fail red) and its
// shade the distance from the pass criterion (Criteria; without them 93%
// of the sweep's best), computed on the pairs only, so the loopback
// diagonal, another test, is shown grey and off the scale; failed cells are
// outlined. Every cell carries data-a, data-b, data-test, data-status and
// data-gbps (or data-usec for latency tests) with the exact JSON value, and
// a tooltip with the value and the verdict. The page names its Generator
// (the fabricctl version and revision, set by the command), the Criteria,
// and the Topology's host cables when the report has one; printed, it
// leaves out the full results table and long evidence, so a healthy
// four-host lab fits on two pages.
//
// Writers validate first (Validate names the offending entry) and never
// modify the Report. A Report is a plain value: fill it from one goroutine;
// once filled, any number of writers may read it concurrently.
package report
