package switchcfg

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/fabricctl/fabricctl/fabric"
)

// This file reads captured read-backs — a running configuration saved to a
// file, not read over a session — for `fabricctl switch parse` and
// `fabricctl drift --from-dir`: audits before production, without device
// access.

// CaptureReader is implemented by drivers that read more kinds of captured
// file than their ReadbackCommands print (NVUE's YAML and `nv show qos
// roce`, a whole Junos `show configuration`): the commands whose output a
// capture may be, in the order they are tried.
type CaptureReader interface {
	CaptureCommands() []string
}

// ParseCapture reads data, the saved output of one of d's read-back
// commands, into the canonical intent for the switch want describes (its
// model, queue buffer and ports; the zero value for none). The file does
// not say which command printed it: each command d reads is tried, and the
// reading with the most classes, then ports, wins; when none reads, the
// error (wrapping ErrNotThisFormat) lists every command tried and why it
// did not read. Data that is no text (CheckCaptureText) is refused before
// any command is tried.
func ParseCapture(d Driver, data []byte, want fabric.SwitchIntent) (fabric.SwitchIntent, error) {
	if err := CheckCaptureText(d.Info().Name, data); err != nil {
		return fabric.SwitchIntent{}, err
	}
	cmds := slices.Clone(d.ReadbackCommands())
	if cr, ok := d.(CaptureReader); ok {
		cmds = append(cmds, cr.CaptureCommands()...)
	}
	var (
		best  fabric.SwitchIntent
		found bool
		tried []string
		errs  []error
	)
	for _, cmd := range slices.Compact(cmds) {
		got, err := ParseFor(d, Readback{cmd: data}, want)
		if err != nil {
			tried = append(tried, fmt.Sprintf("%q: %v", cmd, err))
			errs = append(errs, err)
			continue
		}
		// Where two commands' readings take the file (a whole Junos
		// configuration is also a sub-hierarchy's text), the one with
		// more classes, then the one that understood more of it, wins.
		if !found || len(got.Classes) > len(best.Classes) ||
			(len(got.Classes) == len(best.Classes) && len(got.Unparsed) < len(best.Unparsed)) ||
			(len(got.Classes) == len(best.Classes) && len(got.Unparsed) == len(best.Unparsed) && len(got.Ports) > len(best.Ports)) {
			best, found = got, true
		}
	}
	if !found {
		if !slices.ContainsFunc(errs, func(err error) bool { return !errors.Is(err, ErrNotThisFormat) }) {
			return fabric.SwitchIntent{}, notThisFormat(fmt.Sprintf("not %s configuration; tried as the output of each command it reads:\n  %s",
				article(d.Info().Name), strings.Join(tried, "\n  ")))
		}
		return fabric.SwitchIntent{}, fmt.Errorf("%s: %w; tried as the output of each command it reads:\n  %s",
			d.Info().Name, ErrNotThisFormat, strings.Join(tried, "\n  "))
	}
	best.Platform = d.Info().Name
	// Empty lists are [], as render writes them, never null.
	if best.Classes == nil {
		best.Classes = []fabric.SwitchClass{}
	}
	if best.Ports == nil {
		best.Ports = []string{}
	}
	return best, nil
}

// MaxCaptureLines is the most lines a capture may have: a switch's whole
// configuration is thousands to a few hundred thousand lines, and a reader
// keeps a little for each line, so more (32 MiB of blank lines) is refused
// rather than read.
const MaxCaptureLines = 2_000_000

// CheckCaptureText refuses data that is no configuration text of any
// platform: binary data (a NUL byte — UTF-16 text too —, or more than 1 %
// of its bytes not UTF-8: a description written in Latin-1 passes), with
// an error wrapping ErrNotThisFormat that names the line ("line 3: not an
// arista-eos configuration: binary data …"), and text of more than
// MaxCaptureLines lines.
func CheckCaptureText(platform string, data []byte) error {
	notText := func(at int, format string, args ...any) error {
		return notThisFormat(fmt.Sprintf("line %d: not %s configuration: ", bytes.Count(data[:at], []byte("\n"))+1, article(platform)) +
			fmt.Sprintf(format, args...))
	}
	if bytes.HasPrefix(data, []byte{0xff, 0xfe}) || bytes.HasPrefix(data, []byte{0xfe, 0xff}) {
		return notText(0, "UTF-16 text (save it as UTF-8)")
	}
	if i := bytes.IndexByte(data, 0); i >= 0 {
		return notText(i, "binary data (a NUL byte at byte %d)", i+1)
	}
	bad, first := 0, -1
	for i := 0; i < len(data); {
		r, n := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && n == 1 {
			if first < 0 {
				first = i
			}
			bad++
		}
		i += n
	}
	if bad > 16 && bad > len(data)/100 {
		return notText(first, "binary data (%d of its %d bytes are not UTF-8)", bad, len(data))
	}
	if n := bytes.Count(data, []byte("\n")); n > MaxCaptureLines {
		return fmt.Errorf("%s capture of %d lines: more than the %d lines of any switch configuration", platform, n, MaxCaptureLines)
	}
	return nil
}

// MaxCLILine is the longest line of a CLI configuration (EOS, NX-OS): the
// longest real ones, value lists and banners, are hundreds of bytes.
const MaxCLILine = 64 << 10

// CheckLineLength refuses CLI text of nos with a line longer than
// MaxCLILine, naming the line, with an error wrapping ErrNotThisFormat:
// such a line is no configuration command, and splitting it into words
// would cost many times its size.
func CheckLineLength(nos, text string) error {
	for n := 1; text != ""; n++ {
		i := strings.IndexByte(text, '\n')
		if i < 0 {
			i = len(text)
		}
		if i > MaxCLILine {
			return notThisFormat(fmt.Sprintf("line %d: not %s configuration: a line of %d bytes (a command is at most %d)", n, article(nos), i, MaxCLILine))
		}
		text = text[min(i+1, len(text)):]
	}
	return nil
}

// MaxBlocks is the most named things — ports, profiles, policies, maps —
// a reader keeps of one configuration: a chassis has a few thousand
// ports, so more is refused rather than held (each costs hundreds of
// bytes).
const MaxBlocks = 1 << 16

// ErrTooManyBlocks is wrapped when a configuration names more than
// MaxBlocks things.
var ErrTooManyBlocks = fmt.Errorf("more than %d ports, profiles, policies and maps: no switch configuration has that many", MaxBlocks)

// MaxUnparsed is the most lines a reading lists in Unparsed; one more
// entry counts the rest. A person reads the first ones, and a capture of
// a million unread lines must not cost a million entries.
const MaxUnparsed = 1000

// UnparsedLines collects a reading's Unparsed lines, at most MaxUnparsed
// of them. The zero value is empty and ready; it is not safe for
// concurrent use.
type UnparsedLines struct {
	list      []fabric.Unparsed
	more      int // lines past MaxUnparsed
	firstMore int // the first of them
}

// Add lists u, or counts it once MaxUnparsed are listed.
func (l *UnparsedLines) Add(u fabric.Unparsed) {
	if len(l.list) < MaxUnparsed {
		l.list = append(l.list, u)
		return
	}
	if l.more == 0 || u.Line < l.firstMore {
		l.firstMore = u.Line
	}
	l.more++
}

// Lines returns the lines listed, in the order added, then, when some
// were only counted, an entry saying how many from which line on.
func (l *UnparsedLines) Lines() []fabric.Unparsed {
	out := slices.Clone(l.list)
	if l.more > 0 {
		out = append(out, fabric.Unparsed{Line: l.firstMore, Text: "…",
			Reason: fmt.Sprintf("%d more lines not read (only the first %d are listed)", l.more, MaxUnparsed)})
	}
	return out
}

// notThisFormat is an error wrapping ErrNotThisFormat with its own text.
type notThisFormat string

func (e notThisFormat) Error() string { return string(e) }
func (e notThisFormat) Unwrap() error { return ErrNotThisFormat }

// NotThisFormat formats an error that wraps ErrNotThisFormat without
// saying so in its text: a reader's syntax error that shows the input is
// not its format ("line 3: unexpected }").
func NotThisFormat(format string, args ...any) error {
	return notThisFormat(fmt.Sprintf(format, args...))
}

// article returns "a NAME" or "an NAME": an arista-eos, an EOS, an NX-OS.
func article(name string) string {
	vowels := "aeiou"
	if name == strings.ToUpper(name) {
		vowels = "AEFHILMNORSX" // initialisms, said letter by letter
	}
	if name != "" && strings.ContainsRune(vowels, rune(name[0])) {
		return "an " + name
	}
	return "a " + name
}

// CaptureTargets are engine targets that plan each switch from its captured
// read-back in dir instead of a session: a file named after the switch with
// any extension (leaf-01.txt, leaf-01.json), parsed for the switch's
// platform and compared with its intent. A switch without a capture, or
// with more than one, fails its plan with an error naming what was found; so
// does one whose reading has Unparsed QoS input, unless o allows it.
// Apply is refused: a capture is not a switch.
func CaptureTargets(switches []fabric.SwitchIntent, reg *Registry, dir fs.FS, o CaptureOptions) ([]fabric.Target, error) {
	entries, err := fs.ReadDir(dir, ".")
	if err != nil {
		return nil, fmt.Errorf("reading the capture directory: %w", err)
	}
	var out []fabric.Target
	for _, si := range switches {
		d, err := reg.Driver(si.Platform)
		if err != nil {
			return nil, err
		}
		out = append(out, &capturedTarget{name: si.Name, what: "switch", tier: fabric.TierSwitch, dir: dir, files: capturesOf(entries, si.Name),
			plan: func(data []byte) ([]fabric.Change, error) {
				got, err := ParseCapture(d, data, si)
				if err != nil {
					return nil, err
				}
				if err := CheckUnparsed(got, o.AllowUnparsed); err != nil {
					return nil, err
				}
				return Changes(si, got, CompareOptions{QuantumBytes: QuantumFor(d, si)}), nil
			}})
	}
	return out, nil
}

// CaptureOptions tune CaptureTargets.
type CaptureOptions struct {
	// AllowUnparsed judges captures with QoS input their reader did not
	// understand instead of failing their plan with ErrUnparsed.
	AllowUnparsed bool
}

// CaptureSubnetManagers are CaptureTargets for subnet managers: each one's
// captured configuration (OpenSM's partitions.conf) is DIR/<name>.<ext>,
// compared with its partitions by its kind's PartitionsReader. A kind that
// cannot be read offline is an error naming it, never skipped.
func CaptureSubnetManagers(sms []fabric.SubnetManagerIntent, guids map[string][]string, reg *Registry, dir fs.FS) ([]fabric.Target, error) {
	entries, err := fs.ReadDir(dir, ".")
	if err != nil {
		return nil, fmt.Errorf("reading the capture directory: %w", err)
	}
	var out []fabric.Target
	for _, sm := range sms {
		m, err := reg.SubnetManager(sm.Kind)
		if err != nil {
			return nil, err
		}
		cr, ok := m.(PartitionsReader)
		if !ok {
			return nil, fmt.Errorf("subnet manager %s: kind %s cannot be audited from a capture (use --target to leave it out)", sm.Name, sm.Kind)
		}
		out = append(out, &capturedTarget{name: sm.Name, what: "subnet manager", tier: fabric.TierSubnetManager, dir: dir, files: capturesOf(entries, sm.Name),
			plan: func(data []byte) ([]fabric.Change, error) { return cr.PlanCapture(sm, guids, data) }})
	}
	return out, nil
}

// capturesOf returns the entries named name.<ext> other than directories:
// a FIFO, device or link among them is read, and refused, by dir (give it an
// infile.Dir), rather than passed over as if there were no capture.
func capturesOf(entries []fs.DirEntry, name string) []string {
	var files []string
	for _, e := range entries {
		n := e.Name()
		if !e.IsDir() && strings.TrimSuffix(n, path.Ext(n)) == name {
			files = append(files, n)
		}
	}
	return files
}

// capturedTarget is one switch or subnet manager planned from its capture.
type capturedTarget struct {
	name, what string
	tier       fabric.Tier
	dir        fs.FS
	files      []string
	plan       func(data []byte) ([]fabric.Change, error)
}

func (t *capturedTarget) Name() string      { return t.name }
func (t *capturedTarget) Tier() fabric.Tier { return t.tier }

// ErrCaptured refuses to apply to a captured configuration.
var ErrCaptured = errors.New("a captured configuration is read, not applied")

func (t *capturedTarget) Plan(context.Context) ([]fabric.Change, error) {
	switch len(t.files) {
	case 0:
		return nil, fmt.Errorf("no capture of %s %s (want a file %s.<ext>)", t.what, t.name, t.name)
	case 1:
	default:
		return nil, fmt.Errorf("several captures of %s %s: %s", t.what, t.name, strings.Join(t.files, ", "))
	}
	data, err := fs.ReadFile(t.dir, t.files[0])
	if err != nil {
		return nil, fmt.Errorf("reading the capture of %s: %w", t.name, err)
	}
	changes, err := t.plan(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", t.files[0], err)
	}
	return changes, nil
}

func (t *capturedTarget) Apply(context.Context, []fabric.Change) ([]fabric.Change, error) {
	return nil, fmt.Errorf("applying to %s: %w", t.name, ErrCaptured)
}
