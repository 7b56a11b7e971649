package journal

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/hostcfg"
)

// RollbackTimeout bounds the roll-back after a failed apply, which runs
// even when the apply's context was cancelled.
const RollbackTimeout = time.Minute

// Applied is what Dir.Apply did.
type Applied struct {
	// Result is the apply's; after a roll-back, RolledBack also holds every
	// setting restored from the journal.
	Result hostcfg.Result
	// Remaining is what a fresh plan still finds at the end (after the
	// roll-back, when there was one).
	Remaining []hostcfg.Change
	// RolledBack is true when the apply failed and every setting it wrote,
	// on every interface, was restored from the journal; Restored counts
	// the settings that roll-back set back.
	RolledBack bool
	Restored   int
	// Unsettled is set when the apply was verified but its journal could
	// not be removed; the outcome stands, the next apply recovers it.
	Unsettled error
}

// Apply applies p (planned from want) to h under a new journal for
// want.Host, then verifies it with a fresh plan: the apply of `fabricctl
// host apply` on the host itself. When a write, a read-back or the
// verification fails (a setting still differs), every setting the apply
// wrote is restored from the journal — on every interface, not only the one
// that failed — so the host ends as it was; the error says what failed and
// whether the roll-back did too (then the journal stays for Recover).
// Otherwise the journal is settled.
func (d *Dir) Apply(ctx context.Context, h *hostcfg.Host, want fabric.HostIntent, p hostcfg.Plan) (Applied, error) {
	txn, err := d.Begin(want.Host, "")
	if err != nil {
		return Applied{}, fmt.Errorf("journaling the apply: %w", err)
	}
	res, aerr := h.ApplyRecorded(ctx, p, txn)
	rec, ferr := txn.Finish()
	aerr = errors.Join(aerr, ferr)
	out := Applied{Result: res}
	after, verr := h.Observe(ctx, want)
	out.Remaining = hostcfg.Diff(want, after).Changes
	if aerr == nil && verr == nil && len(out.Remaining) == 0 {
		if err := d.Settle(ctx, want.Host, rec.ID); err != nil {
			out.Unsettled = fmt.Errorf("settling the verified apply's journal: %w", err)
		}
		return out, nil
	}
	if aerr == nil && verr == nil {
		aerr = fmt.Errorf("%d setting(s) still differed after apply", len(out.Remaining))
	}
	return out, errors.Join(aerr, verr, d.rollbackAll(ctx, h, want, rec, &out))
}

// rollbackAll restores every setting the apply wrote (its journal), on
// every interface, records what it restored as rolled back and plans again.
func (d *Dir) rollbackAll(ctx context.Context, h *hostcfg.Host, want fabric.HostIntent, rec Record, out *Applied) error {
	if len(rec.Written) == 0 {
		return nil
	}
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), RollbackTimeout)
	defer cancel()
	got, err := d.Recover(rctx, want.Host, h)
	out.Result.RolledBack = append(out.Result.RolledBack, got.Result.Applied...)
	if err != nil {
		return fmt.Errorf("rolling back every interface: %w; the journal stays in %s: fabricctl host recover retries", err, d.path)
	}
	out.RolledBack, out.Restored = true, len(got.Result.Applied)
	after, _ := h.Observe(rctx, want)
	out.Remaining = hostcfg.Diff(want, after).Changes
	return nil
}

// RecoverHosts recovers the pending journals of hosts (Hosts lists every
// host with one) through h, as `fabricctl host recover` does; it returns
// the journals it found and one error per host that failed.
func (d *Dir) RecoverHosts(ctx context.Context, h *hostcfg.Host, hosts []string) ([]Recovered, error) {
	var all []Recovered
	var errs []error
	for _, name := range hosts {
		got, err := d.Recover(ctx, name, h)
		if got.Found {
			all = append(all, got)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("recovering %s: %w", name, err))
		}
	}
	return all, errors.Join(errs...)
}
