package cumulus

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/fabricctl/fabricctl/switchcfg"

	"gopkg.in/yaml.v3"

	"github.com/fabricctl/fabricctl/fabric"
)

// Tree is an NVUE configuration tree as `nv config show -o json` prints its
// "set" document: nested objects keyed by NVUE's own names ("qos" → "pfc" →
// "default-global" → "switch-priority" → "3" → {}). Leaves are strings,
// numbers or booleans. A Tree is not safe for concurrent mutation.
type Tree map[string]any

// ErrSyntax is wrapped by every error about a malformed nv command or document.
var ErrSyntax = errors.New("nvue syntax error")

// DecodeConfig reads what `nv config show -o json` (or its YAML form,
// `nv config show`, and `nv config diff [-o json]`) prints: a list of
// documents {"header": …}, {"set": …}, {"unset": …}, or a bare tree. Set
// documents merge in order, unset documents remove what they name.
func DecodeConfig(data []byte) (Tree, error) {
	data = bytes.TrimSpace(switchcfg.TrimPrompts(data))
	if len(data) == 0 {
		return nil, fmt.Errorf("%w: empty document", ErrSyntax)
	}
	var doc any
	var err error
	if data[0] == '[' || data[0] == '{' {
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		err = dec.Decode(&doc)
		if err == nil && dec.More() {
			err = errors.New("trailing data after the JSON document")
		}
		if err != nil {
			err = fmt.Errorf("decoding JSON: %w", err)
		}
	} else {
		err = yaml.Unmarshal(data, &doc)
		if err != nil {
			err = fmt.Errorf("decoding YAML: %w", err)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrSyntax, err)
	}
	doc = normalize(doc)
	t := Tree{}
	switch d := doc.(type) {
	case []any:
		for i, item := range d {
			m, ok := item.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("%w: document %d is not an object", ErrSyntax, i)
			}
			applyDoc(t, m)
		}
	case map[string]any:
		if _, ok := d["set"]; ok {
			applyDoc(t, d)
		} else if _, ok := d["unset"]; ok {
			applyDoc(t, d)
		} else {
			merge(t, d)
		}
	default:
		return nil, fmt.Errorf("%w: expected a list of documents or an object", ErrSyntax)
	}
	if err := checkNVUEShape(doc, t); err != nil {
		return nil, err
	}
	return t, nil
}

// nvueRoots are the top-level objects of NVUE's configuration tree (the
// NVUE OpenAPI's root: nv config show prints those that are set).
var nvueRoots = switchcfg.WordSet("acl", "bridge", "evpn", "interface", "mlag", "nve", "platform", "qos",
	"router", "service", "system", "vrf")

// checkNVUEShape refuses JSON or YAML that is not an NVUE configuration:
// no document with set, unset or header, and no NVUE root object. Without
// it any object ({"a": 1}, []) read as a stock Cumulus switch.
func checkNVUEShape(doc any, t Tree) error {
	docs, _ := doc.([]any)
	if m, ok := doc.(map[string]any); ok {
		docs = []any{m}
	}
	for _, d := range docs {
		m, _ := d.(map[string]any)
		for _, k := range []string{"set", "unset", "header"} {
			if _, ok := m[k]; ok {
				return nil
			}
		}
	}
	for k := range t {
		if nvueRoots[k] {
			return nil
		}
	}
	return fmt.Errorf("%w: %w: no NVUE configuration (no set, unset or header document, no top-level object among %s)",
		ErrSyntax, switchcfg.ErrNotThisFormat, "acl, bridge, evpn, interface, mlag, nve, platform, qos, router, service, system, vrf")
}

func applyDoc(t Tree, doc map[string]any) {
	if s, ok := doc["set"].(map[string]any); ok {
		merge(t, s)
	}
	if u, ok := doc["unset"].(map[string]any); ok {
		remove(t, u)
	}
}

// normalize turns YAML's map[any]any and JSON numbers into map[string]any,
// strings and int64 where possible.
func normalize(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = normalize(e)
		}
		return x
	case map[any]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[fmt.Sprint(k)] = normalize(e)
		}
		return m
	case []any:
		for i, e := range x {
			x[i] = normalize(e)
		}
		return x
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i
		}
		return x.String()
	case nil:
		return map[string]any{}
	}
	return v
}

func merge(dst, src map[string]any) {
	for k, v := range src {
		if sm, ok := v.(map[string]any); ok {
			dm, ok := dst[k].(map[string]any)
			if !ok {
				dm = map[string]any{}
				dst[k] = dm
			}
			merge(dm, sm)
			continue
		}
		dst[k] = v
	}
}

func remove(dst, what map[string]any) {
	for k, v := range what {
		sub, ok := v.(map[string]any)
		if !ok || len(sub) == 0 {
			delete(dst, k)
			continue
		}
		if dm, ok := dst[k].(map[string]any); ok {
			remove(dm, sub)
		}
	}
}

// node returns the object at path, or nil.
func (t Tree) node(path ...string) map[string]any {
	m := map[string]any(t)
	for _, k := range path {
		sub, ok := m[k].(map[string]any)
		if !ok {
			return nil
		}
		m = sub
	}
	return m
}

// sortedKeys returns m's keys in natural order (numbers numerically).
func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	fabric.SortPorts(keys)
	return keys
}

// text returns a leaf as a string ("" when absent or a container).
func text(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case bool:
		if x {
			return "on"
		}
		return "off"
	case int, int64, float64:
		return fmt.Sprint(x)
	}
	return ""
}

// number returns a leaf as an integer.
func number(v any) (int64, bool) {
	switch x := v.(type) {
	case int:
		return int64(x), true
	case int64:
		return x, true
	case float64:
		if x == float64(int64(x)) {
			return int64(x), true
		}
	case string:
		n, err := strconv.ParseInt(strings.TrimSpace(x), 10, 64)
		return n, err == nil
	}
	return 0, false
}
