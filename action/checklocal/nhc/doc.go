// Package nhc turns a local check into a node health check's answer, in the convention of LBNL
// NHC (github.com/mej/nhc) that Slurm sites and node-problem-detector plugins rely on: nothing on
// stdout when the node is healthy, else exactly one line
//
//	ERROR: fabricctl: preflight/rdma-device lab-h3/eth0: netdev eth0 has no RDMA device
//
// and an exit code NPD's custom plugin monitor reads as OK (0), NonOK (1: a check failed) or
// Unknown (2: no check failed but some could not decide, or the budget ran out).
//
//	v := nhc.Run(ctx, nhc.DefaultBudget, func(ctx context.Context) (*report.Report, error) { return checklocal.Run(ctx, o) })
//	v.Write(os.Stdout)
//	os.Exit(v.Code)
//
// Run answers within its budget (default 50 s; Slurm kills a HealthCheckProgram after 60 s and
// NPD a plugin after its timeout) even when the check hangs in a device read: it does not wait
// for the check past the budget. Every function is safe for concurrent use.
package nhc
