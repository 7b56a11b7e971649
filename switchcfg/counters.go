package switchcfg

import (
	"fmt"
	"slices"
	"strings"
)

// ErrorKind says what a receive error counter of a switch port is
// evidence of, as the localiser (checks/localize) reads it.
type ErrorKind string

// The error kinds.
const (
	// PhyErrors: frames that arrived corrupted (FCS/CRC, symbol, alignment,
	// framing errors): the cable or transceivers arriving at this port.
	PhyErrors ErrorKind = "phy-errors"
	// Discards: frames the port received whole and dropped (buffers,
	// policy): the port or its load, not the cable.
	Discards ErrorKind = "discards"
)

// PortCounter is one receive error counter of one switch port, as the NOS
// reports it: a running total since the counters were last cleared.
type PortCounter struct {
	Port  string    `json:"port"` // the switch's port name as the fabric file writes it
	Kind  ErrorKind `json:"kind"`
	Name  string    `json:"name"` // the counter as the NOS names it (fcsErrors, eth_fcs_err, framing-errors…)
	Value uint64    `json:"value"`
}

// CounterReader is implemented by drivers that can read the switch's
// per-port receive error counters, so that fabricctl check can tell a
// corrupting cable (errors counted where it arrives) from a failing host.
// Like NeighborReader, the parse half is pure and golden-tested on the
// NOS's real output, and the commands run through the same Session:
//
//	if cr, ok := d.(switchcfg.CounterReader); ok {
//		rb := switchcfg.Readback{}
//		for _, c := range cr.CounterCommands() {
//			out, err := sess.Send(ctx, c)
//			…
//			rb[c] = []byte(out)
//		}
//		cs, err := cr.ParseCounters(rb) // []PortCounter, every physical port
//	}
//
// The drivers' commands are listed in docs/localisation.md ("Switch port
// error counters") with the counters each reads as which kind. Only physical ports are reported
// (no VLAN, loopback, bond or logical unit), each with every counter it
// has, zeros included: a port that is read and shows nothing is evidence
// too.
type CounterReader interface {
	// CounterCommands lists the commands whose outputs ParseCounters needs.
	CounterCommands() []string
	// ParseCounters turns their outputs into counters, sorted by port
	// and name. Pure.
	ParseCounters(rb Readback) ([]PortCounter, error)
}

// ParseCounterOutput is a driver's ParseCounters for one command: parse
// applied to the output of cmd in rb, the counters sorted, or an error
// naming the command (its output missing or not what parse reads).
func ParseCounterOutput(rb Readback, cmd string, parse func([]byte) ([]PortCounter, error)) ([]PortCounter, error) {
	out, ok := rb[cmd]
	if !ok {
		return nil, fmt.Errorf("parsing port counters: no output of %q", cmd)
	}
	cs, err := parse(out)
	if err != nil {
		return nil, fmt.Errorf("parsing the output of %q: %w", cmd, err)
	}
	SortCounters(cs)
	return cs, nil
}

// SortCounters sorts counters by port, then name.
func SortCounters(cs []PortCounter) {
	slices.SortFunc(cs, func(a, b PortCounter) int {
		if c := strings.Compare(a.Port, b.Port); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
}

// CounterField maps a NOS's counter name to its kind; a driver lists the
// counters it reads as a table of these, so that docs and code agree.
type CounterField struct {
	Name string
	Kind ErrorKind
}

// DecodeJSON decodes one JSON document of a NOS's counter output into v,
// as DecodeNeighborJSON does: errors name their line and column, and text
// after the document is an error.
func DecodeJSON(out []byte, v any) error { return DecodeNeighborJSON(out, v) }
