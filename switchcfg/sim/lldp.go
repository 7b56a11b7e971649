package sim

import (
	"cmp"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/fabricctl/fabricctl/fabric"
)

// The simulators serve the LLDP neighbour table Options.Neighbors returns,
// in each NOS's own shape, for the drivers' switchcfg.NeighborReader:
//
//	sonic         show lldp table                                (lldpshow's table)
//	cumulus-nvue  sudo lldpcli -f json0 show neighbors details   (lldpd's json0)
//	arista-eos    show lldp neighbors | json                     (eAPI's summary)
//	junos         show lldp neighbors | display json             (the brief RPC reply; | no-more too)
//	cisco-nxos    show lldp neighbors detail | json              (NX-API's detail table)
//
// Each shape keeps what the real NOS drops or rewrites: EOS's summary
// has no port description, NX-OS abbreviates its local ports (Eth1/1),
// prints MACs in dotted form and makes a table of one row an object.
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

// eosLLDPJSON renders EOS's `show lldp neighbors | json`.
func eosLLDPJSON(ns []fabric.Neighbor, now time.Time) string {
	type row struct {
		Port           string `json:"port"`
		NeighborDevice string `json:"neighborDevice"`
		NeighborPort   string `json:"neighborPort"`
		TTL            int    `json:"ttl"`
	}
	rows := []row{}
	for _, n := range ns {
		rows = append(rows, row{n.LocalPort, n.SystemName, n.PortID, cmp.Or(n.TTL, 120)})
	}
	doc := map[string]any{"lldpNeighbors": rows, "tablesLastChangeTime": float64(now.Unix()),
		"tablesAgeOuts": 0, "tablesInserts": len(ns), "tablesDeletes": 0, "tablesDrops": 0}
	b, _ := json.MarshalIndent(doc, "", "    ")
	return string(b) + "\n"
}

// subtypeWords and nxosSubtypeWords are the subtype names Junos and
// NX-OS print.
var (
	subtypeWords = map[string]string{"mac": "Mac address", "ifname": "Interface name",
		"ifalias": "Interface alias", "local": "Locally assigned", "ip": "Network address"}
	nxosSubtypeWords = map[string]string{"mac": "Mac Address", "ifname": "Interface Name",
		"ifalias": "Interface Alias", "local": "Locally Assigned", "ip": "Network Address"}
)

// junosLLDPJSON renders Junos's `show lldp neighbors | display json`
// (ELS brief form: the port name in lldp-local-port-id), every value a
// list of one {"data": …}.
func junosLLDPJSON(ns []fabric.Neighbor) string {
	type v = map[string]any
	data := func(s string) []v { return []v{{"data": s}} }
	var rows []v
	for _, n := range ns {
		r := v{"lldp-local-port-id": data(n.LocalPort), "lldp-local-parent-interface-name": data("-"),
			"lldp-remote-chassis-id-subtype": data(subtypeWords[n.ChassisIDType]), "lldp-remote-chassis-id": data(n.ChassisID),
			"lldp-remote-system-name": data(n.SystemName)}
		if n.PortID != "" {
			r["lldp-remote-port-id-subtype"] = data(subtypeWords[n.PortIDType])
			r["lldp-remote-port-id"] = data(n.PortID)
		}
		if n.PortDescription != "" {
			r["lldp-remote-port-description"] = data(n.PortDescription)
		}
		rows = append(rows, r)
	}
	info := v{"attributes": v{"junos:style": "brief"}}
	if len(rows) > 0 {
		info["lldp-neighbor-information"] = rows
	}
	b, _ := json.MarshalIndent(v{"lldp-neighbors-information": []v{info}}, "", "    ")
	return string(b) + "\n"
}

// nxosLLDPJSON renders NX-OS's `show lldp neighbors detail | json`.
func nxosLLDPJSON(ns []fabric.Neighbor) string {
	type v = map[string]any
	notAdvertised := func(s string) string { return cmp.Or(s, "not advertised") }
	var rows []any
	for _, n := range ns {
		mgmt := "not advertised"
		if len(n.MgmtAddresses) > 0 {
			mgmt = n.MgmtAddresses[0]
		}
		rows = append(rows, v{"chassis_type": nxosSubtypeWords[n.ChassisIDType], "chassis_id": dottedMAC(n.ChassisID),
			"l_port_id": strings.Replace(n.LocalPort, "Ethernet", "Eth", 1), "port_type": nxosSubtypeWords[n.PortIDType],
			"port_id": notAdvertised(n.PortID), "port_desc": notAdvertised(n.PortDescription), "sys_name": notAdvertised(n.SystemName),
			"sys_desc": notAdvertised(n.SystemDescription), "ttl": fmt.Sprint(cmp.Or(n.TTL, 120)),
			"system_capability": "B, R", "enabled_capability": "B, R", "mgmt_addr_type": "IPV4", "mgmt_addr": mgmt,
			"mgmt_addr_ipv6_type": "Address not advertised", "mgmt_addr_ipv6": "not advertised", "vlan_id": "not advertised"})
	}
	doc := v{"neigh_count": fmt.Sprint(len(rows))}
	switch len(rows) {
	case 0:
	case 1: // a one-row table is an object
		doc["neigh_hdr"], doc["TABLE_nbor_detail"] = "neigh_hdr", v{"ROW_nbor_detail": rows[0]}
	default:
		doc["neigh_hdr"], doc["TABLE_nbor_detail"] = "neigh_hdr", v{"ROW_nbor_detail": rows}
	}
	b, _ := json.Marshal(doc)
	return string(b) + "\n"
}

// dottedMAC writes a colon-separated MAC as NX-OS prints it (5211.23ea.890d);
// anything else is kept.
func dottedMAC(s string) string {
	hex := strings.ReplaceAll(s, ":", "")
	if len(s) != 17 || len(hex) != 12 {
		return s
	}
	return hex[0:4] + "." + hex[4:8] + "." + hex[8:12]
}
