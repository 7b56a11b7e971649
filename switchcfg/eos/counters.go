package eos

import (
	"errors"
	"fmt"

	"github.com/fabricctl/fabricctl/switchcfg"
)

// CmdInterfaces shows every interface with its counters as eAPI JSON.
const CmdInterfaces = "show interfaces | json"

// ErrCounters is wrapped by every error about output that is not the JSON
// of `show interfaces`.
var ErrCounters = errors.New("not show interfaces | json output")

// CounterFields are the receive error counters read from each Ethernet
// port's interfaceCounters: inputErrorsDetail's corruption counters as
// phy errors, inDiscards as discards. totalInErrors is their sum with
// runts and giants (an MTU mismatch, not a cable) and is not read.
var CounterFields = []switchcfg.CounterField{
	{Name: "fcsErrors", Kind: switchcfg.PhyErrors},
	{Name: "alignmentErrors", Kind: switchcfg.PhyErrors},
	{Name: "symbolErrors", Kind: switchcfg.PhyErrors},
	{Name: "inDiscards", Kind: switchcfg.Discards},
}

var _ switchcfg.CounterReader = (*Driver)(nil)

// CounterCommands implements switchcfg.CounterReader.
func (d *Driver) CounterCommands() []string { return []string{CmdInterfaces} }

// ParseCounters implements switchcfg.CounterReader.
func (d *Driver) ParseCounters(rb switchcfg.Readback) ([]switchcfg.PortCounter, error) {
	return switchcfg.ParseCounterOutput(rb, CmdInterfaces, ParseInterfaceCounters)
}

// ParseInterfaceCounters reads EOS's `show interfaces | json`:
//
//	{"interfaces": {"Ethernet1": {"hardware": "ethernet", "interfaceCounters": {
//	  "inDiscards": 0, "totalInErrors": 0, "inputErrorsDetail": {"fcsErrors": 0,
//	  "alignmentErrors": 0, "symbolErrors": 0, "runtFrames": 0, …}, …}, …}, …}}
//
// Only ports whose hardware is "ethernet" are read (not Port-Channels,
// VLANs, loopbacks or subinterfaces); one without interfaceCounters (a
// port in errdisable on some releases) is left out. A counter that is
// not a non-negative integer is an error naming the line.
func ParseInterfaceCounters(out []byte) ([]switchcfg.PortCounter, error) {
	type detail struct {
		FCS       *uint64 `json:"fcsErrors"`
		Alignment *uint64 `json:"alignmentErrors"`
		Symbol    *uint64 `json:"symbolErrors"`
	}
	var doc struct {
		Interfaces *map[string]struct {
			Hardware string `json:"hardware"`
			Counters *struct {
				InDiscards *uint64 `json:"inDiscards"`
				Detail     *detail `json:"inputErrorsDetail"`
			} `json:"interfaceCounters"`
		} `json:"interfaces"`
	}
	if err := switchcfg.DecodeJSON(out, &doc); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCounters, err)
	}
	if doc.Interfaces == nil {
		return nil, fmt.Errorf("%w: no interfaces object", ErrCounters)
	}
	var cs []switchcfg.PortCounter
	for name, in := range *doc.Interfaces {
		if in.Hardware != "ethernet" || in.Counters == nil {
			continue
		}
		if name == "" {
			return nil, fmt.Errorf("%w: an interface without a name", ErrCounters)
		}
		var d detail
		if in.Counters.Detail != nil {
			d = *in.Counters.Detail
		}
		for i, v := range []*uint64{d.FCS, d.Alignment, d.Symbol, in.Counters.InDiscards} {
			if v != nil {
				f := CounterFields[i]
				cs = append(cs, switchcfg.PortCounter{Port: name, Kind: f.Kind, Name: f.Name, Value: *v})
			}
		}
	}
	return cs, nil
}
