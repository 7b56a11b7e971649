package nxos

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/fabricctl/fabricctl/switchcfg"
)

// CmdCountersErrors shows every interface's error counters as NX-API JSON.
const CmdCountersErrors = "show interface counters errors | json"

// ErrCounters is wrapped by every error about output that is not the JSON
// of `show interface counters errors`.
var ErrCounters = errors.New("not show interface counters errors | json output")

var _ switchcfg.CounterReader = (*Driver)(nil)

// CounterFields are the receive counters read from each Ethernet port's
// rows: eth_fcs_err (FCS-Err), eth_align_err (Align-Err) and
// eth_symbol_err (Symbol-Err) as phy errors, eth_indisc (InDiscards) as
// discards. eth_rcv_err is their sum with runts and giants and is not
// read; nor is Stomped-CRC, which on a cut-through switch counts frames
// that arrived already corrupt from upstream, not on this port's cable.
var CounterFields = []switchcfg.CounterField{
	{Name: "eth_fcs_err", Kind: switchcfg.PhyErrors},
	{Name: "eth_align_err", Kind: switchcfg.PhyErrors},
	{Name: "eth_symbol_err", Kind: switchcfg.PhyErrors},
	{Name: "eth_indisc", Kind: switchcfg.Discards},
}

// CounterCommands implements switchcfg.CounterReader.
func (d *Driver) CounterCommands() []string { return []string{CmdCountersErrors} }

// ParseCounters implements switchcfg.CounterReader.
func (d *Driver) ParseCounters(rb switchcfg.Readback) ([]switchcfg.PortCounter, error) {
	return switchcfg.ParseCounterOutput(rb, CmdCountersErrors, ParseCountersErrors)
}

// ParseCountersErrors reads NX-OS's `show interface counters errors |
// json`. The text's sections (Align-Err … OutDiscards; Single-Col …
// Runts; Giants … Symbol-Err; InDiscards; Stomped-CRC) are rows of their
// own, so an interface appears once per section, each row with that
// section's counters:
//
//	{"TABLE_interface": {"ROW_interface": [
//	  {"interface": "Ethernet1/1", "eth_align_err": 0, "eth_fcs_err": 0, …},
//	  {"interface": "Ethernet1/1", "eth_single_col": 0, …, "eth_runts": 0},
//	  {"interface": "Ethernet1/1", "eth_giants": 0, …, "eth_symbol_err": 0},
//	  {"interface": "Ethernet1/1", "eth_indisc": 0}, …]}}
//
// The rows are merged by interface; only Ethernet ports are read (Eth1/1
// written out as Ethernet1/1), not mgmt0 or port-channels. A counter given
// twice for one port, one that is not a non-negative integer (a number or
// a string of digits; "--" is absent), or a row without an interface is
// an error naming the row.
func ParseCountersErrors(out []byte) ([]switchcfg.PortCounter, error) {
	var doc any
	if err := switchcfg.DecodeJSON(out, &doc); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCounters, err)
	}
	top, ok := doc.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%w: %s, want an object", ErrCounters, kind(doc))
	}
	if _, ok := top["TABLE_interface"]; !ok {
		return nil, fmt.Errorf("%w: no TABLE_interface", ErrCounters)
	}
	rows, err := nxRows(top["TABLE_interface"], "TABLE_interface", "ROW_interface")
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCounters, err)
	}
	var cs []switchcfg.PortCounter
	seen := map[string]bool{}
	for i, r := range rows {
		f := fields{row: r, path: fmt.Sprintf("TABLE_interface.ROW_interface[%d]", i)}
		port := PortName(f.get("interface"))
		if f.err == nil && port == "" {
			f.err = fmt.Errorf("%s: no interface", f.path)
		}
		if f.err != nil {
			return nil, fmt.Errorf("%w: %v", ErrCounters, f.err)
		}
		if !strings.HasPrefix(port, "Ethernet") {
			continue
		}
		for _, c := range CounterFields {
			s := f.get(c.Name)
			if f.err != nil {
				return nil, fmt.Errorf("%w: %v", ErrCounters, f.err)
			}
			if s == "" || s == "--" {
				continue
			}
			v, err := strconv.ParseUint(s, 10, 64)
			if err != nil {
				return nil, fmt.Errorf("%w: %s.%s: %q is not a count", ErrCounters, f.path, c.Name, s)
			}
			if seen[port+" "+c.Name] {
				return nil, fmt.Errorf("%w: %s.%s: %s given twice", ErrCounters, f.path, c.Name, port)
			}
			seen[port+" "+c.Name] = true
			cs = append(cs, switchcfg.PortCounter{Port: port, Kind: c.Kind, Name: c.Name, Value: v})
		}
	}
	return cs, nil
}
