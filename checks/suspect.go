package checks

import (
	"errors"
	"fmt"
	"math"
)

// SuspectKind names the kind of component a localiser blames.
type SuspectKind string

// The kinds of suspect, from the host outwards. The string values are
// stable: reports and scripts key on them.
const (
	// SuspectNIC: the host's NIC (adapter, firmware, PCIe link, driver).
	SuspectNIC SuspectKind = "nic"
	// SuspectCable: the access cable between a host NIC and its leaf port,
	// with both transceivers.
	SuspectCable SuspectKind = "cable"
	// SuspectSwitchPort: the leaf port of an access link (its ASIC port,
	// buffers, configuration) rather than the cable.
	SuspectSwitchPort SuspectKind = "switch-port"
	// SuspectLeaf: a whole leaf switch.
	SuspectLeaf SuspectKind = "leaf"
	// SuspectUplinkGroup: all of a leaf's uplinks at once (its routes to the
	// spines, an uplink bond).
	SuspectUplinkGroup SuspectKind = "uplink-group"
	// SuspectUplink: one switch-to-switch cable (leaf to spine, or between
	// two leaves) with its transceivers and ports.
	SuspectUplink SuspectKind = "uplink"
	// SuspectSpine: a whole spine switch.
	SuspectSpine SuspectKind = "spine"
)

var suspectKinds = map[SuspectKind]string{
	SuspectNIC:         "the host's NIC: adapter, firmware, PCIe link or driver",
	SuspectCable:       "the access cable or one of its transceivers",
	SuspectSwitchPort:  "the leaf's port: ASIC port, buffers or its configuration",
	SuspectLeaf:        "the whole leaf switch",
	SuspectUplinkGroup: "the leaf's uplinks as a whole: its routes to the spines or an uplink bond",
	SuspectUplink:      "a switch-to-switch cable, its transceivers or ports",
	SuspectSpine:       "the whole spine switch",
}

// Valid reports whether k is one of the kinds above.
func (k SuspectKind) Valid() bool { _, ok := suspectKinds[k]; return ok }

// Describe says in one line what the kind covers.
func (k SuspectKind) Describe() string {
	if d, ok := suspectKinds[k]; ok {
		return d
	}
	return string(k)
}

// SuspectRef names a component without the evidence.
type SuspectRef struct {
	Kind      SuspectKind `json:"kind"`
	Component string      `json:"component"` // stable ID, e.g. "cable:gpu-01:ens1f0np0"
	Name      string      `json:"name"`      // for people, e.g. "cable gpu-01:ens1f0np0 <-> leaf-01:swp1"
}

// Suspect is a component a localiser blames for failing tests, with why.
// Rank 1 is the strongest. When the tests cannot tell the suspect from
// other components (the uplinks of one leaf when ECMP paths are unknown, a
// cable from its switch port without switch counters), Alternatives lists
// them: the fault is one of the suspect and its alternatives.
type Suspect struct {
	Rank int `json:"rank"`
	SuspectRef
	// Ends are the endpoints ("DEVICE:PORT") or devices the component
	// touches, so a drawing can highlight it.
	Ends []string `json:"ends,omitempty"`
	// Confidence is the suspect's share of the probability among itself,
	// its alternatives and no fault at all, 0..1.
	Confidence float64 `json:"confidence"`
	Summary    string  `json:"summary"`
	// Evidence is what a human needs to believe it: the failing tests
	// through the component, the counters that moved on it.
	Evidence     []string     `json:"evidence,omitempty"`
	Alternatives []SuspectRef `json:"alternatives,omitempty"`
}

// ErrBadSuspect is wrapped by ValidateSuspects' errors.
var ErrBadSuspect = errors.New("invalid suspect")

// ValidateSuspects reports the first suspect a report reader could not use:
// an unknown kind, an empty component, a confidence outside 0..1, ranks not
// 1, 2, 3, ….
func ValidateSuspects(ss []Suspect) error {
	for i, s := range ss {
		switch {
		case !s.Kind.Valid():
			return fmt.Errorf("suspects[%d]: kind %q: %w", i, s.Kind, ErrBadSuspect)
		case s.Component == "":
			return fmt.Errorf("suspects[%d]: no component: %w", i, ErrBadSuspect)
		case math.IsNaN(s.Confidence) || s.Confidence < 0 || s.Confidence > 1:
			return fmt.Errorf("suspects[%d] %s: confidence %v is outside 0..1: %w", i, s.Component, s.Confidence, ErrBadSuspect)
		case s.Rank != i+1:
			return fmt.Errorf("suspects[%d] %s: rank %d, want %d: %w", i, s.Component, s.Rank, i+1, ErrBadSuspect)
		}
		for j, a := range s.Alternatives {
			if !a.Kind.Valid() || a.Component == "" {
				return fmt.Errorf("suspects[%d].alternatives[%d]: kind %q component %q: %w", i, j, a.Kind, a.Component, ErrBadSuspect)
			}
		}
	}
	return nil
}
