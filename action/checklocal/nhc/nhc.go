package nhc

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/fabricctl/fabricctl/checks"
	"github.com/fabricctl/fabricctl/checks/report"
	"github.com/fabricctl/fabricctl/internal/output"
)

// The exit codes of `fabricctl check --local -o nhc`. They are node-problem-detector's custom
// plugin statuses (OK 0, NonOK 1, Unknown 2; pkg/custompluginmonitor/types); Slurm ignores the
// exit status of a HealthCheckProgram and reads nothing of its output: the program drains.
const (
	// Healthy: every check passed (warnings and skips included); nothing is printed.
	Healthy = 0
	// Unhealthy: a check failed; one ERROR line says which.
	Unhealthy = 1
	// Unknown: no check failed but some could not decide, or the budget ran out; one ERROR line.
	Unknown = 2
)

// Prefix starts the one line printed when the node is not healthy, as LBNL NHC's
// "ERROR: nhc: …" lines do.
const Prefix = "ERROR: fabricctl: "

// DefaultBudget is how long a check may take: Slurm kills a HealthCheckProgram after 60 s.
const DefaultBudget = 50 * time.Second

// MaxLine bounds the line (NPD keeps max_output_length bytes of it; Slurm's drain reason the
// same line without the prefix).
const MaxLine = 240

// Verdict is the answer of one health check.
type Verdict struct {
	Code int
	// Reason is the problem in one line, without Prefix ("" when healthy).
	Reason string
}

// Line is what is printed: "" when healthy, else Prefix and the reason on one line (runs of
// blanks, tabs and newlines become one space), cut to MaxLine bytes at a character boundary.
func (v Verdict) Line() string {
	if v.Code == Healthy {
		return ""
	}
	return output.OneLine(Prefix+v.Reason, MaxLine)
}

// Write prints the line (nothing when healthy).
func (v Verdict) Write(w io.Writer) error {
	if l := v.Line(); l != "" {
		_, err := fmt.Fprintln(w, l)
		return err
	}
	return nil
}

// FromReport judges a report: the first failure (in report order: preflight before loopback)
// names the problem, with how many more there are; with no failure, the first check that could
// not decide.
func FromReport(rep *report.Report) Verdict {
	var fails, errs []checks.Result
	for _, r := range rep.Results {
		switch r.Status {
		case checks.StatusFail:
			fails = append(fails, r)
		case checks.StatusError:
			errs = append(errs, r)
		}
	}
	for _, p := range rep.Pairs {
		r := checks.Result{ID: p.ID(), Target: p.Target(), Status: p.Status, Summary: p.Summary}
		switch p.Status {
		case checks.StatusFail:
			fails = append(fails, r)
		case checks.StatusError:
			errs = append(errs, r)
		}
	}
	switch {
	case len(fails) > 0:
		return Verdict{Code: Unhealthy, Reason: describe(fails)}
	case len(errs) > 0:
		return Verdict{Code: Unknown, Reason: "could not decide: " + describe(errs)}
	}
	return Verdict{Code: Healthy}
}

func describe(rs []checks.Result) string {
	r := rs[0]
	s := fmt.Sprintf("%s %s: %s", r.ID, r.Target, r.Summary)
	if len(rs) > 1 {
		s += fmt.Sprintf(" (+%d more)", len(rs)-1)
	}
	return strings.Join(strings.Fields(s), " ")
}

// Run runs check within budget and judges its report. check gets a context that ends a little
// before the budget; if it has not returned when the budget is spent, Run returns Unknown at
// once without waiting for it (a read of a hung device must not hold the answer back): the
// caller then exits, taking whatever check started with it.
func Run(ctx context.Context, budget time.Duration, check func(context.Context) (*report.Report, error)) Verdict {
	if budget <= 0 {
		budget = DefaultBudget
	}
	soft := budget - budget/10
	cctx, cancel := context.WithTimeout(ctx, soft)
	defer cancel()
	type answer struct {
		rep *report.Report
		err error
	}
	done := make(chan answer, 1)
	t0 := time.Now()
	go func() {
		rep, err := check(cctx)
		done <- answer{rep, err}
	}()
	hard := time.NewTimer(budget)
	defer hard.Stop()
	select {
	case a := <-done:
		switch {
		case a.err != nil && cctx.Err() != nil && ctx.Err() == nil:
			return Verdict{Code: Unknown, Reason: fmt.Sprintf("checks did not finish within the %s budget: %v", budget, a.err)}
		case a.err != nil:
			return Verdict{Code: Unknown, Reason: "could not check: " + a.err.Error()}
		case a.rep == nil:
			return Verdict{Code: Unknown, Reason: "could not check: no report"}
		}
		return FromReport(a.rep)
	case <-hard.C:
		return Verdict{Code: Unknown, Reason: fmt.Sprintf("checks did not finish within the %s budget (stopped after %s)", budget, time.Since(t0).Round(time.Second))}
	case <-ctx.Done():
		return Verdict{Code: Unknown, Reason: "interrupted: " + ctx.Err().Error()}
	}
}
