package switchcfg

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/fabricctl/fabricctl/fabric"
)

// PushOptions tune one Driver.Push.
type PushOptions struct {
	// DryRun loads the configuration and asks the device for its diff, then
	// aborts (discards the candidate/session/checkpoint) instead of committing.
	// PushResult.Diff is filled, Committed is false.
	DryRun bool
	// ConfirmTimeout is the window of a confirmed commit (NVUE --confirm,
	// EOS commit timer, Junos commit confirmed): if the confirming step never
	// arrives the device rolls back by itself. Zero means DefaultConfirmTimeout.
	// Platforms without confirmed commit (NX-OS, SONiC) ignore it and roll back
	// from their checkpoint explicitly on failure.
	ConfirmTimeout time.Duration
	// CheckpointName names the checkpoint/session/revision label where the NOS
	// takes one (EOS config session, NX-OS and SONiC checkpoints). Empty means
	// the driver picks one with Checkpoint(time.Now()). Added by engineer A.
	CheckpointName string
	// Reconnect, when set, opens a new session to the same device. A driver
	// that implements Recoverer uses it after the connection drops mid-push
	// with changes already live (NX-OS, which has no candidate configuration):
	// it dials again, calls its Recover with the push's checkpoint and, when
	// that succeeds, reports PushError.RolledBack. Nil leaves the recovery to
	// the caller (PushError.Checkpoint names what to recover).
	Reconnect func(ctx context.Context) (Session, error)
}

// DefaultConfirmTimeout is used when PushOptions.ConfirmTimeout is zero.
const DefaultConfirmTimeout = 2 * time.Minute

// Timeout returns ConfirmTimeout, or DefaultConfirmTimeout when it is zero or negative.
func (o PushOptions) Timeout() time.Duration {
	if o.ConfirmTimeout <= 0 {
		return DefaultConfirmTimeout
	}
	return o.ConfirmTimeout
}

// Checkpoint returns CheckpointName, or "fabricctl-YYYYMMDD-HHMMSS" (UTC) from
// now when it is empty. Such a name is valid for EOS sessions, NX-OS and SONiC
// checkpoints alike.
func (o PushOptions) Checkpoint(now time.Time) string {
	if o.CheckpointName != "" {
		return o.CheckpointName
	}
	return "fabricctl-" + now.UTC().Format("20060102-150405")
}

// PushResult reports what one Push did.
type PushResult struct {
	// Changed is true when the device reported a non-empty diff.
	Changed bool `json:"changed"`
	// Diff is the device's own diff text (nv config diff, show session-config
	// diffs, show | compare, apply-patch --dry-run, show diff rollback-patch),
	// trimmed; empty when nothing differs.
	Diff string `json:"diff,omitempty"`
	// Committed is true once the change is committed, confirmed and saved.
	Committed bool `json:"committed"`
	// RolledBack is true when a failure made the driver abort or roll back.
	// Added by engineer A.
	RolledBack bool `json:"rolledBack,omitempty"`
}

// ErrPushFailed wraps every error returned by a Driver's Push after the
// device has been touched; errors.As with *PushError gives the failing line.
var ErrPushFailed = errors.New("push failed")

// PushError says which step or configuration line failed, and whether the
// device was restored. It wraps ErrPushFailed and the underlying cause.
type PushError struct {
	// Platform is the driver's platform name.
	Platform string
	// Step is the transaction step that failed ("loading", "diffing",
	// "committing", "confirming", "saving", "checkpointing").
	Step string
	// Line is the configuration line or device command that failed; empty when
	// the failure is not tied to one line (e.g. a dropped connection after load).
	Line string
	// RolledBack is true when the abort/rollback succeeded.
	RolledBack bool
	// Checkpoint is the checkpoint the push took and kept on the device after
	// the failure (set by drivers that implement Recoverer: NX-OS); with
	// RolledBack false, the driver's Recover on a new session restores it.
	// Empty otherwise.
	Checkpoint string
	// Err is the cause; when the rollback itself failed it joins both errors.
	Err error
}

func (e *PushError) Error() string {
	msg := e.Platform + ": " + e.Step
	if e.Line != "" {
		msg += " line " + quote(e.Line)
	}
	msg += ": " + e.Err.Error()
	if e.RolledBack {
		msg += " (rolled back)"
	} else {
		msg += " (rollback not confirmed)"
	}
	return msg
}

// Unwrap returns ErrPushFailed and the cause, for errors.Is/As.
func (e *PushError) Unwrap() []error { return []error{ErrPushFailed, e.Err} }

func quote(s string) string {
	const max = 200
	if len(s) > max {
		s = s[:max] + "..."
	}
	return strconv.Quote(s)
}

// Observe reads a switch's current state: it sends each of d's
// ReadbackCommands through s, collects the outputs and returns
// d.ParsePorts's result for ports (nil: every port), its Platform set.
func Observe(ctx context.Context, s Session, d Driver, ports []string) (fabric.SwitchIntent, error) {
	name := d.Info().Name
	rb := Readback{}
	for _, cmd := range d.ReadbackCommands() {
		out, err := s.Send(ctx, cmd)
		if err != nil {
			return fabric.SwitchIntent{}, fmt.Errorf("reading back %s with %q: %w", name, cmd, err)
		}
		rb[cmd] = []byte(out)
	}
	got, err := d.ParsePorts(rb, ports)
	if err != nil {
		return fabric.SwitchIntent{}, fmt.Errorf("parsing %s read-back: %w", name, err)
	}
	got.Platform = name
	return got, nil
}

// LineError is what a Session returns (wrapped or not) when the device rejects
// a command or configuration line: drivers find it with errors.As and put Line
// into PushError. Session implementations should return it from SendConfig and
// from Send when the output carries the NOS's error text. Added by engineer A.
type LineError struct {
	// Line is the command or configuration line the device rejected.
	Line string
	// Message is the device's error text (e.g. "% Invalid input detected").
	Message string
}

func (e *LineError) Error() string {
	return "device rejected " + quote(e.Line) + ": " + e.Message
}

// FailedLine returns the line of the first LineError in err's chain, or "".
func FailedLine(err error) string {
	var le *LineError
	if errors.As(err, &le) {
		return le.Line
	}
	return ""
}
