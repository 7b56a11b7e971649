package sonic

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/fabricctl/fabricctl/switchcfg"
)

// CmdCounters shows every front-panel port's counters (portstat's table).
const CmdCounters = "show interfaces counters"

// ErrCounters is wrapped by every error about output that is not the
// table of `show interfaces counters`.
var ErrCounters = errors.New("not show interfaces counters output")

var _ switchcfg.CounterReader = (*Driver)(nil)

// CounterFields are the receive counters read from portstat's table:
// RX_ERR (SAI's IF_IN_ERRORS: frames received with errors, FCS errors
// first among them) as phy errors, RX_DRP (IF_IN_DISCARDS and the
// ASIC's receive drops) as discards. RX_OVR (oversize) says nothing of
// the cable and is not read.
var CounterFields = []switchcfg.CounterField{
	{Name: "RX_ERR", Kind: switchcfg.PhyErrors},
	{Name: "RX_DRP", Kind: switchcfg.Discards},
}

// frontPanel matches SONiC's front-panel ports (Ethernet0); not the
// backplane ports of a multi-ASIC switch (Ethernet-BP0).
var frontPanel = regexp.MustCompile(`^Ethernet[0-9]+$`)

// CounterCommands implements switchcfg.CounterReader.
func (d *Driver) CounterCommands() []string { return []string{CmdCounters} }

// ParseCounters implements switchcfg.CounterReader.
func (d *Driver) ParseCounters(rb switchcfg.Readback) ([]switchcfg.PortCounter, error) {
	return switchcfg.ParseCounterOutput(rb, CmdCounters, func(out []byte) ([]switchcfg.PortCounter, error) {
		return ParseCounters(string(out))
	})
}

// ParseCounters reads portstat's table, as `show interfaces counters`
// prints it:
//
//	    IFACE    STATE    RX_OK        RX_BPS    RX_UTIL    RX_ERR    RX_DRP    RX_OVR    TX_OK …
//	---------  -------  -------  ------------  ---------  --------  --------  --------  ------- …
//	Ethernet0        U        8  2000.00 MB/s     64.00%        10       100       N/A       10 …
//
// Columns are cut where the dashes under the header are (RX_BPS holds a
// space); counts may have thousands separators (1,000); N/A is absent.
// Lines before the header (the rates' period, the time of the last
// clear) and after the table (a reminder) are skipped. No header, a
// header without RX_ERR and RX_DRP, or a count that is not one is an
// error naming the line.
func ParseCounters(text string) ([]switchcfg.PortCounter, error) {
	lines := strings.Split(strings.ReplaceAll(text, "\r", ""), "\n")
	head := -1
	for i, l := range lines {
		if f := strings.Fields(l); len(f) > 0 && f[0] == "IFACE" {
			head = i
			break
		}
	}
	if head < 0 {
		return nil, fmt.Errorf("%w: no IFACE header", ErrCounters)
	}
	if head+1 >= len(lines) || !strings.HasPrefix(strings.TrimSpace(lines[head+1]), "---") {
		return nil, fmt.Errorf("line %d: %w: header without the dashed line under it", head+1, ErrCounters)
	}
	cols := dashColumns(lines[head+1])
	names := cutColumns(lines[head], cols)
	at := map[string]int{}
	for j, n := range names {
		at[n] = j
	}
	for _, f := range CounterFields {
		if _, ok := at[f.Name]; !ok {
			return nil, fmt.Errorf("line %d: %w: no %s column", head+1, ErrCounters, f.Name)
		}
	}
	var cs []switchcfg.PortCounter
	seen := map[string]bool{}
	for i := head + 2; i < len(lines); i++ {
		line := strings.TrimRight(lines[i], " \t")
		if strings.TrimSpace(line) == "" {
			break // the table ends; a reminder may follow
		}
		f := cutColumns(line, cols)
		port := f[0]
		if !frontPanel.MatchString(port) {
			continue
		}
		if seen[port] {
			return nil, fmt.Errorf("line %d: %w: %s listed twice", i+1, ErrCounters, port)
		}
		seen[port] = true
		for _, c := range CounterFields {
			s := strings.ReplaceAll(f[at[c.Name]], ",", "")
			if s == "N/A" || s == "" {
				continue
			}
			v, err := strconv.ParseUint(s, 10, 64)
			if err != nil {
				return nil, fmt.Errorf("line %d: %w: %s %s %q is not a count", i+1, ErrCounters, port, c.Name, clip(f[at[c.Name]]))
			}
			cs = append(cs, switchcfg.PortCounter{Port: port, Kind: c.Kind, Name: c.Name, Value: v})
		}
	}
	return cs, nil
}
