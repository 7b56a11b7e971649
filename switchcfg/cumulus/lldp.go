package cumulus

import (
	"fmt"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/fabric/lldp"
	"github.com/fabricctl/fabricctl/switchcfg"
)

// CmdLLDPNeighbors lists the switch's LLDP neighbours. Cumulus Linux runs
// lldpd; its lldpcli in json0 (every value a list, the shape Cumulus 4's
// `net show lldp json` printed) is stable across lldpd versions, whereas
// NVUE 5.x only shows LLDP per interface (`nv show interface swp1 lldp`).
const CmdLLDPNeighbors = "sudo lldpcli -f json0 show neighbors details"

// NeighborCommands implements switchcfg.NeighborReader.
func (d *Driver) NeighborCommands() []string { return []string{CmdLLDPNeighbors} }

// ParseNeighbors implements switchcfg.NeighborReader: lldpcli's output,
// parsed by fabric/lldp (which also takes -f json and -f keyvalue).
func (d *Driver) ParseNeighbors(rb switchcfg.Readback) ([]fabric.Neighbor, error) {
	return switchcfg.ParseNeighborOutput(rb, CmdLLDPNeighbors, func(out []byte) ([]fabric.Neighbor, error) {
		ns, err := lldp.Parse(out)
		if err != nil {
			return nil, fmt.Errorf("parsing %q: %w", CmdLLDPNeighbors, err)
		}
		return ns, nil
	})
}
