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
	// Verify, when set, is called once the change is live on the device and
	// before it is made permanent (before the confirming commit, the save,
	// or dropping the checkpoint), with the session to read the device back
	// through. An error makes the driver restore the configuration from
	// before the push (the confirmed commit's rollback, the checkpoint) and
	// fail with a *PushError whose Step is "verifying". Target sets it to
	// compare the read-back with the intent (VerifyIntent). After a lost
	// connection the driver also uses it, on the new session, to find out
	// whether a change whose reply was lost is live.
	Verify func(ctx context.Context, s Session) error
}

// Redial opens a new session with Reconnect after the connection was lost.
// It is bounded by RecoverTimeout and not cancelled with ctx (a recovery
// must finish). It fails when Reconnect is nil.
func (o PushOptions) Redial(ctx context.Context) (Session, error) {
	if o.Reconnect == nil {
		return nil, ErrNoReconnect
	}
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), RecoverTimeout)
	defer cancel()
	s, err := o.Reconnect(rctx)
	if err != nil {
		return nil, fmt.Errorf("reconnecting: %w", err)
	}
	return s, nil
}

// RecoverTimeout bounds what a driver does after a failure (abort,
// rollback, reconnect, read-back): it runs even when the push's context is
// cancelled.
const RecoverTimeout = 2 * time.Minute

// ErrNoReconnect: the connection was lost and PushOptions.Reconnect is nil,
// so the driver cannot find out what the device did.
var ErrNoReconnect = errors.New("no way to reconnect (PushOptions.Reconnect is nil)")

// Lost reports whether err is a failure to talk to the device rather than
// the device refusing a command: the connection dropped, timed out or was
// cancelled, so the command may or may not have run.
func Lost(err error) bool { return err != nil && FailedLine(err) == "" }

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
	// RolledBack is true when the running configuration is known to be as
	// before the push: the abort/rollback succeeded, or the device never
	// took the change (the driver saw so, it does not assume it).
	RolledBack bool
	// ConfirmPending is true when the push's confirmed commit is live and
	// unconfirmed as the driver last saw the device: the switch restores
	// the configuration from before the push by itself when the confirm
	// window (Window) ends, unless someone confirms it first.
	ConfirmPending bool
	// Unknown is true when the connection was lost after a command that
	// may have changed the running configuration and the driver could not
	// reach the switch again to find out what it did.
	Unknown bool
	// Window is the confirm window of a confirmed commit (for the message).
	Window time.Duration
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
	switch {
	case e.RolledBack:
		msg += " (rolled back)"
	case e.ConfirmPending:
		msg += " (not confirmed: the switch rolls the change back by itself when its " + e.Window.String() + " confirm window ends)"
	case e.Unknown && e.Window > 0:
		msg += " (outcome unknown: read the switch back; a confirmed commit nobody confirms is rolled back by the switch when its " +
			e.Window.String() + " confirm window ends)"
	case e.Unknown:
		msg += " (outcome unknown: read the switch back)"
	default:
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
	return observe(ctx, s, d, func(rb Readback) (fabric.SwitchIntent, error) { return d.ParsePorts(rb, ports) })
}

// observe sends d's ReadbackCommands through s and parses their outputs
// with parse, naming the platform in errors and in the result.
func observe(ctx context.Context, s Session, d Driver, parse func(Readback) (fabric.SwitchIntent, error)) (fabric.SwitchIntent, error) {
	name := d.Info().Name
	rb := Readback{}
	for _, cmd := range d.ReadbackCommands() {
		out, err := s.Send(ctx, cmd)
		if err != nil {
			return fabric.SwitchIntent{}, fmt.Errorf("reading back %s with %q: %w", name, cmd, err)
		}
		rb[cmd] = []byte(out)
	}
	got, err := parse(rb)
	if err != nil {
		return fabric.SwitchIntent{}, fmt.Errorf("parsing %s read-back: %w", name, err)
	}
	got.Platform = name
	return got, nil
}

// IntentParser is implemented by drivers whose read-back means different
// things on different switches of the platform (Junos drop profiles give ECN
// thresholds as fill levels, percents of the model's queue buffer): Parse
// alone reads them for the platform's default model; ParseIntent reads them
// for the switch want describes (its model, queue buffer and ports). Pure.
type IntentParser interface {
	ParseIntent(rb Readback, want fabric.SwitchIntent) (fabric.SwitchIntent, error)
}

// ParseFor parses rb for the switch want describes: the driver's
// ParseIntent where it has one, else ParsePorts over want's ports. Ports
// that read differently from the most are kept in PortGroups, each group
// with its own settings (parseGrouped): nothing is dropped because ports
// disagree.
func ParseFor(d Driver, rb Readback, want fabric.SwitchIntent) (fabric.SwitchIntent, error) {
	return parseGrouped(func(w fabric.SwitchIntent) (fabric.SwitchIntent, error) {
		if ip, ok := d.(IntentParser); ok {
			return ip.ParseIntent(rb, w)
		}
		return d.ParsePorts(rb, w.Ports)
	}, want)
}

// ObserveIntent is Observe for the switch want describes (ParseFor).
func ObserveIntent(ctx context.Context, s Session, d Driver, want fabric.SwitchIntent) (fabric.SwitchIntent, error) {
	return observe(ctx, s, d, func(rb Readback) (fabric.SwitchIntent, error) { return ParseFor(d, rb, want) })
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
