package nxos

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"regexp"
	"strconv"
	"strings"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/switchcfg"
)

// CmdLLDPNeighbors lists the switch's LLDP neighbours as NX-OS JSON (the
// NX-API body; `| json` on the CLI). The detail form carries the system
// name and the port description, which the summary lacks.
const CmdLLDPNeighbors = "show lldp neighbors detail | json"

// ErrLLDP is wrapped by every error about output that is not the JSON of
// `show lldp neighbors [detail]`.
var ErrLLDP = errors.New("not show lldp neighbors detail | json output")

var _ switchcfg.NeighborReader = (*Driver)(nil)

// NeighborCommands implements switchcfg.NeighborReader.
func (d *Driver) NeighborCommands() []string { return []string{CmdLLDPNeighbors} }

// ParseNeighbors implements switchcfg.NeighborReader.
func (d *Driver) ParseNeighbors(rb switchcfg.Readback) ([]fabric.Neighbor, error) {
	return switchcfg.ParseNeighborOutput(rb, CmdLLDPNeighbors, ParseLLDPNeighbors)
}

// ParseLLDPNeighbors reads NX-OS's `show lldp neighbors detail | json`:
//
//	{"TABLE_nbor_detail": {"ROW_nbor_detail": [{"chassis_type": "Mac Address",
//	  "chassis_id": "5087.89a1.d8d6", "l_port_id": "Eth1/1", "port_type": "Interface Name",
//	  "port_id": "Ethernet1/1", "port_desc": "Ethernet1/1", "sys_name": "n9k2.ntc.com",
//	  "ttl": "103", "mgmt_addr": "10.1.100.21", …}]}, "neigh_count": "1"}
//
// and the summary `show lldp neighbors | json` (TABLE_nbor/ROW_nbor, whose
// chassis_id is the Device ID column: the system name). As everywhere in
// NX-OS JSON, a table of one row is an object rather than a list (and a
// table may itself be a list of ROW objects), values may be strings,
// numbers or null, and "not advertised" means none. The local port is
// written out in full (Eth1/1 → Ethernet1/1, as the fabric file and the
// running configuration name it); the neighbour's ports are kept as sent.
// Empty output, or a neighbour count of 0 without a table, is no
// neighbour (NX-OS prints no table for an empty one); anything else
// without one of the two tables (a count of 3 with no rows too), or a
// row without l_port_id, is an error naming the row.
func ParseLLDPNeighbors(out []byte) ([]fabric.Neighbor, error) {
	if len(bytes.TrimSpace(out)) == 0 {
		return nil, nil
	}
	var doc any
	if err := switchcfg.DecodeNeighborJSON(out, &doc); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrLLDP, err)
	}
	top, ok := doc.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%w: %s, want an object", ErrLLDP, kind(doc))
	}
	table, row, detail := "TABLE_nbor_detail", "ROW_nbor_detail", true
	if _, ok := top[table]; !ok {
		table, row, detail = "TABLE_nbor", "ROW_nbor", false
	}
	if _, ok := top[table]; !ok {
		if count := (&fields{row: top}).get("neigh_count"); count == "0" {
			return nil, nil
		}
		return nil, fmt.Errorf("%w: no TABLE_nbor_detail", ErrLLDP)
	}
	rows, err := nxRows(top[table], table, row)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrLLDP, err)
	}
	var ns []fabric.Neighbor
	for i, r := range rows {
		f := fields{row: r, path: fmt.Sprintf("%s.%s[%d]", table, row, i)}
		n := fabric.Neighbor{LocalPort: PortName(f.get("l_port_id")), Protocol: "LLDP",
			PortID: f.get("port_id"), PortDescription: f.get("port_desc"), SystemDescription: f.get("sys_desc")}
		if detail {
			n.SystemName, n.ChassisID = f.get("sys_name"), f.get("chassis_id")
			n.ChassisIDType = fabric.LLDPSubtype(f.get("chassis_type"), n.ChassisID)
		} else {
			n.SystemName = f.get("chassis_id")
		}
		n.PortIDType = fabric.LLDPSubtype(f.get("port_type"), n.PortID)
		if n.PortID == "" {
			n.PortIDType = ""
		}
		for _, k := range []string{"mgmt_addr", "mgmt_addr_ipv6"} {
			if a := f.get(k); net.ParseIP(a) != nil {
				n.MgmtAddresses = append(n.MgmtAddresses, a)
			}
		}
		for _, k := range []string{"hold_time", "ttl"} {
			if ttl, err := strconv.Atoi(f.get(k)); err == nil && ttl > 0 {
				n.TTL = ttl
				break
			}
		}
		if f.err != nil {
			return nil, fmt.Errorf("%w: %v", ErrLLDP, f.err)
		}
		if n.LocalPort == "" {
			return nil, fmt.Errorf("%w: %s: no l_port_id", ErrLLDP, f.path)
		}
		ns = append(ns, n)
	}
	return ns, nil
}

// nxRows returns the rows of an NX-OS table: {ROW: {…}}, {ROW: [{…}, …]},
// or a list of such objects.
func nxRows(t any, table, row string) ([]map[string]any, error) {
	var tables []any
	switch v := t.(type) {
	case []any:
		tables = v
	default:
		tables = []any{v}
	}
	var out []map[string]any
	for i, tv := range tables {
		path := table
		if len(tables) > 1 {
			path = fmt.Sprintf("%s[%d]", table, i)
		}
		tm, ok := tv.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%s: %s, want an object with %s", path, kind(tv), row)
		}
		rv, ok := tm[row]
		if !ok {
			return nil, fmt.Errorf("%s: no %s", path, row)
		}
		items, isList := rv.([]any)
		if !isList {
			items = []any{rv}
		}
		for j, item := range items {
			m, ok := item.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("%s.%s[%d]: %s, want an object", path, row, j, kind(item))
			}
			out = append(out, m)
		}
	}
	return out, nil
}

// fields reads one row's values as text, keeping the first type error.
type fields struct {
	row  map[string]any
	path string
	err  error
}

func (f *fields) get(key string) string {
	var s string
	switch v := f.row[key].(type) {
	case nil:
	case string:
		s = strings.TrimSpace(v)
	case float64:
		s = strconv.FormatFloat(v, 'f', -1, 64)
	case bool:
		s = strconv.FormatBool(v)
	default:
		if f.err == nil {
			f.err = fmt.Errorf("%s.%s: %s, want a string or number", f.path, key, kind(v))
		}
	}
	if strings.EqualFold(s, "not advertised") || strings.EqualFold(s, "null") {
		return ""
	}
	return s
}

// kind names a decoded JSON value's type by the first byte of its
// encoding.
func kind(v any) string {
	b, _ := json.Marshal(v)
	switch {
	case len(b) == 0:
	case b[0] == '{':
		return "an object"
	case b[0] == '[':
		return "a list"
	case b[0] == '"':
		return "a string"
	case b[0] == 'n':
		return "null"
	case b[0] == 't' || b[0] == 'f':
		return "a boolean"
	}
	return "a number"
}

// abbrevRE matches NX-OS's short Ethernet names (Eth1/1, Eth1/49/2, eth1/1).
var abbrevRE = regexp.MustCompile(`^(?i:eth|ethernet)([0-9]+(?:/[0-9]+)+)$`)

// PortName writes an NX-OS interface name out as the fabric file and the
// running configuration name it: Eth1/1 is Ethernet1/1; other names
// (mgmt0, port-channel10) are kept.
func PortName(name string) string {
	if m := abbrevRE.FindStringSubmatch(name); m != nil {
		return "Ethernet" + m[1]
	}
	return name
}
