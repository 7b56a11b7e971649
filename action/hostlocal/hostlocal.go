package hostlocal

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/fabricctl/fabricctl/action/view"
	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/hostcfg"
	"github.com/fabricctl/fabricctl/hostcfg/journal"
	"github.com/fabricctl/fabricctl/internal/output"
)

// ErrReported says that the host did not reach the desired state (or a setting could not be
// read) and that Run already reported why: the command exits 1 without another message.
var ErrReported = errors.New("host apply: reported")

// Options say how to apply and where to report.
type Options struct {
	// StateDir is the journal's directory (journal.Open).
	StateDir string
	// DryRun plans and reports only; Yes applies changes that interrupt traffic.
	DryRun, Yes bool
	// Format is the report's output format (output.Write); Stdout gets the report, Stderr
	// "fabricctl: …" lines.
	Format         string
	Stdout, Stderr io.Writer
}

// Run applies d to h and reports: see the package documentation. An error other than
// ErrReported has not been reported.
func Run(ctx context.Context, h *hostcfg.Host, d fabric.HostIntent, o Options) error {
	dir, err := journal.Open(o.StateDir)
	if err != nil {
		return err
	}
	var recovered *journal.Recovered
	if o.DryRun {
		WarnInterrupted(o.Stderr, o.StateDir, d.Host)
	} else if rec, err := dir.Recover(ctx, d.Host, h); err != nil {
		return fmt.Errorf("rolling back an interrupted apply first: %w", err)
	} else if rec.Found {
		recovered = &rec
		fmt.Fprintf(o.Stderr, "fabricctl: rolled back an interrupted apply (%s): restored %d setting(s), %d already were\n",
			rec.Record.Summary(), len(rec.Result.Applied), len(rec.Result.Unchanged))
	}
	obs, oerr := h.Observe(ctx, d)
	p := hostcfg.Diff(d, obs)
	out := view.ApplyReport{APIVersion: fabric.APIVersion, Host: p.Host, DryRun: o.DryRun, Plan: p, Recovered: recovered}
	write := func() error {
		return output.Write(o.Stdout, o.Format, out, out.Table)
	}
	if oerr != nil {
		output.LogErrors(o.Stderr, oerr) // the unreadable settings are left alone; the rest proceeds
	}
	if o.DryRun || p.Empty() {
		if err := write(); err != nil {
			return err
		}
		if oerr != nil {
			return ErrReported
		}
		return nil
	}
	if p.Disruptive() && !o.Yes {
		if err := write(); err != nil {
			return err
		}
		for _, c := range p.Changes {
			if c.Disruptive {
				fmt.Fprintf(o.Stderr, "fabricctl: %s %s %s → %s: %s\n", c.Interface, c.Setting, c.Old, c.New, c.Reason)
			}
		}
		return errors.New("the plan interrupts traffic (above); rerun with --yes to apply it")
	}
	got, aerr := dir.Apply(ctx, h, d, p)
	out.Result, out.Remaining = &got.Result, got.Remaining
	if got.RolledBack {
		fmt.Fprintf(o.Stderr, "fabricctl: rolled back every setting the apply changed (%d restored)\n", got.Restored)
	}
	if err := write(); err != nil {
		return err
	}
	if aerr != nil {
		output.LogErrors(o.Stderr, aerr)
		return ErrReported
	}
	if got.Unsettled != nil {
		output.LogErrors(o.Stderr, got.Unsettled)
	}
	if oerr != nil {
		return ErrReported
	}
	return nil
}

// WarnInterrupted says on w when an interrupted apply's journal is pending for host in stateDir,
// and reports whether one is.
func WarnInterrupted(w io.Writer, stateDir, host string) bool {
	dir, err := journal.Open(stateDir)
	if err != nil {
		return false
	}
	st, err := dir.Status(host)
	if err != nil || !st.Pending {
		return false
	}
	what := "an interrupted apply"
	if st.InProgress {
		what = "an apply in progress"
	}
	fmt.Fprintf(w, "fabricctl: %s (%s) may have left this host half-changed; fabricctl host recover (or host apply) rolls it back\n",
		what, st.Record.Summary())
	return true
}
