package switchcfg

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/fabricctl/fabricctl/fabric"
)

// Sentinel errors.
var (
	// ErrUnknownKind: no driver is registered under that platform name.
	ErrUnknownKind = errors.New("unknown platform")
	// ErrNotSupported: the platform cannot express part of the intent.
	ErrNotSupported = errors.New("not supported by platform")
)

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

// Driver is one switch platform.
type Driver interface {
	// Platform is the name used in fabric files (e.g. "cumulus-nvue").
	Platform() string
	// CheckPort reports whether name is a valid port name on this platform.
	CheckPort(name string) error
	// Render turns the intent into native config. Pure.
	Render(intent fabric.SwitchIntent) (Config, error)
	// ReadbackCommands lists the commands whose outputs Parse needs.
	ReadbackCommands() []string
	// Parse turns read-back outputs into the canonical intent. Pure. Fields the
	// device does not carry (name, address, profile) stay empty.
	Parse(rb Readback) (fabric.SwitchIntent, error)
}

// Registry holds the drivers by platform name. Build it once with the Register
// functions of the driver packages; it is safe for concurrent reads after that.
type Registry struct {
	drivers map[string]Driver
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{drivers: map[string]Driver{}} }

// Add registers d; registering a platform twice panics (a programming error).
func (r *Registry) Add(d Driver) {
	if _, dup := r.drivers[d.Platform()]; dup {
		panic("switchcfg: platform registered twice: " + d.Platform())
	}
	r.drivers[d.Platform()] = d
}

// Names returns the registered platform names, sorted.
func (r *Registry) Names() []string {
	names := make([]string, 0, len(r.drivers))
	for n := range r.drivers {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
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
