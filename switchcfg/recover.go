package switchcfg

import "context"

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
