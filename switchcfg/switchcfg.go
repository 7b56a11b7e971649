package switchcfg

import (
	"context"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/fabricctl/fabricctl/fabric"
)

// Sentinel errors. They alias fabric's: errors.Is(err, fabric.ErrNotSupported)
// holds for every error wrapping ErrNotSupported, and likewise for
// ErrUnknownKind, while the messages stay the switch's own.
var (
	// ErrUnknownKind: no driver is registered under that platform (or
	// subnet-manager kind) name.
	ErrUnknownKind error = &alias{"unknown platform", fabric.ErrUnknownKind}
	// ErrNotSupported: the platform cannot express part of the intent.
	ErrNotSupported error = &alias{"not supported by platform", fabric.ErrNotSupported}
)

// alias is a sentinel with its own message that errors.Is also matches with
// the fabric sentinel it unwraps to.
type alias struct {
	msg string
	of  error
}

func (e *alias) Error() string { return e.msg }
func (e *alias) Unwrap() error { return e.of }

// Config is a rendered native configuration.
type Config struct {
	Platform string `json:"platform"`
	// Format says how Text is meant: "commands" (one CLI line each, in order),
	// "json" (a document or patch), or "set" (Junos set lines).
	Format string `json:"format"`
	// Text is the whole rendering, ready to print or push.
	Text string `json:"text"`
}

// Lines returns the non-empty lines of Text.
func (c Config) Lines() []string {
	var out []string
	for _, l := range strings.Split(c.Text, "\n") {
		if strings.TrimSpace(l) != "" {
			out = append(out, l)
		}
	}
	return out
}

// Readback maps a read-back command (as ReadbackCommands names it) to its output.
type Readback map[string][]byte

// Session is a CLI session to one device. Implementations: the scrapligo wrapper
// (real SSH), and replay of recorded transcripts in tests.
type Session interface {
	// Send runs one command in the current mode and returns its output.
	Send(ctx context.Context, command string) (string, error)
	// SendConfig enters configuration mode (or the platform's equivalent), sends
	// the lines in order and returns the combined output; it stops at the first
	// line the device rejects and returns an error naming that line.
	SendConfig(ctx context.Context, lines []string) (string, error)
	Close() error
}

// Driver is one switch platform: everything fabricctl knows about it sits
// behind this interface and its Info, so adding a platform is one package and
// one Register line in switchcfg/all.
//
// Implementations keep no per-device state: one Driver value serves many
// switches and sessions at once (each call uses only its own Session).
type Driver interface {
	// Info returns the platform's facts (name, file extension, session,
	// tolerances, limits). It is the same value on every call.
	Info() Info
	// CheckPort reports whether name is a valid port name on this platform.
	CheckPort(name string) error
	// Render turns the intent into native config. Pure.
	Render(intent fabric.SwitchIntent) (Config, error)
	// ReadbackCommands lists the commands whose outputs Parse needs.
	ReadbackCommands() []string
	// Parse turns read-back outputs into the canonical intent. Pure. Fields the
	// device does not carry (name, address, profile) stay empty.
	Parse(rb Readback) (fabric.SwitchIntent, error)
	// ParsePorts is Parse restricted to ports (nil: every port), so that
	// uplinks with other QoS do not blur the reading. Platforms whose QoS is
	// global read the same as Parse. Pure.
	ParsePorts(rb Readback, ports []string) (fabric.SwitchIntent, error)
	// Push applies cfg as one transaction: open, load, device-side diff, commit
	// (confirmed where the NOS can), PushOptions.Verify, confirm, save. With
	// no device-side diff it commits nothing and returns Changed=false.
	// On any failure — a refused line, a failed verify, a lost connection
	// (recovered over PushOptions.Reconnect) — it aborts/rolls back so the
	// running config is exactly as before, and the error (a *PushError)
	// names the failing step and line and says truthfully what the device
	// was left with (RolledBack, ConfirmPending, Unknown).
	Push(ctx context.Context, s Session, cfg Config, opt PushOptions) (PushResult, error)
}

// Registry holds the switch drivers by platform name and the subnet-manager
// drivers by kind. Build it once with the Register functions of the driver
// packages (switchcfg/all does); it is safe for concurrent reads after that.
//
// A Registry is also what fabric validation needs to know about platforms
// (it satisfies fabric.Platforms): pass it as fabric.Options.Platforms.
type Registry struct {
	drivers map[string]Driver
	sms     map[string]SubnetManager
}

var _ fabric.Platforms = (*Registry)(nil)

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{drivers: map[string]Driver{}, sms: map[string]SubnetManager{}}
}

// Add registers d; registering a platform twice panics (a programming error).
func (r *Registry) Add(d Driver) {
	name := d.Info().Name
	if _, dup := r.drivers[name]; dup {
		panic("switchcfg: platform registered twice: " + name)
	}
	r.drivers[name] = d
}

// Names returns the registered platform names, sorted.
func (r *Registry) Names() []string {
	return slices.Sorted(maps.Keys(r.drivers))
}

// Driver returns the driver for platform, or an error wrapping ErrUnknownKind
// that lists the valid names.
func (r *Registry) Driver(platform string) (Driver, error) {
	if d, ok := r.drivers[platform]; ok {
		return d, nil
	}
	return nil, fmt.Errorf("%w %q (valid: %s)", ErrUnknownKind, platform, strings.Join(r.Names(), ", "))
}

// The Registry is the fabric validator's fabric.Platforms and
// fabric.SwitchChecker: validation checks platform names, port names and,
// by rendering, every limit of the platforms, so that it refuses whatever
// render would.
var (
	_ fabric.Platforms     = (*Registry)(nil)
	_ fabric.SwitchChecker = (*Registry)(nil)
)

// CheckPort reports whether port is a valid port name on platform.
func (r *Registry) CheckPort(platform, port string) error {
	d, err := r.Driver(platform)
	if err != nil {
		return err
	}
	return d.CheckPort(port)
}

var _ fabric.SwitchModels = (*Registry)(nil)

// SwitchModel returns the facts of platform's model (Info.Model) that
// fabric validation and resolution need.
func (r *Registry) SwitchModel(platform, model string) (fabric.ModelLimits, error) {
	d, err := r.Driver(platform)
	if err != nil {
		return fabric.ModelLimits{}, err
	}
	m, err := d.Info().Model(model)
	if err != nil {
		return fabric.ModelLimits{}, err
	}
	return fabric.ModelLimits{Model: m.Name, Description: m.Description, MinMTU: m.MinMTU, MaxMTU: m.MaxMTU}, nil
}

// CheckSwitch reports what the switch's platform cannot render of its
// intent: Render's error, without the platform's name in front.
func (r *Registry) CheckSwitch(in fabric.SwitchIntent) error {
	d, err := r.Driver(in.Platform)
	if err != nil {
		return err
	}
	_, err = d.Render(in)
	return err
}

// PortPattern is a helper for CheckPort implementations.
func PortPattern(platform string, re *regexp.Regexp, example string) func(string) error {
	return func(name string) error {
		if re.MatchString(name) {
			return nil
		}
		return fmt.Errorf("port %q is not a %s port name (expected e.g. %s)", name, platform, example)
	}
}
