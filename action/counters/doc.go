// Package counters is `fabricctl counters`: the RoCE/RDMA counters of every
// port of the fabric, hosts and switches, in one table, the view an RDMA
// operator opens first (NetQ's `show roce-counters`).
//
// Each host's agent answers rdma.OpCounters: every RDMA port's
// hw_counters and counters, its netdev's statistics and carrier counts, and
// ethtool -S, each with where it came from. Each switch is read through its
// driver's switchcfg.CounterReader over the same sessions as plan and apply
// (its receive errors and discards per port). Run reads them once, or,
// with an Interval, twice, and turns each port's counters into the
// table's metrics:
//
//	rep, err := counters.RunFabric(ctx, f, reach, counters.Options{Interval: 10 * time.Second})
//	// or Run(ctx, "lab", hosts, counters.NewSwitchSource(f, reach), o) with agents of your own
//	output.Write(os.Stdout, "table", rep, func(t *output.TableWriter) {
//		counters.Table(t, os.Stdout, rep, false) // clean ports on one line
//	})
//
// A metric is the first counter of its list the port has (mlx5's name,
// then rxe's own), or, for symbol/CRC errors, the sum of two such: Metrics
// documents the lists. A counter the port does not have is absent from
// the report and "-" in the table, never 0: rxe has no PFC or ECN
// counters, and a switch driver reads no pause frames. With an interval
// the values are the counters' movements (evaluate.Deltas: a counter in
// one reading only is absent, one cleared in between counts from zero and
// is marked reset), and congestion metrics have a rate per second over
// the time between the two readings on the target's own clock.
//
// A port is clean when none of its loss and error metrics is above zero;
// the table lists clean ports on one summary line unless asked for all.
// JSON and YAML carry every port, every counter and its provenance.
//
// Run and RunFabric are safe for concurrent use; a Report is a value.
package counters
