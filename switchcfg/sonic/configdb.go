package sonic

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
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
	docs, err := readDocs(data)
	if err != nil {
		return nil, fmt.Errorf("%w: decoding JSON: %w: %w", ErrSyntax, switchcfg.ErrNotThisFormat, err)
	}
	db, known := ConfigDB{}, false
	var count tally
	for len(docs) > 0 {
		d := docs[0]
		docs = docs[1:]
		if ns := d.namespaces(); ns != nil {
			docs = append(ns, docs...)
			continue
		}
		known = known || d.known
		for _, top := range sortedKeys(d.raw) {
			table, key, flat := strings.Cut(top, "|")
			if !managedTables[table] {
				continue
			}
			if db[table] == nil {
				db[table] = map[string]map[string]string{}
			}
			if flat {
				fields, err := decodeFields(d.raw[top])
				if err != nil {
					return nil, fmt.Errorf("%w: %s: %w", ErrSyntax, top, err)
				}
				f, err := fieldStrings(table, key, fields)
				if err != nil {
					return nil, err
				}
				db[table][key] = f
				count.fields += len(f)
				if count.entries++; count.entries > switchcfg.MaxBlocks || count.fields > maxFields {
					return nil, fmt.Errorf("%w: %s: %w", ErrSyntax, top, errTooLarge)
				}
			} else if err := db.decodeTable(table, d.raw[top], &count); err != nil {
				return nil, fmt.Errorf("%w: table %s: %w", ErrSyntax, table, err)
			}
		}
	}
	if !known {
		return nil, fmt.Errorf("%w: %w: no CONFIG_DB table (top-level keys are SONiC table names: PORT, DEVICE_METADATA, PORT_QOS_MAP …, or TABLE|key)", ErrSyntax, switchcfg.ErrNotThisFormat)
	}
	return db, nil
}

// maxFields is the most fields the QoS tables may hold together (a
// chassis's hold tens of thousands); with switchcfg.MaxBlocks entries it
// bounds what a document costs once read.
const maxFields = 1 << 18

var errTooLarge = fmt.Errorf("more than %d entries or %d fields in the QoS tables: no switch configuration has that many", switchcfg.MaxBlocks, maxFields)

// tally counts the entries and fields DecodeConfigDB keeps.
type tally struct{ entries, fields int }

// decodeTable reads a table {key: {field: value, …}, …} into db[table]
// entry by entry and field by field: what is kept is counted against
// the bounds as it is read, so a huge table is refused, never built.
func (db ConfigDB) decodeTable(table string, msg json.RawMessage, count *tally) error {
	dec := json.NewDecoder(bytes.NewReader(msg))
	dec.UseNumber()
	if ok, err := openObject(dec); !ok || err != nil {
		return err
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		key := tok.(string) // an object's keys are strings
		f := map[string]string{}
		ok, err := openObject(dec)
		if err != nil {
			return fmt.Errorf("entry %s: %w", fabric.Clip(key), err)
		}
		for ok && dec.More() {
			if tok, err = dec.Token(); err != nil {
				return err
			}
			var v any
			if err := dec.Decode(&v); err != nil {
				return err
			}
			name := tok.(string)
			if f[name], err = fieldString(v); err != nil {
				return fmt.Errorf("%s|%s field %s: %w", table, key, name, err)
			}
			if count.fields++; count.fields > maxFields {
				return errTooLarge
			}
		}
		if ok {
			if _, err := dec.Token(); err != nil { // }
				return err
			}
		}
		db[table][key] = f
		if count.entries++; count.entries > switchcfg.MaxBlocks {
			return errTooLarge
		}
	}
	_, err := dec.Token() // }
	return err
}

// openObject reads the start of an object: true, or false for null.
func openObject(dec *json.Decoder) (bool, error) {
	tok, err := dec.Token()
	switch {
	case err != nil:
		return false, err
	case tok == nil:
		return false, nil
	case tok != json.Delim('{'):
		return false, fmt.Errorf("%v is not an object", tok)
	}
	return true, nil
}

// fieldStrings turns one entry's fields into their string forms.
func fieldStrings(table, key string, fields map[string]any) (map[string]string, error) {
	f := make(map[string]string, len(fields))
	for name, v := range fields {
		s, err := fieldString(v)
		if err != nil {
			return nil, fmt.Errorf("%w: %s|%s field %s: %w", ErrSyntax, table, key, name, err)
		}
		f[name] = s
	}
	return f, nil
}

// doc is one CONFIG_DB document as DecodeConfigDB reads it: the raw
// values of the tables it keeps and of namespaces — the others are
// skipped as they are read, never held.
type doc struct {
	raw   map[string]json.RawMessage
	known bool // a key names a CONFIG_DB table
	allNS bool // every key names a namespace, and there is one
}

// readDocs reads a document, or a list of them, in one pass.
func readDocs(data []byte) ([]doc, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	var docs []doc
	if data[0] == '[' {
		if _, err := dec.Token(); err != nil {
			return nil, err
		}
		for dec.More() {
			d, err := readDoc(dec)
			if err != nil {
				return nil, err
			}
			docs = append(docs, d)
		}
		if _, err := dec.Token(); err != nil {
			return nil, err
		}
	} else {
		d, err := readDoc(dec)
		if err != nil {
			return nil, err
		}
		docs = append(docs, d)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("data after the document")
	}
	return docs, nil
}

// readDoc reads one document object (null: an empty one) from dec.
func readDoc(dec *json.Decoder) (doc, error) {
	d := doc{raw: map[string]json.RawMessage{}, allNS: true}
	ok, err := openObject(dec)
	if err != nil || !ok {
		return doc{}, err
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return doc{}, err
		}
		key := tok.(string) // an object's keys are strings
		table, _, _ := strings.Cut(key, "|")
		ns := key == "localhost" || asicNamespace.MatchString(key)
		d.known = d.known || knownTables[table]
		d.allNS = d.allNS && ns
		if !managedTables[table] && !ns {
			if err := dec.Decode(&skip{}); err != nil {
				return doc{}, err
			}
			continue
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return doc{}, err
		}
		d.raw[key] = v
	}
	if _, err := dec.Token(); err != nil { // }
		return doc{}, err
	}
	d.allNS = d.allNS && len(d.raw) > 0
	return d, nil
}

// skip decodes a JSON value into nothing.
type skip struct{}

func (*skip) UnmarshalJSON([]byte) error { return nil }

// namespaces returns the per-namespace documents of a multi-ASIC
// `show runningconfiguration all` ({"localhost": {…}, "asic0": {…}}), nil
// when d is not one.
func (d doc) namespaces() []doc {
	if !d.allNS {
		return nil
	}
	var out []doc
	for _, k := range sortedKeys(d.raw) {
		ns, err := readDoc(json.NewDecoder(bytes.NewReader(d.raw[k])))
		if err != nil || ns.raw == nil {
			return nil
		}
		out = append(out, ns)
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
			return nil, fmt.Errorf("%w: %s entry %s: %s", ErrSyntax, what, fabric.Clip(k), fabric.Clip(v))
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
