package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/fabricctl/fabricctl/action/check"
	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/internal/ctxio"
)

// lineInterval is the most often line-mode progress prints a line (the
// last target of a phase and every failure always get one).
const lineInterval = 5 * time.Second

// engine is the plan/apply engine of the command, its progress on stderr.
func (g *globals) engine() *fabric.Engine {
	return &fabric.Engine{Parallel: g.parallel, Log: g.log, Progress: progress(g.stderr, ctxio.IsTerminal(g.stderr), time.Now)}
}

// progress reports the engine's events on w. On a terminal one line is
// redrawn in place (carriage return, erase line) and ended when a phase is
// done. Anywhere else (a CI log, a file) whole lines are written, never a
// carriage return: a line when a target failed, when a phase is done, and
// otherwise at most one every lineInterval, each with the count done, the
// failures and the time since the engine was built.
func progress(w io.Writer, tty bool, now func() time.Time) func(fabric.Event) {
	if tty {
		return func(ev fabric.Event) {
			fmt.Fprintf(w, "\r\033[K%s %d/%d %s", ev.Phase, ev.Done, ev.Total, ev.Target)
			if ev.Done == ev.Total {
				fmt.Fprintln(w)
			}
		}
	}
	start := now()
	last := start
	phase, failed := "", 0
	// The engine calls Progress under its lock: one event at a time.
	return func(ev fabric.Event) {
		if ev.Phase != phase {
			phase, failed = ev.Phase, 0
		}
		if ev.Err != nil {
			failed++
		}
		t := now()
		if ev.Err == nil && ev.Done < ev.Total && t.Sub(last) < lineInterval {
			return
		}
		last = t
		head, fails := "", ""
		if ev.Err != nil {
			head = ev.Target + " failed; "
		}
		if failed > 0 {
			fails = fmt.Sprintf(" (%d failed)", failed)
		}
		fmt.Fprintf(w, "fabricctl: %s: %s%d/%d targets done%s, %s elapsed\n", ev.Phase, head, ev.Done, ev.Total, fails, check.Duration(t.Sub(start)))
	}
}

// withTimeout bounds ctx by --timeout (0: no bound).
func (g *globals) withTimeout(ctx context.Context) (context.Context, context.CancelFunc) {
	if g.timeout > 0 {
		return context.WithTimeout(ctx, g.timeout)
	}
	return context.WithCancel(ctx)
}

// timeoutGiven reports whether --timeout was given on the command line.
func timeoutGiven(cmd *cobra.Command) bool {
	if f := cmd.Flags().Lookup("timeout"); f != nil && f.Changed {
		return true
	}
	return cmd.Root().PersistentFlags().Changed("timeout")
}

// checkLimit is check's time limit: --timeout when given (0: none), else
// the one derived from the estimate of its schedule.
func checkLimit(explicit bool, timeout time.Duration, e check.Estimate) (time.Duration, string) {
	switch {
	case explicit && timeout <= 0:
		return 0, "no time limit (--timeout 0)"
	case explicit:
		return timeout, "time limit " + check.Duration(timeout) + " (--timeout)"
	}
	l := e.Limit()
	return l, "time limit " + check.Duration(l)
}

// checkContext prints the estimate of a check run on stderr and returns the
// command's context under the run's time limit (checkLimit).
func checkContext(cmd *cobra.Command, g *globals, e check.Estimate) (context.Context, context.CancelFunc) {
	limit, says := checkLimit(timeoutGiven(cmd), g.timeout, e)
	if e.Hosts > 0 { // none: the run says so
		fmt.Fprintf(g.stderr, "fabricctl: %s; %s\n", e, says)
	}
	ctx := cmd.Context()
	if ctx == nil {
		ctx = context.Background()
	}
	if limit > 0 {
		return context.WithTimeout(ctx, limit)
	}
	return context.WithCancel(ctx)
}
