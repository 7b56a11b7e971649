package sonic

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/internal/output"
	"github.com/fabricctl/fabricctl/switchcfg"
)

// ErrSyntax is wrapped by every error about a malformed CONFIG_DB document.
var ErrSyntax = errors.New("sonic CONFIG_DB syntax error")

// ConfigDB is the part of a SONiC CONFIG_DB fabricctl reads and writes:
// table → key → field → value, every value a string as redis holds it
// (`show runningconfiguration all`, config_db.json, `config apply-patch`).
type ConfigDB map[string]map[string]map[string]string

// CONFIG_DB tables (sonic-buildimage qos_config.j2, PFC watchdog design).
const (
	tDSCPToTC     = "DSCP_TO_TC_MAP"
	tDot1pToTC    = "DOT1P_TO_TC_MAP"
	tTCToQueue    = "TC_TO_QUEUE_MAP"
	tTCToPG       = "TC_TO_PRIORITY_GROUP_MAP"
	tPFCToQueue   = "MAP_PFC_PRIORITY_TO_QUEUE"
	tPortQoSMap   = "PORT_QOS_MAP"
	tQueue        = "QUEUE"
	tScheduler    = "SCHEDULER"
	tWRED         = "WRED_PROFILE"
	tPFCWD        = "PFC_WD"
	tCableLength  = "CABLE_LENGTH"
	tPort         = "PORT"
	tPFCToPG      = "PFC_PRIORITY_TO_PRIORITY_GROUP_MAP"
	tBufferPG     = "BUFFER_PG"
	tBufferQueue  = "BUFFER_QUEUE"
	tMetadata     = "DEVICE_METADATA"
	tVersions     = "VERSIONS"
	pfcwdGlobal   = "GLOBAL"
	fPollInterval = "POLL_INTERVAL"
)

// knownTables are CONFIG_DB tables of SONiC's schema (sonic-buildimage
// src/sonic-yang-models, Configuration.md): a document must have one to be
// read as CONFIG_DB, so that JSON of another kind whose keys happen to be
// in capitals (YANG test vectors, other tools' output) is refused.
var knownTables = map[string]bool{
	"AAA": true, "ACL_RULE": true, "ACL_TABLE": true, "ACL_TABLE_TYPE": true, "BGP_NEIGHBOR": true, "BGP_PEER_RANGE": true,
	"BREAKOUT_CFG": true, "BREAKOUT_PORTS": true, "BUFFER_POOL": true, "BUFFER_PORT_EGRESS_PROFILE_LIST": true,
	"BUFFER_PORT_INGRESS_PROFILE_LIST": true, "BUFFER_PROFILE": true, "CONSOLE_PORT": true, "CRM": true,
	"DEFAULT_LOSSLESS_BUFFER_PARAMETER": true, "DEVICE_NEIGHBOR": true, "DEVICE_NEIGHBOR_METADATA": true,
	"DHCP_SERVER": true, "DSCP_TO_FC_MAP": true, "EXP_TO_FC_MAP": true, "FEATURE": true, "FLEX_COUNTER_TABLE": true,
	"INTERFACE": true, "KDUMP": true, "LOGGER": true, "LOOPBACK_INTERFACE": true, "LOSSLESS_TRAFFIC_PATTERN": true,
	"MGMT_INTERFACE": true, "MGMT_PORT": true, "MUX_CABLE": true, "NTP": true, "NTP_SERVER": true, "PEER_SWITCH": true,
	"PORTCHANNEL": true, "PORTCHANNEL_INTERFACE": true, "PORTCHANNEL_MEMBER": true, "SFLOW": true,
	"SFLOW_COLLECTOR": true, "SNMP": true, "SNMP_COMMUNITY": true, "STATIC_ROUTE": true, "SYSLOG_SERVER": true,
	"SYSTEM_PORT": true, "TACPLUS_SERVER": true, "TC_TO_DSCP_MAP": true, "TELEMETRY": true, "TUNNEL": true,
	"VERSIONS": true, "VLAN": true, "VLAN_INTERFACE": true, "VLAN_MEMBER": true, "VRF": true, "VXLAN_TUNNEL": true,
	"WATERMARK_TABLE": true, "DHCP_RELAY": true, "RESTAPI": true, "SWITCH_HASH": true, "CHASSIS_MODULE": true,
}

func init() {
	for t := range managedTables {
		knownTables[t] = true
	}
}

// managedTables are the tables DecodeConfigDB keeps; others are skipped.
var managedTables = map[string]bool{
	tDSCPToTC: true, tDot1pToTC: true, tTCToQueue: true, tTCToPG: true, tPFCToQueue: true,
	tPortQoSMap: true, tQueue: true, tScheduler: true, tWRED: true, tPFCWD: true,
	tCableLength: true, tPort: true, tPFCToPG: true, tBufferPG: true, tBufferQueue: true, tMetadata: true, tVersions: true,
}

// ref reads a reference field: the name itself, or the old CONFIG_DB form
// "[TABLE|NAME]" that releases before 202012 wrote (sonic-utilities
// db_migrator converts it; captures of older switches still show it).
func ref(v string) string {
	if strings.HasPrefix(v, "[") && strings.HasSuffix(v, "]") {
		if _, name, ok := strings.Cut(v[1:len(v)-1], "|"); ok {
			return name
		}
	}
	return v
}

// DecodeConfigDB reads a CONFIG_DB JSON document (the output of
// `show runningconfiguration all`, config_db.json, or a `config qos reload
// --dry_run` file), keeping the QoS tables and PORT. Values that are not
// strings (numbers, lists of strings) are turned into their string form as
// SONiC's CLI would write them ("3,4" for lists).
//
// The shapes SONiC's own tools print are all read: tables of entries
// (config_db.json); flat redis keys "TABLE|key" with their fields
// (sonic-utilities' mock tables) or wrapped as {"type": "hash", "value":
// {…}} (sonic-db-dump); a list of documents merged in order (sonic-mgmt's
// configlets); the namespaces of a multi-ASIC switch ({"localhost": {…},
// "asic0": {…}}, merged); and a fragment of table entries without its outer
// braces, as design documents quote them. A document is CONFIG_DB only when
// it has a table SONiC's schema names (knownTables).
func DecodeConfigDB(data []byte) (ConfigDB, error) {
	data = bytes.TrimSpace(switchcfg.TrimPrompts(data))
	if len(data) == 0 {
		return nil, fmt.Errorf("%w: empty document", ErrSyntax)
	}
	if data[0] == '"' {
		data = append(append([]byte("{"), data...), '}')
	}
	var docs []map[string]json.RawMessage
	if data[0] == '[' {
		if err := json.Unmarshal(data, &docs); err != nil {
			return nil, fmt.Errorf("%w: decoding JSON: %w", ErrSyntax, err)
		}
	} else {
		var raw map[string]json.RawMessage
		if err := json.Unmarshal(data, &raw); err != nil {
			return nil, fmt.Errorf("%w: decoding JSON: %w", ErrSyntax, err)
		}
		docs = append(docs, raw)
	}
	db, known := ConfigDB{}, false
	for len(docs) > 0 {
		raw := docs[0]
		docs = docs[1:]
		if ns := namespaces(raw); ns != nil {
			docs = append(ns, docs...)
			continue
		}
		for _, top := range sortedKeys(raw) {
			table, key, flat := strings.Cut(top, "|")
			known = known || knownTables[table]
			if !managedTables[table] {
				continue
			}
			var entries map[string]map[string]any
			if flat {
				fields, err := decodeFields(raw[top])
				if err != nil {
					return nil, fmt.Errorf("%w: %s: %w", ErrSyntax, top, err)
				}
				entries = map[string]map[string]any{key: fields}
			} else if err := decodeNumbers(raw[top], &entries); err != nil {
				return nil, fmt.Errorf("%w: table %s: %w", ErrSyntax, table, err)
			}
			if db[table] == nil {
				db[table] = map[string]map[string]string{}
			}
			for key, fields := range entries {
				f := map[string]string{}
				for name, v := range fields {
					s, err := fieldString(v)
					if err != nil {
						return nil, fmt.Errorf("%w: %s|%s field %s: %w", ErrSyntax, table, key, name, err)
					}
					f[name] = s
				}
				db[table][key] = f
			}
		}
	}
	if !known {
		return nil, fmt.Errorf("%w: %w: no CONFIG_DB table (top-level keys are SONiC table names: PORT, DEVICE_METADATA, PORT_QOS_MAP …, or TABLE|key)", ErrSyntax, switchcfg.ErrNotThisFormat)
	}
	return db, nil
}

// namespaces returns the per-namespace documents of a multi-ASIC
// `show runningconfiguration all` ({"localhost": {…}, "asic0": {…}}), nil
// when raw is not one.
func namespaces(raw map[string]json.RawMessage) []map[string]json.RawMessage {
	if len(raw) == 0 {
		return nil
	}
	var out []map[string]json.RawMessage
	for _, k := range sortedKeys(raw) {
		if k != "localhost" && !asicNamespace.MatchString(k) {
			return nil
		}
		var doc map[string]json.RawMessage
		if err := json.Unmarshal(raw[k], &doc); err != nil {
			return nil
		}
		out = append(out, doc)
	}
	return out
}

var asicNamespace = regexp.MustCompile(`^asic[0-9]+$`)

// decodeFields reads one flat entry's fields, unwrapping sonic-db-dump's
// {"type": "hash", "value": {…}}.
func decodeFields(msg json.RawMessage) (map[string]any, error) {
	var fields map[string]any
	if err := decodeNumbers(msg, &fields); err != nil {
		return nil, err
	}
	if v, ok := fields["value"].(map[string]any); ok && fields["type"] == "hash" {
		return v, nil
	}
	return fields, nil
}

func decodeNumbers(msg json.RawMessage, dst any) error {
	dec := json.NewDecoder(bytes.NewReader(msg))
	dec.UseNumber()
	return dec.Decode(dst)
}

func fieldString(v any) (string, error) {
	switch x := v.(type) {
	case string:
		return x, nil
	case json.Number:
		return x.String(), nil
	case bool:
		return strconv.FormatBool(x), nil
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			s, ok := e.(string)
			if !ok {
				return "", fmt.Errorf("list element %v is not a string", e)
			}
			parts[i] = s
		}
		return strings.Join(parts, ","), nil
	case nil:
		return "", nil
	}
	return "", fmt.Errorf("unexpected value %v", v)
}

// JSON prints db as CONFIG_DB JSON with sorted keys, 4-space indented like
// sonic-cfggen. It writes what json.MarshalIndent writes, without
// reflection: a switch's CONFIG_DB has thousands of entries.
func (db ConfigDB) JSON() []byte {
	var keys [3][]string // one sort buffer per level, reused
	b := appendObject(make([]byte, 0, 32<<10), db, 0, &keys, func(b []byte, table map[string]map[string]string) []byte {
		return appendObject(b, table, 1, &keys, func(b []byte, fields map[string]string) []byte {
			return appendObject(b, fields, 2, &keys, output.AppendJSONString)
		})
	})
	return append(b, '\n')
}

const jsonIndent = "            "

// appendObject appends m as a JSON object at depth (4 spaces a level),
// keys sorted, each value written by value; nil is null.
func appendObject[V any](b []byte, m map[string]V, depth int, keys *[3][]string, value func([]byte, V) []byte) []byte {
	if m == nil {
		return append(b, "null"...)
	}
	b = append(b, '{')
	keys[depth] = sortKeysInto(m, keys[depth])
	for i, k := range keys[depth] {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '\n')
		b = append(b, jsonIndent[:4*(depth+1)]...)
		b = output.AppendJSONString(b, k)
		b = append(b, ':', ' ')
		b = value(b, m[k])
	}
	if len(m) > 0 {
		b = append(b, '\n')
		b = append(b, jsonIndent[:4*depth]...)
	}
	return append(b, '}')
}

// entry returns the fields of table|key, or nil.
func (db ConfigDB) entry(table, key string) map[string]string {
	return db[table][key]
}

// set writes table|key field = value.
func (db ConfigDB) set(table, key, field, value string) {
	if db[table] == nil {
		db[table] = map[string]map[string]string{}
	}
	if db[table][key] == nil {
		db[table][key] = map[string]string{}
	}
	db[table][key][field] = value
}

// splitKey splits a multi-part key ("Ethernet0|3") at '|'.
func splitKey(key string) (string, string, bool) {
	return strings.Cut(key, "|")
}

// expandPortList expands the port part of a key: "Ethernet0" or a comma list
// "Ethernet0,Ethernet4" as older configurations write it.
func expandPortList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// expandQueues expands the queue part of a QUEUE key: "3", "0-2" or "3,4".
func expandQueues(s string) ([]int, error) {
	return switchcfg.ParseIntSet(s, 0, 7)
}

// intMap reads a map table entry ("26": "3") into from → to, checking ranges.
func intMap(fields map[string]string, maxFrom, maxTo int, what string) (map[int]int, error) {
	out := map[int]int{}
	for k, v := range fields {
		from, err1 := strconv.Atoi(k)
		to, err2 := strconv.Atoi(v)
		if err1 != nil || err2 != nil || from < 0 || from > maxFrom || to < 0 || to > maxTo {
			return nil, fmt.Errorf("%w: %s entry %q: %q", ErrSyntax, what, k, v)
		}
		out[from] = to
	}
	return out, nil
}

// sortedPorts returns the keys of a set in natural order.
func sortedPorts(set map[string]bool) []string {
	out := make([]string, 0, len(set))
	for p := range set {
		out = append(out, p)
	}
	fabric.SortPorts(out)
	return out
}

// sortedKeys returns a table's keys sorted.
func sortedKeys[V any](m map[string]V) []string { return sortKeysInto(m, make([]string, 0, len(m))) }

// sortKeysInto returns m's keys, sorted, in buf's storage.
func sortKeysInto[V any](m map[string]V, buf []string) []string {
	buf = buf[:0]
	for k := range m {
		buf = append(buf, k)
	}
	slices.Sort(buf)
	return buf
}

// isTableName: CONFIG_DB's tables are named in capitals, digits and '_'
// (sonic-buildimage's schema: PORT, BUFFER_PG, PFC_WD …).
func isTableName(k string) bool {
	if k == "" || k[0] < 'A' || k[0] > 'Z' {
		return false
	}
	for _, r := range k {
		if (r < 'A' || r > 'Z') && (r < '0' || r > '9') && r != '_' {
			return false
		}
	}
	return true
}
