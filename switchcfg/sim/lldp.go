package sim

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/fabricctl/fabricctl/fabric"
)

// The simulators serve the LLDP neighbour table Options.Neighbors returns,
// in each NOS's own shape, for the drivers' switchcfg.NeighborReader:
//
//	sonic         show lldp table                                (lldpshow's table)
//	cumulus-nvue  sudo lldpcli -f json0 show neighbors details   (lldpd's json0)
//
// In the two-leaf lab, `fabricctl switch-sim --lldp-socket` makes it the
// leaf's real lldpd table. A failing source answers like a NOS whose LLDP
// daemon is down: an error, exit status 1.

// neighbors returns the device's LLDP table (none when no source is set).
func (e *env) neighbors() ([]fabric.Neighbor, error) {
	if e.lldp == nil {
		return nil, nil
	}
	return e.lldp()
}

// lldpTable renders SONiC's `show lldp table`.
func lldpTable(ns []fabric.Neighbor) string {
	rows := [][]string{{"LocalPort", "RemoteDevice", "RemotePortID", "Capability", "RemotePortDescr"}}
	for _, n := range ns {
		rows = append(rows, []string{n.LocalPort, n.SystemName, n.PortID, "BR", n.PortDescription})
	}
	width := make([]int, 5)
	for _, r := range rows {
		for i, c := range r {
			width[i] = max(width[i], len(c), 11)
		}
	}
	var b strings.Builder
	b.WriteString("Capability codes: (R) Router, (B) Bridge, (O) Other\n")
	line := func(cells []string) {
		var parts []string
		for i, c := range cells {
			if i < len(cells)-1 {
				c += strings.Repeat(" ", width[i]-len(c))
			}
			parts = append(parts, c)
		}
		b.WriteString(strings.TrimRight(strings.Join(parts, "  "), " ") + "\n")
	}
	line(rows[0])
	var dashes []string
	for _, w := range width {
		dashes = append(dashes, strings.Repeat("-", w))
	}
	line(dashes)
	for _, r := range rows[1:] {
		line(r)
	}
	fmt.Fprintf(&b, "%s\nTotal entries displayed:  %d\n", strings.Repeat("-", 50), len(ns))
	return b.String()
}

// lldpJSON0 renders `lldpcli -f json0 show neighbors details`: every
// value in a list, every leaf as {"value": …}.
func lldpJSON0(ns []fabric.Neighbor) string {
	type v = map[string]any
	val := func(s string) []v { return []v{{"value": s}} }
	var ifaces []v
	for _, n := range ns {
		ch := v{"id": []v{{"type": n.ChassisIDType, "value": n.ChassisID}}}
		if n.SystemName != "" {
			ch["name"] = val(n.SystemName)
		}
		if n.SystemDescription != "" {
			ch["descr"] = val(n.SystemDescription)
		}
		port := v{"id": []v{{"type": n.PortIDType, "value": n.PortID}}}
		if n.PortDescription != "" {
			port["descr"] = val(n.PortDescription)
		}
		if n.TTL > 0 {
			port["ttl"] = val(fmt.Sprint(n.TTL))
		}
		via := n.Protocol
		if via == "" {
			via = "LLDP"
		}
		ifaces = append(ifaces, v{"name": n.LocalPort, "via": via, "chassis": []v{ch}, "port": []v{port}})
	}
	doc := v{"lldp": []v{{}}}
	if len(ifaces) > 0 {
		doc["lldp"] = []v{{"interface": ifaces}}
	}
	b, _ := json.MarshalIndent(doc, "", "  ")
	return string(b) + "\n"
}
