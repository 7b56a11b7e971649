package planfile

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/internal/atomicfile"
	"github.com/fabricctl/fabricctl/internal/buildinfo"
)

// Kind is the kind of a saved plan document.
const Kind = "SavedPlan"

// MaxSize bounds what Read reads: a plan of thousands of targets is a few
// megabytes.
const MaxSize = 64 << 20

// Errors of CheckFabric and Drift, for errors.Is.
var (
	// ErrOtherFabric: the fabric file given is not the one the plan was made from.
	ErrOtherFabric = errors.New("the plan was saved for another fabric file")
	// ErrFabricChanged: the fabric file's content changed since the plan was saved.
	ErrFabricChanged = errors.New("the fabric file changed since the plan was saved")
	// ErrDrifted: a plan made now differs from the saved one.
	ErrDrifted = errors.New("the fabric drifted since the plan was saved")
)

// File is a saved plan.
type File struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	// Created is when the plan was made.
	Created time.Time `json:"created"`
	// Fabricctl is the build that made it.
	Fabricctl buildinfo.Info `json:"fabricctl"`
	// Fabric is the fabric file the plan was made from.
	Fabric Source `json:"fabric"`
	// Targets are the targets selected (--target); empty means all.
	Targets []string `json:"targets,omitempty"`
	// Plan is every selected target's changes.
	Plan *fabric.Plan `json:"plan"`
}

// Source identifies a fabric file by path and content.
type Source struct {
	// Path is absolute.
	Path string `json:"path"`
	// SHA256 is the hex SHA-256 of the file's bytes.
	SHA256 string `json:"sha256"`
}

// New returns the saved plan of p, made from the fabric file at path
// (made absolute) whose bytes are data, for targets (sorted; empty: all).
func New(path string, data []byte, targets []string, p *fabric.Plan, build buildinfo.Info, now time.Time) (*File, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("resolving the fabric file's path: %w", err)
	}
	ts := slices.Clone(targets)
	slices.Sort(ts)
	return &File{APIVersion: fabric.APIVersion, Kind: Kind, Created: now.UTC().Truncate(time.Second),
		Fabricctl: build, Fabric: Source{Path: abs, SHA256: Sum(data)}, Targets: slices.Compact(ts), Plan: p}, nil
}

// Sum is the hex SHA-256 of data.
func Sum(data []byte) string {
	s := sha256.Sum256(data)
	return hex.EncodeToString(s[:])
}

// Marshal encodes f as indented JSON with a final newline.
func (f *File) Marshal() ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(f); err != nil {
		return nil, fmt.Errorf("encoding the plan: %w", err)
	}
	return b.Bytes(), nil
}

// Write writes f to path atomically: a reader sees the old file or the
// whole new one.
func Write(path string, f *File) error {
	b, err := f.Marshal()
	if err != nil {
		return err
	}
	if err := atomicfile.WriteFile(path, b, 0o644); err != nil {
		return fmt.Errorf("writing plan file %s: %w", path, err)
	}
	return nil
}

// Read reads and decodes the saved plan at path, strictly: unknown fields,
// another apiVersion or kind, or no plan are errors.
func Read(path string) (*File, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading plan file: %w", err)
	}
	defer fh.Close()
	data, err := io.ReadAll(io.LimitReader(fh, MaxSize+1))
	if err != nil {
		return nil, fmt.Errorf("reading plan file %s: %w", path, err)
	}
	if len(data) > MaxSize {
		return nil, fmt.Errorf("reading plan file %s: larger than %d MiB", path, MaxSize>>20)
	}
	f, err := Decode(data)
	if err != nil {
		return nil, fmt.Errorf("reading plan file %s: %w", path, err)
	}
	return f, nil
}

// Decode decodes a saved plan strictly (see Read).
func Decode(data []byte) (*File, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var f File
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("not a saved plan: %w", err)
	}
	if dec.More() {
		return nil, errors.New("not a saved plan: more than one JSON document")
	}
	switch {
	case f.Kind != Kind:
		return nil, fmt.Errorf("not a saved plan: kind %q, want %q (plan --out FILE writes one)", f.Kind, Kind)
	case f.APIVersion != fabric.APIVersion:
		return nil, fmt.Errorf("apiVersion %q, want %q", f.APIVersion, fabric.APIVersion)
	case f.Plan == nil:
		return nil, errors.New("no plan in it")
	case f.Fabric.Path == "" || f.Fabric.SHA256 == "":
		return nil, errors.New("it names no fabric file")
	}
	return &f, nil
}

// SameFile reports whether path names the fabric file the plan was made
// from (compared as absolute, cleaned paths).
func (f *File) SameFile(path string) bool {
	abs, err := filepath.Abs(path)
	return err == nil && filepath.Clean(abs) == filepath.Clean(f.Fabric.Path)
}

// CheckFabric checks that path is the plan's fabric file (ErrOtherFabric)
// and data, its bytes now, are those it was planned from (ErrFabricChanged).
func (f *File) CheckFabric(path string, data []byte) error {
	if !f.SameFile(path) {
		return fmt.Errorf("%w: it was planned from %s, not %s", ErrOtherFabric, f.Fabric.Path, path)
	}
	if sum := Sum(data); sum != f.Fabric.SHA256 {
		return fmt.Errorf("%w: %s has sha256 %s now, %s when planned; plan again (plan --out)", ErrFabricChanged, f.Fabric.Path, short(sum), short(f.Fabric.SHA256))
	}
	return nil
}

// SameTargets reports whether targets (--target) select what the plan did.
func (f *File) SameTargets(targets []string) bool {
	ts := slices.Clone(targets)
	slices.Sort(ts)
	return slices.Equal(slices.Compact(ts), f.Targets)
}

func short(sum string) string {
	if len(sum) > 12 {
		return sum[:12]
	}
	return sum
}

// Difference is one way a plan made now differs from the saved one.
type Difference struct {
	Target string `json:"target"`
	// Component and Setting name the change; both empty when the target
	// as a whole differs (observed then and not now, or the reverse).
	Component string `json:"component,omitempty"`
	Setting   string `json:"setting,omitempty"`
	// Saved and Now say what each plan has there.
	Saved string `json:"saved"`
	Now   string `json:"now"`
}

func (d Difference) String() string {
	where := d.Target
	if s := strings.TrimSpace(d.Component + " " + d.Setting); s != "" {
		where += " " + s
	}
	return fmt.Sprintf("%s: saved plan %s; now %s", where, d.Saved, d.Now)
}

// Drift returns every difference between the saved plan and one made now,
// sorted by target then change: the saved plan may be applied only when
// there is none. Changes must match exactly (values, disruption, notes).
func Drift(saved, now *fabric.Plan) []Difference {
	index := func(p *fabric.Plan) map[string]fabric.TargetPlan {
		m := map[string]fabric.TargetPlan{}
		for _, tp := range p.Targets {
			m[tp.Target] = tp
		}
		return m
	}
	was, is := index(saved), index(now)
	var names []string
	for n := range was {
		names = append(names, n)
	}
	for n := range is {
		if _, ok := was[n]; !ok {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	var out []Difference
	for _, n := range names {
		a, inA := was[n]
		b, inB := is[n]
		switch {
		case !inA:
			out = append(out, Difference{Target: n, Saved: "does not have this target", Now: describeTarget(b)})
			continue
		case !inB:
			out = append(out, Difference{Target: n, Saved: describeTarget(a), Now: "does not have this target"})
			continue
		case a.Error != "" || b.Error != "":
			if a.Error != b.Error {
				out = append(out, Difference{Target: n, Saved: describeTarget(a), Now: describeTarget(b)})
			}
			continue
		}
		out = append(out, changeDrift(n, a.Changes, b.Changes)...)
	}
	return out
}

func describeTarget(tp fabric.TargetPlan) string {
	if tp.Error != "" {
		return "could not observe it (" + tp.Error + ")"
	}
	return fmt.Sprintf("%d change(s)", len(fabric.Actionable(tp.Changes)))
}

func changeDrift(target string, saved, now []fabric.Change) []Difference {
	type key struct{ component, setting string }
	index := func(cs []fabric.Change) (map[key][]fabric.Change, []key) {
		m := map[key][]fabric.Change{}
		var keys []key
		for _, c := range cs {
			k := key{c.Component, c.Setting}
			if _, ok := m[k]; !ok {
				keys = append(keys, k)
			}
			m[k] = append(m[k], c)
		}
		return m, keys
	}
	was, keys := index(saved)
	is, more := index(now)
	for _, k := range more {
		if _, ok := was[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, func(a, b key) int {
		if c := strings.Compare(a.component, b.component); c != 0 {
			return c
		}
		return strings.Compare(a.setting, b.setting)
	})
	var out []Difference
	for _, k := range keys {
		if slices.Equal(was[k], is[k]) {
			continue
		}
		out = append(out, Difference{Target: target, Component: k.component, Setting: k.setting,
			Saved: describeChanges(was[k]), Now: describeChanges(is[k])})
	}
	return out
}

func describeChanges(cs []fabric.Change) string {
	if len(cs) == 0 {
		return "nothing to change"
	}
	var parts []string
	for _, c := range cs {
		old, new := c.Display()
		s := old + " → " + new
		switch {
		case c.Unsupported:
			s += " (unsupported)"
		case c.Disruptive:
			s += " (disruptive)"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, ", ")
}
