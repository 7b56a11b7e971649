package switchcfg

import (
	"context"
	"errors"
)

// Recoverer is implemented by drivers whose pushes change the running
// configuration line by line (NX-OS: no candidate configuration), so that a
// connection lost mid-push leaves part of the change live and the rollback
// cannot go through the dead session.
//
// After a Push fails with a *PushError whose RolledBack is false and whose
// Checkpoint is set, open a new session and call Recover with that
// checkpoint:
//
//	var pe *switchcfg.PushError
//	if errors.As(err, &pe) && !pe.RolledBack && pe.Checkpoint != "" {
//		if r, ok := drv.(switchcfg.Recoverer); ok {
//			s, _ := connect(ctx)                      // a new session
//			err = r.Recover(ctx, s, pe.Checkpoint)   // nil: restored and verified
//		}
//	}
//
// Drivers do this themselves when PushOptions.Reconnect is set.
type Recoverer interface {
	// Recover restores the running configuration to checkpoint through s,
	// verifies that the device now matches the checkpoint, and deletes the
	// checkpoint. It returns an error, keeping the checkpoint, when the
	// restore or the verification fails.
	Recover(ctx context.Context, s Session, checkpoint string) error
}

// Recovery holds the session a push works through: the caller's, then,
// after a lost connection, a new one from PushOptions.Redial. Drivers use
// it to finish a transaction over a new session (read back, confirm or roll
// back) instead of over the dead one. Close closes the sessions it opened
// (never the caller's). A Recovery is not safe for concurrent use.
type Recovery struct {
	opt    PushOptions
	s      Session
	opened []Session
}

// NewRecovery starts with the caller's session s.
func NewRecovery(s Session, opt PushOptions) *Recovery { return &Recovery{opt: opt, s: s} }

// Session is the session in use.
func (r *Recovery) Session() Session { return r.s }

// CanReconnect reports whether PushOptions.Reconnect is set.
func (r *Recovery) CanReconnect() bool { return r.opt.Reconnect != nil }

// Reconnect replaces the session in use with a new one.
func (r *Recovery) Reconnect(ctx context.Context) error {
	s, err := r.opt.Redial(ctx)
	if err != nil {
		return err
	}
	r.opened = append(r.opened, s)
	r.s = s
	return nil
}

// Do runs fn on the session in use. When that fails with a lost
// connection (Lost) and Reconnect is set, it reconnects and runs fn once
// more on the new session. A session that is merely failing is thus tried
// first; a dead one fails at once and is replaced.
func (r *Recovery) Do(ctx context.Context, fn func(Session) error) error {
	err := fn(r.s)
	if !Lost(err) || !r.CanReconnect() {
		return err
	}
	if rerr := r.Reconnect(ctx); rerr != nil {
		return errors.Join(err, rerr)
	}
	return fn(r.s)
}

// Close closes the sessions Reconnect opened.
func (r *Recovery) Close() {
	for _, s := range r.opened {
		_ = s.Close()
	}
}

// RecoveryContext is ctx without its cancellation, bounded by
// RecoverTimeout: what a driver's abort, rollback and recovery run under.
func RecoveryContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), RecoverTimeout)
}
