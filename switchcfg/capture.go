package switchcfg

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"

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
// did not read.
func ParseCapture(d Driver, data []byte, want fabric.SwitchIntent) (fabric.SwitchIntent, error) {
	cmds := slices.Clone(d.ReadbackCommands())
	if cr, ok := d.(CaptureReader); ok {
		cmds = append(cmds, cr.CaptureCommands()...)
	}
	var (
		best  fabric.SwitchIntent
		found bool
		tried []string
	)
	for _, cmd := range slices.Compact(cmds) {
		got, err := ParseFor(d, Readback{cmd: data}, want)
		if err != nil {
			tried = append(tried, fmt.Sprintf("%q: %v", cmd, err))
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
