package vendorcheck

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/fabricctl/fabricctl/switchcfg/sonic"
)

// SONiC CONFIG_DB → YANG instance data, by the rules of sonic-yang-mgmt's
// sonic_yang_ext (_cropConfigDB, _xlateConfigDB), which SONiC's generic
// config updater and `config load`'s validation use:
//
//   - a table is a container child of a module's top container, which is
//     named like the module; a table no module has is cropped (dropped
//     before validation: nothing checks it);
//   - a table container with one list translates its keys only when the
//     list is named <TABLE>_LIST; with several lists, each key goes to the
//     first list, in schema order, whose key count equals the number of
//     '|'-separated parts of the key;
//   - the "Type 1" map lists (sonicType1Maps) hold an inner list of
//     {key, value} pairs, one per field;
//   - a field is a leaf or leaf-list of the entry; any other field fails
//     the entry, and a table with an entry that fails is not translated
//     at all ("All Keys are not parsed");
//   - leaf-lists take a list value (a redis field "name@" is the list
//     "a,b"), a comma-separated string for the fields of
//     sonicStringLists, else a single value;
//   - a leaf of an unsigned integer type must hold a decimal number.
//
// sonic-yang-mgmt hands libyang JSON parsed with json_string_datatypes;
// yanglint 2.1 has no such option, so the data is written as XML, where
// every value is text just as with that option.

// sonicType1Maps are sonic_yang_ext's TYPE_1_LIST_MAPS.
var sonicType1Maps = map[string]bool{
	"DSCP_TO_TC_MAP_LIST": true, "DOT1P_TO_TC_MAP_LIST": true, "TC_TO_PRIORITY_GROUP_MAP_LIST": true,
	"TC_TO_QUEUE_MAP_LIST": true, "MAP_PFC_PRIORITY_TO_QUEUE_LIST": true,
	"PFC_PRIORITY_TO_PRIORITY_GROUP_MAP_LIST": true, "DSCP_TO_FC_MAP_LIST": true, "EXP_TO_FC_MAP_LIST": true,
	"CABLE_LENGTH_LIST": true, "MPLS_TC_TO_TC_MAP_LIST": true, "TC_TO_DSCP_MAP_LIST": true,
}

// sonicStringLists are the leaf-lists CONFIG_DB holds as one string, with
// their separators (sonic_yang_ext's LEAF_LIST_WITH_STRING_VALUE_DICT).
var sonicStringLists = map[[2]string]string{
	{"MIRROR_SESSION", "src_ip"}: ",", {"NTP", "src_intf"}: ";",
	{"BGP_ALLOWED_PREFIXES", "prefixes_v4"}: ",", {"BGP_ALLOWED_PREFIXES", "prefixes_v6"}: ",",
	{"BUFFER_PORT_EGRESS_PROFILE_LIST", "profile_list"}: ",", {"BUFFER_PORT_INGRESS_PROFILE_LIST", "profile_list"}: ",",
	{"PORT", "adv_speeds"}: ",", {"PORT", "adv_interface_types"}: ",",
}

// SONiCSchema is SONiC's YANG models compiled for translating CONFIG_DB:
// which module and container hold each table. It is safe for concurrent
// use once loaded.
type SONiCSchema struct {
	y      Yanglint
	dir    string
	files  []string
	tables map[string]sonicTable
}

type sonicTable struct {
	module, ns string
	node       *Node
}

// LoadSONiCSchema compiles every module (*.yang) of dir with y.
func LoadSONiCSchema(ctx context.Context, y Yanglint, dir string) (*SONiCSchema, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.yang"))
	if err != nil || len(files) == 0 {
		return nil, fmt.Errorf("loading SONiC YANG models: no *.yang in %s", dir)
	}
	slices.Sort(files)
	s := &SONiCSchema{y: y, dir: dir, files: files, tables: map[string]sonicTable{}}
	for _, f := range files {
		m, err := y.Compile(ctx, dir, "", f)
		if err != nil {
			return nil, fmt.Errorf("loading SONiC YANG models: %w", err)
		}
		var top *Node
		for _, n := range m.Top {
			if n.Kind == "container" {
				top = n
				break
			}
		}
		if top == nil {
			continue // typedefs, groupings, extensions
		}
		if top.Name != m.Name {
			return nil, fmt.Errorf("loading SONiC YANG models: %s: top container %s is not named like the module", f, top.Name)
		}
		for _, t := range top.Flat("container") {
			s.tables[t.Name] = sonicTable{module: m.Name, ns: m.NS, node: t}
		}
	}
	return s, nil
}

// Tables returns the CONFIG_DB tables the models cover, sorted.
func (s *SONiCSchema) Tables() []string { return slices.Sorted(maps.Keys(s.tables)) }

// SONiCResult is what checking a CONFIG_DB against SONiC's YANG found.
type SONiCResult struct {
	// Translated are the tables translated into YANG data.
	Translated []string
	// Cropped are the tables no model covers: sonic_yang_ext drops them,
	// so nothing checks them.
	Cropped []string
	// Errors are the translation errors, each naming TABLE|key and field;
	// a table with one is left out of the YANG data, as sonic_yang_ext
	// leaves it.
	Errors []string
	// Diags are libyang's errors on the translated data.
	Diags []Diag
}

// Passed reports whether the configuration translated and validated
// without an error. Cropped tables are no error.
func (r SONiCResult) Passed() bool { return len(r.Errors) == 0 && len(r.Diags) == 0 }

// String lists the errors, one a line, then the cropped tables.
func (r SONiCResult) String() string {
	var b strings.Builder
	for _, e := range r.Errors {
		b.WriteString("translation: " + e + "\n")
	}
	for _, d := range r.Diags {
		b.WriteString("yang: " + d.Message + "\n")
	}
	if len(r.Cropped) > 0 {
		b.WriteString("cropped (no YANG model): " + strings.Join(r.Cropped, ", ") + "\n")
	}
	return b.String()
}

// Check translates db and validates it with yanglint against every model.
// err is for yanglint failing to run; what the models refuse is in the
// result.
func (s *SONiCSchema) Check(ctx context.Context, db sonic.ConfigDB) (SONiCResult, error) {
	data, res := s.Translate(db)
	diags, err := s.y.Validate(ctx, s.dir, s.files, data)
	if err != nil {
		return res, fmt.Errorf("checking CONFIG_DB against SONiC YANG: %w", err)
	}
	res.Diags = diags
	return res, nil
}

// Translate turns db into YANG instance data (XML, one element per
// module) by sonic_yang_ext's rules, with the tables it translated,
// cropped or could not translate.
func (s *SONiCSchema) Translate(db sonic.ConfigDB) ([]byte, SONiCResult) {
	var res SONiCResult
	roots := map[string]*Elem{}
	for _, table := range slices.Sorted(maps.Keys(db)) {
		t, ok := s.tables[table]
		if !ok {
			res.Cropped = append(res.Cropped, table)
			continue
		}
		el, errs := translateTable(table, t.node, db[table])
		if len(errs) > 0 {
			res.Errors = append(res.Errors, errs...)
			continue
		}
		res.Translated = append(res.Translated, table)
		if el == nil {
			continue // an empty table: no data
		}
		if roots[t.module] == nil {
			roots[t.module] = &Elem{Name: t.module, NS: t.ns}
		}
		roots[t.module].Children = append(roots[t.module].Children, el)
	}
	var out bytes.Buffer
	for _, m := range slices.Sorted(maps.Keys(roots)) {
		out.Write(roots[m].XML())
	}
	return out.Bytes(), res
}

// translateTable translates one table into its container element (nil
// when it holds nothing), or returns why it cannot.
func translateTable(table string, node *Node, entries map[string]map[string]string) (*Elem, []string) {
	el := &Elem{Name: table}
	left := map[string]bool{}
	for k := range entries {
		left[k] = true
	}
	why := map[string]string{} // key → why its last list refused it
	lists := node.Flat("list")
	switch {
	case len(lists) == 1 && lists[0].Name == table+"_LIST":
		listEntries(el, table, lists[0], entries, left, why)
	case len(lists) > 1:
		for _, l := range lists {
			listEntries(el, table, l, entries, left, why)
		}
	}
	var errs []string
	for _, c := range node.Flat("container") {
		fields, ok := entries[c.Name]
		if !ok || !left[c.Name] {
			continue
		}
		delete(left, c.Name)
		if len(fields) == 0 {
			continue
		}
		ce := &Elem{Name: c.Name}
		if err := addFields(ce, table, c, fields, nil); err != "" {
			errs = append(errs, fmt.Sprintf("%s|%s %s", table, c.Name, err))
			continue
		}
		el.Children = append(el.Children, ce)
	}
	for _, k := range slices.Sorted(maps.Keys(left)) {
		w := why[k]
		if w == "" {
			w = "no list of the model takes this key (" + listShapes(table, lists) + ")"
		}
		errs = append(errs, fmt.Sprintf("%s|%s %s", table, k, w))
	}
	if len(errs) > 0 {
		return nil, errs
	}
	if len(el.Children) == 0 {
		return nil, nil
	}
	return el, nil
}

// listShapes describes the keys a table's lists take, for messages.
func listShapes(table string, lists []*Node) string {
	if len(lists) == 1 && lists[0].Name != table+"_LIST" {
		return "its only list is " + lists[0].Name + ", not " + table + "_LIST"
	}
	var out []string
	for _, l := range lists {
		out = append(out, l.Name+": "+strings.Join(l.Keys, "|"))
	}
	if len(out) == 0 {
		return "it has no list"
	}
	return strings.Join(out, "; ")
}

// listEntries translates the keys still left that have as many parts as
// list l has keys.
func listEntries(el *Elem, table string, l *Node, entries map[string]map[string]string, left map[string]bool, why map[string]string) {
	for _, key := range slices.Sorted(maps.Keys(left)) {
		parts := strings.Split(key, "|")
		if len(parts) != len(l.Keys) {
			continue
		}
		e := &Elem{Name: l.Name}
		for i, k := range l.Keys {
			e.Add(k, "", strings.TrimSpace(parts[i]))
		}
		if sonicType1Maps[l.Name] {
			inner := l.Flat("list")
			if len(inner) != 1 || len(inner[0].Keys) != 1 {
				why[key] = "map list " + l.Name + " has no single inner list"
				continue
			}
			ikey, ival := inner[0].Keys[0], ""
			for _, f := range inner[0].Flat("leaf") {
				if f.Name != ikey {
					ival = f.Name
				}
			}
			for _, f := range slices.Sorted(maps.Keys(entries[key])) {
				p := e.Add(inner[0].Name, "", "")
				p.Add(ikey, "", f)
				p.Add(ival, "", entries[key][f])
			}
		} else if err := addFields(e, table, l, entries[key], l.Keys); err != "" {
			why[key] = err
			continue
		}
		el.Children = append(el.Children, e)
		delete(left, key)
	}
}

// addFields adds an entry's fields as the leaves and leaf-lists of node
// (skipping the keys), or says which field is none.
func addFields(e *Elem, table string, node *Node, fields map[string]string, keys []string) string {
	leaves := map[string]*Node{}
	for _, l := range node.Flat("leaf", "leaf-list") {
		if !slices.Contains(keys, l.Name) {
			leaves[l.Name] = l
		}
	}
	for _, f := range slices.Sorted(maps.Keys(fields)) {
		name, redisList := strings.CutSuffix(f, "@")
		l := leaves[name]
		if l == nil {
			return fmt.Sprintf("field %s: no leaf of %s", f, node.Name)
		}
		v := fields[f]
		values := []string{v}
		if l.Kind == "leaf-list" {
			sep, ok := sonicStringLists[[2]string{table, name}]
			if redisList {
				sep, ok = ",", true
			}
			if ok {
				values = strings.Split(v, sep)
				for i := range values {
					values[i] = strings.TrimSpace(values[i])
				}
			}
			var kept []string
			for _, x := range values {
				if x != "" || l.HasDefault {
					kept = append(kept, x)
				}
			}
			if len(kept) == 0 && l.HasDefault {
				return fmt.Sprintf("field %s: empty leaf-list", f)
			}
			values = kept
		} else if redisList {
			return fmt.Sprintf("field %s: a list, but %s is a leaf", f, name)
		}
		for _, x := range values {
			if strings.Contains(l.Type, "uint") {
				if _, err := strconv.ParseInt(strings.TrimSpace(x), 10, 64); err != nil {
					return fmt.Sprintf("field %s %q: not a decimal number (%s)", f, x, l.Type)
				}
			}
			e.Add(name, "", x)
		}
	}
	return ""
}

// DecodeSONiCConfigDB reads a whole CONFIG_DB JSON document (config_db.json,
// `show runningconfiguration all`), every table: numbers and booleans
// become their text, a list becomes the redis field "name@" holding
// "a,b" (as CONFIG_DB stores it).
func DecodeSONiCConfigDB(data []byte) (sonic.ConfigDB, error) {
	var raw map[string]map[string]map[string]any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("decoding CONFIG_DB JSON: %w", err)
	}
	db := sonic.ConfigDB{}
	for table, entries := range raw {
		db[table] = map[string]map[string]string{}
		for key, fields := range entries {
			e := map[string]string{}
			for f, v := range fields {
				switch x := v.(type) {
				case string:
					e[f] = x
				case json.Number:
					e[f] = x.String()
				case bool:
					e[f] = strconv.FormatBool(x)
				case nil:
					e[f] = ""
				case []any:
					parts := make([]string, len(x))
					for i, p := range x {
						parts[i] = fmt.Sprint(p)
					}
					e[strings.TrimSuffix(f, "@")+"@"] = strings.Join(parts, ",")
				default:
					return nil, fmt.Errorf("decoding CONFIG_DB JSON: %s|%s field %s: unexpected %T", table, key, f, v)
				}
			}
			db[table][key] = e
		}
	}
	return db, nil
}

// ReadSONiCConfigDB reads a CONFIG_DB JSON file (DecodeSONiCConfigDB).
func ReadSONiCConfigDB(path string) (sonic.ConfigDB, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading CONFIG_DB: %w", err)
	}
	db, err := DecodeSONiCConfigDB(b)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	return db, nil
}

// CloneConfigDB returns a deep copy of db.
func CloneConfigDB(db sonic.ConfigDB) sonic.ConfigDB {
	out := make(sonic.ConfigDB, len(db))
	for t, entries := range db {
		out[t] = make(map[string]map[string]string, len(entries))
		for k, f := range entries {
			out[t][k] = maps.Clone(f)
		}
	}
	return out
}

// PatchSONiC returns base as `fabricctl push` leaves it after applying a
// render: the RFC 6902 patch sonic.BuildPatch computes against base,
// applied the way `config apply-patch` applies it (sonic.ApplyPatch). The
// patch is returned too; base is not changed.
func PatchSONiC(base, render sonic.ConfigDB) (sonic.ConfigDB, []sonic.PatchOp, error) {
	ops, err := sonic.BuildPatch(base, render)
	if err != nil {
		return nil, nil, fmt.Errorf("patching the base CONFIG_DB: %w", err)
	}
	out := CloneConfigDB(base)
	if err := sonic.ApplyPatch(out, ops); err != nil {
		return nil, nil, fmt.Errorf("patching the base CONFIG_DB: %w", err)
	}
	return out, ops, nil
}

// MergeSONiC returns base with the render merged in entry by entry and
// field by field: what `config load render.json` (sonic-cfggen
// --write-to-db, mod_config) leaves in CONFIG_DB. base is not changed.
func MergeSONiC(base, render sonic.ConfigDB) sonic.ConfigDB {
	out := CloneConfigDB(base)
	out.Merge(render)
	return out
}
