package switchcfg

import "github.com/fabricctl/fabricctl/fabric"

// NeighborReader is implemented by drivers that can read the switch's own
// LLDP neighbour table back, so that fabricctl sees both ends of every cable
// (hosts report theirs through lldpd, see checks/lldp). Like Parse, the
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
// Typical commands: Cumulus `nv show interface lldp -o json` (or lldpd's
// `lldpcli -f json show neighbors`), SONiC `show lldp table` / `lldpctl -f
// json`, EOS `show lldp neighbors detail | json`, NX-OS `show lldp neighbors
// detail | json`, Junos `show lldp neighbors | display json`.
type NeighborReader interface {
	// NeighborCommands lists the commands whose outputs ParseNeighbors needs.
	NeighborCommands() []string
	// ParseNeighbors turns their outputs into neighbours, one per (local
	// port, neighbour), LocalPort being the switch's port name as the
	// fabric file writes it. Pure.
	ParseNeighbors(rb Readback) ([]fabric.Neighbor, error)
}
