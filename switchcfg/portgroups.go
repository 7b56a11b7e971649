package switchcfg

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/fabricctl/fabricctl/fabric"
)

// parseGrouped is ParseFor's reading with every port kept: the driver's
// reading of all of want's ports (every port, when want lists none) is
// redone port by port, the ports are grouped by what they read as, the
// group of the most ports (the first port's on a tie) gives the switch-wide
// MTU, trust, classes and PFC, and every other group is listed in
// PortGroups with its own. A driver that reads groups itself (SONiC), or a
// switch whose ports all read alike, keeps its reading as it is.
func parseGrouped(parse func(fabric.SwitchIntent) (fabric.SwitchIntent, error), want fabric.SwitchIntent) (fabric.SwitchIntent, error) {
	all, err := parse(want)
	if err != nil || len(all.PortGroups) > 0 {
		return all, err
	}
	ports := slices.Clone(all.Ports)
	for _, p := range want.Ports {
		if !slices.Contains(ports, p) {
			ports = append(ports, p) // declared, read without QoS: a group too
		}
	}
	if len(ports) < 2 {
		return all, nil
	}
	type group struct {
		si    fabric.SwitchIntent
		ports []string
	}
	var order []string
	groups := map[string]*group{}
	for _, p := range ports {
		one := want
		one.Ports = []string{p}
		si, err := parse(one)
		if err != nil {
			// the whole reading worked: a port that does not read alone is
			// a reader bug, said rather than hidden behind a collapsed reading
			return fabric.SwitchIntent{}, fmt.Errorf("reading port %s on its own: %w", p, err)
		}
		k := groupKey(si)
		if groups[k] == nil {
			groups[k] = &group{si: si}
			order = append(order, k)
		}
		groups[k].ports = append(groups[k].ports, p)
	}
	if len(order) == 1 {
		return all, nil
	}
	top := order[0]
	for _, k := range order[1:] {
		if len(groups[k].ports) > len(groups[top].ports) {
			top = k
		}
	}
	t := groups[top].si
	all.MTU, all.Trust, all.Classes, all.PFC = t.MTU, t.Trust, t.Classes, t.PFC
	for _, k := range order {
		if k == top {
			continue
		}
		g := groups[k]
		all.PortGroups = append(all.PortGroups, fabric.SwitchPortGroup{Ports: g.ports, MTU: g.si.MTU, Trust: g.si.Trust,
			Classes: g.si.Classes, PFC: g.si.PFC})
	}
	return all, nil
}

// groupKey is what a port reads as, for grouping.
func groupKey(si fabric.SwitchIntent) string {
	b, _ := json.Marshal(struct {
		MTU     int
		Trust   string
		Classes []fabric.SwitchClass
		PFC     fabric.SwitchPFC
	}{si.MTU, si.Trust, si.Classes, si.PFC})
	return string(b)
}
