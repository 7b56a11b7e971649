package switchcfg

import (
	"context"
	"errors"
	"fmt"
)

// Confirmed is the part of a push that follows a confirmed commit (NVUE's
// apply --confirm, EOS's commit timer, Junos's commit confirmed), shared by
// the drivers of the NOSes that have one: verify while the commit waits
// for its confirm, confirm, and after a lost reply find out — on the
// session in use or a new one — what the switch did and finish the
// transaction from there. The driver supplies the NOS's commands as
// functions; they run on Recovery.Session(). A Confirmed serves one push
// and is not safe for concurrent use.
type Confirmed struct {
	Platform string
	Opt      PushOptions
	Recovery *Recovery
	// Result is the push's result, filled in as the transaction goes.
	Result *PushResult
	// ConfirmLine is the confirm command (PushError.Line of the step).
	ConfirmLine string
	// Pending asks whether the push's confirmed commit waits for its
	// confirm, reconnecting (Recovery.Do) when the session is lost.
	Pending func(ctx context.Context) (bool, error)
	// Confirm confirms the waiting commit.
	Confirm func(ctx context.Context) error
	// RollBack rolls the waiting commit back now.
	RollBack func(ctx context.Context) error
	// NotCommitted handles a commit command whose reply was lost and which
	// never ran: it discards the candidate and reports the failure.
	NotCommitted func(step, line string, cause error) (PushResult, error)
	// VerifySession is the session Verify reads through; nil: Recovery's.
	VerifySession func() Session
	// Finish runs after the confirm (EOS saves); nil: committed.
	Finish func(ctx context.Context) (PushResult, error)
}

// Fail builds the PushError of a step.
func (c *Confirmed) Fail(step, line string, cause error) *PushError {
	return &PushError{Platform: c.Platform, Step: step, Line: line, Err: cause, Window: c.Opt.Timeout()}
}

// Done returns the result with pe, recording whether it rolled back.
func (c *Confirmed) Done(pe *PushError) (PushResult, error) {
	c.Result.RolledBack = pe.RolledBack
	return *c.Result, pe
}

func (c *Confirmed) verifySession() Session {
	if c.VerifySession != nil {
		return c.VerifySession()
	}
	return c.Recovery.Session()
}

func (c *Confirmed) finish(ctx context.Context) (PushResult, error) {
	if c.Finish != nil {
		return c.Finish(ctx)
	}
	c.Result.Committed = true
	return *c.Result, nil
}

// VerifyAndConfirm runs PushOptions.Verify while the confirmed commit can
// still be rolled back (a difference rolls it back now), then confirms.
func (c *Confirmed) VerifyAndConfirm(ctx context.Context) (PushResult, error) {
	if c.Opt.Verify != nil {
		if err := c.Opt.Verify(ctx, c.verifySession()); err != nil {
			return c.RollBackNow(ctx, "verifying", "", err)
		}
	}
	if err := c.Confirm(ctx); err != nil {
		if Lost(err) {
			return c.AfterLost(ctx, "confirming", c.ConfirmLine, err)
		}
		return c.RollBackNow(ctx, "confirming", c.ConfirmLine, err)
	}
	return c.finish(ctx)
}

// AfterLost finishes the transaction after the reply of the commit (step
// "committing") or of the confirm ("confirming") was lost: a commit still
// waiting is verified and confirmed (a confirm is sent again, once); none
// waiting means the commit never ran (before the confirm) or the confirm
// took (after it). When the switch cannot be asked, the outcome is Unknown.
func (c *Confirmed) AfterLost(ctx context.Context, step, line string, cause error) (PushResult, error) {
	ctx, cancel := RecoveryContext(ctx)
	defer cancel()
	pending, err := c.Pending(ctx)
	switch {
	case err != nil:
		pe := c.Fail(step, line, fmt.Errorf("%w; asking the switch what it did: %w", cause, err))
		pe.Unknown = true
		return c.Done(pe)
	case pending && step == "confirming":
		if err := c.Confirm(ctx); err != nil {
			return c.RollBackNow(ctx, step, line, errors.Join(cause, fmt.Errorf("confirming again: %w", err)))
		}
		return c.finish(ctx)
	case pending:
		return c.VerifyAndConfirm(ctx)
	case step == "committing":
		return c.NotCommitted(step, line, cause)
	}
	if c.Opt.Verify != nil {
		if err := c.Opt.Verify(ctx, c.Recovery.Session()); err != nil {
			return c.Done(c.Fail(step, line, fmt.Errorf("%w; no confirm is pending, but the read-back differs: %w", cause, err)))
		}
	}
	return c.finish(ctx)
}

// RollBackNow rolls the waiting commit back now. The push never confirmed
// it, so once nothing waits for a confirm any more the change is gone;
// while the switch cannot say so, its own confirm timer will.
func (c *Confirmed) RollBackNow(ctx context.Context, step, line string, cause error) (PushResult, error) {
	ctx, cancel := RecoveryContext(ctx)
	defer cancel()
	pe := c.Fail(step, line, cause)
	err := c.RollBack(ctx)
	if err != nil {
		pending, perr := c.Pending(ctx)
		switch {
		case perr != nil:
			err = errors.Join(err, perr)
		case pending:
			err = c.RollBack(ctx) // once more, on the session Pending left in use
		default:
			err = nil // nothing waits any more: it rolled back
		}
	}
	if err != nil {
		pe.ConfirmPending = true // whether or not a rollback ran, nobody confirms the commit
		pe.Err = errors.Join(cause, fmt.Errorf("rolling back: %w", err))
		return c.Done(pe)
	}
	pe.RolledBack = true
	return c.Done(pe)
}
