package switchcfg

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/fabricctl/fabricctl/fabric"
)

// NeighborReader is implemented by drivers that can read the switch's own
// LLDP neighbour table back, so that fabricctl sees both ends of every cable
// (hosts report theirs through lldpd, see fabric/lldp). Like Parse, the
// parse half is pure and golden-tested on the NOS's real output; the
// commands run through the same Session as the configuration read-back:
//
//	if nr, ok := d.(switchcfg.NeighborReader); ok {
//		rb := switchcfg.Readback{}
//		for _, c := range nr.NeighborCommands() {
//			out, err := sess.Send(ctx, c)
//			…
//			rb[c] = []byte(out)
//		}
//		ns, err := nr.ParseNeighbors(rb) // []fabric.Neighbor, LocalPort = the switch port
//	}
//
// The drivers' commands: Cumulus `sudo lldpcli -f json0 show neighbors
// details`, SONiC `show lldp table`, EOS `show lldp neighbors | json`,
// Junos `show lldp neighbors | display json`, NX-OS `show lldp neighbors
// detail | json`. ParseNeighborOutput and DecodeNeighborJSON are their shared
// first steps; fabric.LLDPSubtype maps the NOSes' subtype words.
type NeighborReader interface {
	// NeighborCommands lists the commands whose outputs ParseNeighbors needs.
	NeighborCommands() []string
	// ParseNeighbors turns their outputs into neighbours, one per (local
	// port, neighbour), LocalPort being the switch's port name as the
	// fabric file writes it. Pure.
	ParseNeighbors(rb Readback) ([]fabric.Neighbor, error)
}

// ParseNeighborOutput is a driver's ParseNeighbors for one command:
// parse applied to the output of cmd in rb, or an error saying that
// output is missing.
func ParseNeighborOutput(rb Readback, cmd string, parse func([]byte) ([]fabric.Neighbor, error)) ([]fabric.Neighbor, error) {
	out, ok := rb[cmd]
	if !ok {
		return nil, fmt.Errorf("parsing LLDP neighbours: no output of %q", cmd)
	}
	return parse(out)
}

// DecodeNeighborJSON decodes a NOS's JSON neighbour table (one document)
// into v. A syntax or type error names its line and column in out, and
// text after the document is an error too, so that a NOS that printed a
// warning beside its JSON is not read as a table.
func DecodeNeighborJSON(out []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(out))
	err := dec.Decode(v)
	if err == nil {
		if _, extra := dec.Token(); extra != io.EOF {
			return fmt.Errorf("%s: text after the JSON document", lineCol(out, int(dec.InputOffset())))
		}
		return nil
	}
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se): // the offending byte is the last one read
		return fmt.Errorf("%s: %v", lineCol(out, int(se.Offset)-1), err)
	case errors.As(err, &te):
		return fmt.Errorf("%s: %v", lineCol(out, int(te.Offset)), err)
	case errors.Is(err, io.EOF):
		return errors.New("no JSON document")
	}
	return fmt.Errorf("%s: %v", lineCol(out, int(dec.InputOffset())), err)
}

// lineCol is "line L, column C" of byte offset off in data.
func lineCol(data []byte, off int) string {
	off = min(max(off, 0), len(data))
	line := 1 + bytes.Count(data[:off], []byte("\n"))
	col := off - bytes.LastIndexByte(data[:off], '\n')
	return fmt.Sprintf("line %d, column %d", line, col)
}
