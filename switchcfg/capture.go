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
// first error is returned.
func ParseCapture(d Driver, data []byte, want fabric.SwitchIntent) (fabric.SwitchIntent, error) {
	cmds := slices.Clone(d.ReadbackCommands())
	if cr, ok := d.(CaptureReader); ok {
		cmds = append(cmds, cr.CaptureCommands()...)
	}
	var (
		best     fabric.SwitchIntent
		found    bool
		firstErr error
	)
	for _, cmd := range slices.Compact(cmds) {
		got, err := ParseFor(d, Readback{cmd: data}, want)
		if err != nil {
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		if !found || len(got.Classes) > len(best.Classes) ||
			(len(got.Classes) == len(best.Classes) && len(got.Ports) > len(best.Ports)) {
			best, found = got, true
		}
	}
	if !found {
		return fabric.SwitchIntent{}, firstErr
	}
	best.Platform = d.Info().Name
	return best, nil
}

// CaptureTargets are engine targets that plan each switch from its captured
// read-back in dir instead of a session: a file named after the switch with
// any extension (leaf-01.txt, leaf-01.json), parsed for the switch's
// platform and compared with its intent. A switch without a capture, or
// with more than one, fails its plan with an error naming what was found.
// Apply is refused: a capture is not a switch.
func CaptureTargets(switches []fabric.SwitchIntent, reg *Registry, dir fs.FS) ([]fabric.Target, error) {
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
		var files []string
		for _, e := range entries {
			n := e.Name()
			if e.Type().IsRegular() && strings.TrimSuffix(n, path.Ext(n)) == si.Name {
				files = append(files, n)
			}
		}
		out = append(out, &capturedTarget{intent: si, driver: d, dir: dir, files: files})
	}
	return out, nil
}

// capturedTarget is one switch planned from its capture.
type capturedTarget struct {
	intent fabric.SwitchIntent
	driver Driver
	dir    fs.FS
	files  []string
}

func (t *capturedTarget) Name() string      { return t.intent.Name }
func (t *capturedTarget) Tier() fabric.Tier { return fabric.TierSwitch }

// ErrCaptured refuses to apply to a captured configuration.
var ErrCaptured = errors.New("a captured configuration is read, not applied")

func (t *capturedTarget) Plan(context.Context) ([]fabric.Change, error) {
	switch len(t.files) {
	case 0:
		return nil, fmt.Errorf("no capture of switch %s (want a file %s.<ext>)", t.intent.Name, t.intent.Name)
	case 1:
	default:
		return nil, fmt.Errorf("several captures of switch %s: %s", t.intent.Name, strings.Join(t.files, ", "))
	}
	data, err := fs.ReadFile(t.dir, t.files[0])
	if err != nil {
		return nil, fmt.Errorf("reading the capture of %s: %w", t.intent.Name, err)
	}
	got, err := ParseCapture(t.driver, data, t.intent)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", t.files[0], err)
	}
	return Changes(t.intent, got, CompareOptions{QuantumBytes: QuantumFor(t.driver, t.intent)}), nil
}

func (t *capturedTarget) Apply(context.Context, []fabric.Change) ([]fabric.Change, error) {
	return nil, fmt.Errorf("applying to %s: %w", t.intent.Name, ErrCaptured)
}
