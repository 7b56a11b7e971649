package lldp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/fabricctl/fabricctl/fabric"
)

// Command is what a host runs to list its neighbours in the format Parse
// reads best. `details` adds nothing Parse needs but costs nothing either.
var Command = []string{"lldpcli", "-f", "json", "show", "neighbors", "details"}

// MaxInput bounds the output Parse accepts: a host with 64 ports and a
// neighbour on each prints well under 1 MiB.
const MaxInput = 16 << 20

// ErrFormat is wrapped by every error about output that is not what lldpcli prints.
var ErrFormat = errors.New("not lldpcli output")

// Parse reads `lldpcli -f json|json0|keyvalue show neighbors` output and
// returns the neighbours in the order lldpcli printed them. Empty output and
// an empty neighbour table ({"lldp": {}}) yield none and no error.
func Parse(out []byte) ([]fabric.Neighbor, error) {
	t := bytes.TrimSpace(out)
	if len(t) > 0 && t[0] == '{' {
		return ParseJSON(out)
	}
	return ParseKeyValue(out)
}

// ParseJSON reads the output of `lldpcli -f json` (whose shape changes with
// the number of interfaces and neighbours: a lone value is not wrapped in a
// list, a chassis with a name is keyed by it) and of `lldpcli -f json0`
// (every value in a list, leaves as {"value": …}).
func ParseJSON(out []byte) ([]fabric.Neighbor, error) {
	if len(out) > MaxInput {
		return nil, fmt.Errorf("parsing lldpcli JSON: %w: %d bytes, more than %d", ErrFormat, len(out), MaxInput)
	}
	var root any
	dec := json.NewDecoder(bytes.NewReader(out))
	if err := dec.Decode(&root); err != nil {
		return nil, fmt.Errorf("parsing lldpcli JSON: %w: %s", ErrFormat, jsonErr(out, err))
	}
	if dec.More() {
		return nil, fmt.Errorf("parsing lldpcli JSON: %w: data after the document at %s", ErrFormat, lineCol(out, int(dec.InputOffset())))
	}
	top, ok := root.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("parsing lldpcli JSON: %w: the document is not an object", ErrFormat)
	}
	l, ok := top["lldp"]
	if !ok {
		return nil, fmt.Errorf("parsing lldpcli JSON: %w: no \"lldp\" key", ErrFormat)
	}
	var ifaces []any
	for _, part := range list(l) { // json0: "lldp": [{...}]; json: "lldp": {...}
		m, ok := part.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("parsing lldpcli JSON: %w: lldp is %s, not an object", ErrFormat, kind(part))
		}
		if v, ok := m["interface"]; ok {
			ifaces = append(ifaces, list(v)...)
		}
	}
	var out2 []fabric.Neighbor
	for i, v := range ifaces {
		entries, err := interfaceEntries(v)
		if err != nil {
			return nil, fmt.Errorf("parsing lldpcli JSON: %w: lldp.interface[%d]: %v", ErrFormat, i, err)
		}
		for _, e := range entries {
			n, err := neighbor(e.name, e.body)
			if err != nil {
				return nil, fmt.Errorf("parsing lldpcli JSON: %w: lldp.interface[%d] %s: %v", ErrFormat, i, e.name, err)
			}
			out2 = append(out2, n)
		}
	}
	return out2, nil
}

type ifaceEntry struct {
	name string
	body map[string]any
}

// interfaceEntries reads one element of lldp.interface: {"name": "eth0", …}
// (json0, and json when the writer kept the name) or {"eth0": {…}} (json).
// In the json form a single interface is the object {"eth0": {…}, "eth1":
// {…}}… only when there is one, so several keys are several interfaces.
func interfaceEntries(v any) ([]ifaceEntry, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("an interface is %s, not an object", kind(v))
	}
	if name, ok := m["name"]; ok {
		s, ok := scalar(name)
		if !ok || s == "" {
			return nil, fmt.Errorf("interface name is %s, not a string", kind(name))
		}
		return []ifaceEntry{{s, m}}, nil
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys) // a JSON object has no order; sort for stable output
	var out []ifaceEntry
	for _, k := range keys {
		body, ok := m[k].(map[string]any)
		if !ok {
			return nil, fmt.Errorf("interface %q is %s, not an object", k, kind(m[k]))
		}
		if k == "" {
			return nil, fmt.Errorf("an interface without a name")
		}
		out = append(out, ifaceEntry{k, body})
	}
	return out, nil
}

// chassisFields are the keys lldpd writes inside a chassis; a chassis map
// holding one of them is the chassis itself, not {"sysname": {…}}.
var chassisFields = map[string]bool{"id": true, "name": true, "descr": true, "mgmt-ip": true, "mgmt-iface": true,
	"capability": true, "ttl": true}

func neighbor(local string, body map[string]any) (fabric.Neighbor, error) {
	n := fabric.Neighbor{LocalPort: local}
	n.Protocol, _ = scalar(body["via"])
	if c, ok := body["chassis"]; ok {
		ch, name, err := chassis(c)
		if err != nil {
			return n, err
		}
		n.SystemName = name
		n.ChassisIDType, n.ChassisID = idOf(ch["id"])
		n.SystemDescription, _ = scalar(ch["descr"])
		n.MgmtAddresses = scalars(ch["mgmt-ip"])
		if err := ttl(&n, ch["ttl"]); err != nil {
			return n, err
		}
	}
	if p, ok := body["port"]; ok {
		pm, ok := first(p).(map[string]any)
		if !ok {
			return n, fmt.Errorf("port is %s, not an object", kind(p))
		}
		n.PortIDType, n.PortID = idOf(pm["id"])
		n.PortDescription, _ = scalar(pm["descr"])
		if err := ttl(&n, pm["ttl"]); err != nil {
			return n, err
		}
	}
	return n, nil
}

// chassis returns the chassis map and its system name from either
// {"id": …, "name": …} or {"sysname": {"id": …}}.
func chassis(v any) (map[string]any, string, error) {
	m, ok := first(v).(map[string]any)
	if !ok {
		return nil, "", fmt.Errorf("chassis is %s, not an object", kind(v))
	}
	for k := range m {
		if chassisFields[k] {
			name, _ := scalar(m["name"])
			return m, name, nil
		}
	}
	if len(m) == 1 {
		for k, inner := range m {
			im, ok := inner.(map[string]any)
			if !ok {
				return nil, "", fmt.Errorf("chassis %q is %s, not an object", k, kind(inner))
			}
			return im, k, nil
		}
	}
	if len(m) == 0 {
		return m, "", nil
	}
	return nil, "", fmt.Errorf("chassis has %d keys and none lldpd writes (id, name, descr, …)", len(m))
}

// idOf reads {"type": "mac", "value": "…"} (or its json0 list form).
func idOf(v any) (string, string) {
	m, ok := first(v).(map[string]any)
	if !ok {
		s, _ := scalar(v)
		return "", s
	}
	t, _ := scalar(m["type"])
	val, _ := scalar(m["value"])
	return t, val
}

func ttl(n *fabric.Neighbor, v any) error {
	if v == nil {
		return nil
	}
	s, ok := scalar(v)
	if !ok || s == "" {
		return nil
	}
	t, err := strconv.Atoi(s)
	if err != nil || t < 0 || t > 65535 {
		return fmt.Errorf("TTL %q is not a number of seconds 0..65535", s)
	}
	n.TTL = t
	return nil
}

// list returns v as a list: itself when it is one, else [v].
func list(v any) []any {
	if l, ok := v.([]any); ok {
		return l
	}
	return []any{v}
}

// first returns the first element of a list, or v itself.
func first(v any) any {
	if l, ok := v.([]any); ok {
		if len(l) == 0 {
			return nil
		}
		return l[0]
	}
	return v
}

// scalar reads a leaf: "x", true, 12, {"value": "x"} or [{"value": "x"}].
func scalar(v any) (string, bool) {
	switch t := first(v).(type) {
	case string:
		return t, true
	case bool:
		return strconv.FormatBool(t), true
	case float64:
		return strconv.FormatFloat(t, 'f', -1, 64), true
	case map[string]any:
		if inner, ok := t["value"]; ok {
			if _, nested := inner.(map[string]any); !nested {
				return scalar(inner)
			}
		}
	}
	return "", false
}

// scalars reads a leaf that may repeat (mgmt-ip).
func scalars(v any) []string {
	if v == nil {
		return nil
	}
	var out []string
	for _, x := range list(v) {
		if s, ok := scalar(x); ok && s != "" {
			out = append(out, s)
		}
	}
	return out
}

func kind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case float64:
		return "a number"
	case []any:
		return "a list"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

// jsonErr locates a decoding error by line and column.
func jsonErr(data []byte, err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return lineCol(data, int(se.Offset)) + ": " + se.Error()
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return lineCol(data, int(te.Offset)) + ": " + te.Error()
	}
	return err.Error()
}

func lineCol(data []byte, off int) string {
	off = min(max(off, 0), len(data))
	line := 1 + bytes.Count(data[:off], []byte("\n"))
	col := off - bytes.LastIndexByte(data[:off], '\n')
	return fmt.Sprintf("line %d, column %d", line, col)
}

// ParseKeyValue reads `lldpcli -f keyvalue show neighbors` output: one
// "lldp.IFACE.PATH=value" line per value, where IFACE may hold dots (a VLAN
// interface eth0.100). A neighbour starts at its "via" line; lines without
// one (trimmed captures) attach to the interface's last neighbour. Blank
// lines and "#" comments are skipped.
func ParseKeyValue(out []byte) ([]fabric.Neighbor, error) {
	if len(out) > MaxInput {
		return nil, fmt.Errorf("parsing lldpcli keyvalue: %w: %d bytes, more than %d", ErrFormat, len(out), MaxInput)
	}
	var ns []*fabric.Neighbor
	current := map[string]*fabric.Neighbor{}
	get := func(iface string, fresh bool) *fabric.Neighbor {
		if n, ok := current[iface]; ok && !fresh {
			return n
		}
		n := &fabric.Neighbor{LocalPort: iface}
		ns = append(ns, n)
		current[iface] = n
		return n
	}
	for i, line := range strings.Split(string(out), "\n") {
		line = strings.TrimSpace(strings.TrimSuffix(line, "\r"))
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		key, val, ok := strings.Cut(line, "=")
		if !ok {
			return nil, fmt.Errorf("parsing lldpcli keyvalue: %w: line %d: no '=' in %q", ErrFormat, i+1, clip(line))
		}
		rest, ok := strings.CutPrefix(key, "lldp.")
		if !ok {
			return nil, fmt.Errorf("parsing lldpcli keyvalue: %w: line %d: key %q does not start with \"lldp.\"", ErrFormat, i+1, clip(key))
		}
		iface, path := splitKey(rest)
		if iface == "" {
			return nil, fmt.Errorf("parsing lldpcli keyvalue: %w: line %d: key %q names no interface", ErrFormat, i+1, clip(key))
		}
		n := get(iface, path == "via")
		if err := setKV(n, path, val); err != nil {
			return nil, fmt.Errorf("parsing lldpcli keyvalue: %w: line %d: %v", ErrFormat, i+1, err)
		}
	}
	out2 := make([]fabric.Neighbor, 0, len(ns))
	for _, n := range ns {
		out2 = append(out2, *n)
	}
	return out2, nil
}

// sections are the first path elements lldpcli writes below an interface.
var sections = map[string]bool{"via": true, "rid": true, "age": true, "chassis": true, "port": true, "vlan": true,
	"ppvid": true, "pi": true, "lldp-med": true, "unknown-tlvs": true, "ttl": true, "status": true}

// splitKey cuts "eth0.100.chassis.name" into "eth0.100" and "chassis.name":
// the interface ends before the first element that is a section.
func splitKey(rest string) (string, string) {
	for i := 0; i < len(rest); i++ {
		if rest[i] != '.' || i == 0 {
			continue
		}
		head, _, _ := strings.Cut(rest[i+1:], ".")
		if sections[head] {
			return rest[:i], rest[i+1:]
		}
	}
	return rest, ""
}

// idTypes are the chassis and port ID subtypes lldpd names.
var idTypes = map[string]bool{"mac": true, "ip": true, "local": true, "ifname": true, "ifalias": true, "unhandled": true}

func setKV(n *fabric.Neighbor, path, val string) error {
	section, field, _ := strings.Cut(path, ".")
	switch section {
	case "via":
		n.Protocol = val
	case "chassis":
		switch {
		case field == "name":
			n.SystemName = val
		case field == "descr":
			n.SystemDescription = val
		case field == "mgmt-ip":
			n.MgmtAddresses = append(n.MgmtAddresses, val)
		case field == "ttl":
			return ttl(n, val)
		case idTypes[field]:
			n.ChassisIDType, n.ChassisID = field, val
		}
	case "port":
		switch {
		case field == "descr":
			n.PortDescription = val
		case field == "ttl":
			return ttl(n, val)
		case idTypes[field]:
			n.PortIDType, n.PortID = field, val
		}
	}
	return nil
}

func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}
