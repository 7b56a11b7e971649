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
//
// A YAML document is at most maxYAML bytes (yaml.v3 holds some 30 bytes a
// byte of it), any document at most maxNodes objects, lists and values
// (YAML aliases counted at each use), a JSON string at most maxValue
// bytes: a larger one is refused, never built.
func DecodeConfig(data []byte) (Tree, error) {
	data = bytes.TrimSpace(switchcfg.TrimPrompts(data))
	if len(data) == 0 {
		return nil, fmt.Errorf("%w: empty document", ErrSyntax)
	}
	if len(data) > maxYAML && data[0] != '[' && data[0] != '{' {
		return nil, fmt.Errorf("%w: a YAML document of %.1f MiB: more than the %d MiB read as YAML (save it as JSON: %s)",
			ErrSyntax, float64(len(data))/(1<<20), maxYAML>>20, CmdConfigShow)
	}
	var doc any
	var err error
	if data[0] == '[' || data[0] == '{' {
		doc, err = decodeJSON(data)
		if err != nil {
			err = fmt.Errorf("decoding JSON: %w", err)
		}
	} else {
		doc, err = decodeYAML(data)
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

// Bounds of what DecodeConfig reads: an NVUE configuration of a switch
// with every port and VLAN set is some thousands of values, tens of
// kilobytes.
const (
	maxYAML  = 2 << 20
	maxNodes = 1 << 18
)

// errTooManyNodes refuses a document past maxNodes.
var errTooManyNodes = fmt.Errorf("more than %d objects, lists and values: no NVUE configuration has that many", maxNodes)

// maxValue bounds one JSON string: NVUE's values are names, numbers and
// descriptions.
const maxValue = 64 << 10

// decodeJSON reads one JSON value as an interface, numbers as json.Number,
// after checking its shape without decoding it: at most maxNodes values
// (decoded, each costs a hundred bytes or so) and no string longer than
// maxValue.
func decodeJSON(data []byte) (any, error) {
	values, longest, line := 1, 0, 1
	inString, escaped, start := false, false, 0
	for i, c := range data {
		switch {
		case inString && escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case inString && c == '"':
			inString = false
			if n := i - start; n > longest {
				longest = n
				if longest > maxValue {
					return nil, fmt.Errorf("line %d: a string of more than %d KiB: no NVUE value is that long", line, maxValue>>10)
				}
			}
		case inString:
		case c == '"':
			inString, start = true, i
		case c == ',' || c == '[' || c == '{':
			if values++; values > maxNodes {
				return nil, fmt.Errorf("line %d: %w", line, errTooManyNodes)
			}
		}
		if c == '\n' {
			line++
		}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var doc any
	err := dec.Decode(&doc)
	if err == nil && dec.More() {
		err = errors.New("trailing data after the JSON document")
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %w", switchcfg.ErrNotThisFormat, err) // no JSON
	}
	return doc, nil
}

// decodeYAML reads a YAML document into what yaml.Unmarshal gives an
// interface (mapping keys as strings), from its node tree: in linear time
// (yaml.v3 checks each key against the others), counting the nodes and
// every use of an alias.
func decodeYAML(data []byte) (any, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, fmt.Errorf("%w: %w", switchcfg.ErrNotThisFormat, err) // no YAML
	}
	nodes := 0
	var value func(n *yaml.Node) (any, error)
	value = func(n *yaml.Node) (any, error) {
		if nodes++; nodes > maxNodes {
			return nil, errTooManyNodes
		}
		switch n.Kind {
		case yaml.DocumentNode:
			if len(n.Content) == 0 {
				return nil, nil
			}
			return value(n.Content[0])
		case yaml.AliasNode:
			return value(n.Alias)
		case yaml.SequenceNode:
			l := make([]any, 0, len(n.Content))
			for _, c := range n.Content {
				v, err := value(c)
				if err != nil {
					return nil, err
				}
				l = append(l, v)
			}
			return l, nil
		case yaml.MappingNode:
			m := make(map[string]any, len(n.Content)/2)
			lines := make(map[string]int, len(n.Content)/2)
			for i := 0; i+1 < len(n.Content); i += 2 {
				kn, vn := n.Content[i], n.Content[i+1]
				if kn.Tag == "!!merge" {
					return nil, fmt.Errorf("line %d: merge keys (<<) are not read", kn.Line)
				}
				k, err := value(kn)
				if err != nil {
					return nil, err
				}
				key := fmt.Sprint(k)
				if at, dup := lines[key]; dup {
					return nil, fmt.Errorf("line %d: mapping key %s already defined at line %d", kn.Line, fabric.Clip(key), at)
				}
				lines[key] = kn.Line
				if m[key], err = value(vn); err != nil {
					return nil, err
				}
			}
			return m, nil
		}
		var v any
		err := n.Decode(&v) // a scalar, resolved as yaml.Unmarshal resolves it
		return v, err
	}
	return value(&root)
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
	for k, v := range t {
		if _, object := v.(map[string]any); object && nvueRoots[k] {
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
