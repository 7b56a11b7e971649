package junos

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"

	"github.com/fabricctl/fabricctl/switchcfg"
)

// CmdInterfacesExtensive shows every interface with its error counters in
// Junos's JSON rendering of the get-interface-information RPC (extensive:
// the input-error-list and the MAC statistics are only in that level).
const CmdInterfacesExtensive = "show interfaces extensive | display json"

// ErrCounters is wrapped by every error about output that is not the JSON
// of `show interfaces extensive`.
var ErrCounters = errors.New("not show interfaces extensive | display json output")

var _ switchcfg.CounterReader = (*Driver)(nil)

// CounterFields are the receive counters read from each Ethernet port:
// input-error-list's framing-errors (frames with a bad FCS) and
// ethernet-mac-statistics' input-crc-errors (CRC/Align errors) and
// input-code-violations (symbol errors) as phy errors, input-error-list's
// input-drops (dropped by the input queue) as discards. input-errors is a
// sum, and policed discards (unknown protocols), L3 incompletes and
// resource errors say nothing of the cable; they are not read.
var CounterFields = []switchcfg.CounterField{
	{Name: "framing-errors", Kind: switchcfg.PhyErrors},
	{Name: "input-crc-errors", Kind: switchcfg.PhyErrors},
	{Name: "input-code-violations", Kind: switchcfg.PhyErrors},
	{Name: "input-drops", Kind: switchcfg.Discards},
}

// ethernetPort matches Junos's Ethernet port names (ge-, xe-, et-, mge-
// FPC/PIC/port, a channel :N); not ae bundles, lo0, irb, em0, fxp0.
var ethernetPort = regexp.MustCompile(`^(ge|xe|et|mge)-[0-9]+/[0-9]+/[0-9]+(:[0-9]+)?$`)

// CounterCommands implements switchcfg.CounterReader.
func (d *Driver) CounterCommands() []string { return []string{CmdInterfacesExtensive} }

// ParseCounters implements switchcfg.CounterReader.
func (d *Driver) ParseCounters(rb switchcfg.Readback) ([]switchcfg.PortCounter, error) {
	return switchcfg.ParseCounterOutput(rb, CmdInterfacesExtensive, ParseInterfacesExtensive)
}

// ParseInterfacesExtensive reads `show interfaces extensive | display
// json`, every leaf a list of one {"data": "…"}:
//
//	{"interface-information": [{"physical-interface": [{
//	  "name": [{"data": "et-0/0/0"}],
//	  "input-error-list": [{"input-errors": [{"data": "0"}], "input-drops": [{"data": "0"}],
//	    "framing-errors": [{"data": "0"}], …}],
//	  "ethernet-mac-statistics": [{"input-crc-errors": [{"data": "0"}],
//	    "input-code-violations": [{"data": "0"}], …}], …}, …]}]}
//
// Only Ethernet ports are read; a port listed twice, or a counter that is
// not a count, is an error naming the port.
func ParseInterfacesExtensive(out []byte) ([]switchcfg.PortCounter, error) {
	type errorList struct {
		Framing jtext `json:"framing-errors"`
		Drops   jtext `json:"input-drops"`
	}
	type macStats struct {
		CRC  jtext `json:"input-crc-errors"`
		Code jtext `json:"input-code-violations"`
	}
	var doc struct {
		Info *[]struct {
			Physical []struct {
				Name   jtext       `json:"name"`
				Errors []errorList `json:"input-error-list"`
				MAC    []macStats  `json:"ethernet-mac-statistics"`
			} `json:"physical-interface"`
		} `json:"interface-information"`
	}
	if err := switchcfg.DecodeJSON(out, &doc); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCounters, err)
	}
	if doc.Info == nil {
		return nil, fmt.Errorf("%w: no interface-information", ErrCounters)
	}
	var cs []switchcfg.PortCounter
	seen := map[string]bool{}
	for _, info := range *doc.Info {
		for i, p := range info.Physical {
			name := p.Name.String()
			if !ethernetPort.MatchString(name) {
				continue
			}
			if seen[name] {
				return nil, fmt.Errorf("%w: physical-interface[%d] (%s): listed twice", ErrCounters, i, name)
			}
			seen[name] = true
			var el errorList
			var mac macStats
			if len(p.Errors) > 0 {
				el = p.Errors[0]
			}
			if len(p.MAC) > 0 {
				mac = p.MAC[0]
			}
			for k, t := range []jtext{el.Framing, mac.CRC, mac.Code, el.Drops} {
				s := t.String()
				if s == "" {
					continue
				}
				v, err := strconv.ParseUint(s, 10, 64)
				if err != nil {
					return nil, fmt.Errorf("%w: physical-interface[%d] (%s): %s %q is not a count", ErrCounters, i, name, CounterFields[k].Name, s)
				}
				cs = append(cs, switchcfg.PortCounter{Port: name, Kind: CounterFields[k].Kind, Name: CounterFields[k].Name, Value: v})
			}
		}
	}
	return cs, nil
}
