package cumulus

import (
	"errors"
	"fmt"
	"regexp"

	"github.com/fabricctl/fabricctl/switchcfg"
)

// CmdLinkStats lists every link with its kernel statistics as JSON.
// Cumulus Linux's switchd keeps the swp netdevs' statistics in step with
// the ASIC's port counters, so iproute2 reads the hardware's receive
// errors; NVUE's `nv show interface <if> counters` shows the same
// counters per interface only, and its JSON layout changed across 5.x.
const CmdLinkStats = "ip -s -s -j link show"

// ErrCounters is wrapped by every error about output that is not the
// JSON of `ip -s -s -j link show`.
var ErrCounters = errors.New("not ip -s -s -j link show output")

// CounterFields are the receive counters read from each front-panel
// port's stats64.rx: crc_errors (FCS) and frame_errors (alignment) as phy
// errors, dropped as discards. errors is their sum with length and FIFO
// errors and is not read.
var CounterFields = []switchcfg.CounterField{
	{Name: "crc_errors", Kind: switchcfg.PhyErrors},
	{Name: "frame_errors", Kind: switchcfg.PhyErrors},
	{Name: "dropped", Kind: switchcfg.Discards},
}

// frontPanel matches Cumulus's front-panel port names: swp1, and a
// breakout lane swp1s0; not eth0, bonds, bridges, VLAN subinterfaces.
var frontPanel = regexp.MustCompile(`^swp[0-9]+(s[0-9]+)?$`)

var _ switchcfg.CounterReader = (*Driver)(nil)

// CounterCommands implements switchcfg.CounterReader.
func (d *Driver) CounterCommands() []string { return []string{CmdLinkStats} }

// ParseCounters implements switchcfg.CounterReader.
func (d *Driver) ParseCounters(rb switchcfg.Readback) ([]switchcfg.PortCounter, error) {
	return switchcfg.ParseCounterOutput(rb, CmdLinkStats, ParseLinkStats)
}

// ParseLinkStats reads `ip -s -s -j link show` (iproute2's JSON; -s
// twice adds the error breakdown):
//
//	[{"ifname": "swp1", "stats64": {"rx": {"bytes": …, "errors": 0,
//	  "dropped": 0, "crc_errors": 0, "frame_errors": 0, …}, "tx": {…}}}, …]
//
// Only front-panel ports (swpN, swpNsM) are read; one without stats64
// (an iproute2 without -s support) or listed twice is an error naming
// it, as is a counter that is not a non-negative integer.
func ParseLinkStats(out []byte) ([]switchcfg.PortCounter, error) {
	var links []struct {
		Name  string `json:"ifname"`
		Stats *struct {
			RX struct {
				CRC     *uint64 `json:"crc_errors"`
				Frame   *uint64 `json:"frame_errors"`
				Dropped *uint64 `json:"dropped"`
			} `json:"rx"`
		} `json:"stats64"`
	}
	if err := switchcfg.DecodeJSON(out, &links); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCounters, err)
	}
	if links == nil {
		return nil, fmt.Errorf("%w: no list of links", ErrCounters)
	}
	var cs []switchcfg.PortCounter
	seen := map[string]bool{}
	for i, l := range links {
		if !frontPanel.MatchString(l.Name) {
			continue
		}
		if seen[l.Name] {
			return nil, fmt.Errorf("%w: link %d (%s): listed twice", ErrCounters, i, l.Name)
		}
		seen[l.Name] = true
		if l.Stats == nil {
			return nil, fmt.Errorf("%w: link %d (%s): no stats64", ErrCounters, i, l.Name)
		}
		for k, v := range []*uint64{l.Stats.RX.CRC, l.Stats.RX.Frame, l.Stats.RX.Dropped} {
			if v != nil {
				f := CounterFields[k]
				cs = append(cs, switchcfg.PortCounter{Port: l.Name, Kind: f.Kind, Name: f.Name, Value: *v})
			}
		}
	}
	return cs, nil
}
