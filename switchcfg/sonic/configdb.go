package sonic

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
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
	pfcwdGlobal   = "GLOBAL"
	fPollInterval = "POLL_INTERVAL"
)

// managedTables are the tables DecodeConfigDB keeps; others are skipped.
var managedTables = map[string]bool{
	tDSCPToTC: true, tDot1pToTC: true, tTCToQueue: true, tTCToPG: true, tPFCToQueue: true,
	tPortQoSMap: true, tQueue: true, tScheduler: true, tWRED: true, tPFCWD: true,
	tCableLength: true, tPort: true, tPFCToPG: true, tBufferPG: true, tBufferQueue: true, tMetadata: true,
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
func DecodeConfigDB(data []byte) (ConfigDB, error) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return nil, fmt.Errorf("%w: empty document", ErrSyntax)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("%w: decoding JSON: %w", ErrSyntax, err)
	}
	if !slices.ContainsFunc(slices.Collect(maps.Keys(raw)), isTableName) {
		return nil, fmt.Errorf("%w: %w: no CONFIG_DB table (top-level keys are table names in capitals: PORT, DEVICE_METADATA, PORT_QOS_MAP …)", ErrSyntax, switchcfg.ErrNotThisFormat)
	}
	db := ConfigDB{}
	for table, msg := range raw {
		if !managedTables[table] {
			continue
		}
		var entries map[string]map[string]any
		dec := json.NewDecoder(bytes.NewReader(msg))
		dec.UseNumber()
		if err := dec.Decode(&entries); err != nil {
			return nil, fmt.Errorf("%w: table %s: %w", ErrSyntax, table, err)
		}
		t := map[string]map[string]string{}
		for key, fields := range entries {
			f := map[string]string{}
			for name, v := range fields {
				s, err := fieldString(v)
				if err != nil {
					return nil, fmt.Errorf("%w: %s|%s field %s: %w", ErrSyntax, table, key, name, err)
				}
				f[name] = s
			}
			t[key] = f
		}
		db[table] = t
	}
	return db, nil
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
