package vendorcheck

// NVUE: `nv set` / `nv unset` commands resolved against NVIDIA's NVUE object
// model, either the full OpenAPI document a Cumulus Linux release publishes
// (openapi.json, read from outside the repository) or the facts extracted from
// it (nvue_facts.go).
//
// The CLI words of `nv set A B C V` are object keys of the REST tree: a word
// is a property of the object reached so far, or the key of a keyed
// collection (an interface name, a profile, a switch priority; NVUE expands
// lists and ranges there: `0,3`, `1-2,4-5,7`, `swp1-4,swp49`), and the last
// word is the value once a scalar leaf is reached. `nv set` of an object with
// no value creates it; `nv unset` takes a path only.

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/fabricctl/fabricctl/switchcfg/cumulus"
)

// ErrNVUEUndecided marks a command the model cannot decide: a value whose
// only admissible form is a format the checker does not know, or a key
// schema nobody read. Callers treat it as a failure, never as a pass.
var ErrNVUEUndecided = errors.New("cannot decide")

// NVUEScalar is one alternative of a value schema: a JSON type and what
// OpenAPI restricts it by.
type NVUEScalar struct {
	Type   string   // "integer", "string", "number", "boolean"; "" when the schema names none
	Format string   // OpenAPI format ("integer" for integer-valued strings, "profile-name", ...)
	Enum   []string // the values allowed (null dropped), sorted; empty: any
	Min    *int64   // minimum, inclusive
	Max    *int64   // maximum, inclusive
}

// NVUEValue is what a leaf or a collection key accepts: any one of its
// alternatives (OpenAPI anyOf/oneOf).
type NVUEValue []NVUEScalar

// String renders v compactly, e.g. "integer[0..100]" or "string{dwrr,strict}".
func (v NVUEValue) String() string {
	var alts []string
	for _, s := range v {
		alts = append(alts, s.String())
	}
	return strings.Join(alts, "|")
}

// String renders one alternative.
func (s NVUEScalar) String() string {
	t := s.Type
	if t == "" {
		t = "any"
	}
	if s.Format != "" {
		t += "(" + s.Format + ")"
	}
	if len(s.Enum) > 0 {
		t += "{" + strings.Join(s.Enum, ",") + "}"
	}
	if s.Min != nil || s.Max != nil {
		lo, hi := "", ""
		if s.Min != nil {
			lo = strconv.FormatInt(*s.Min, 10)
		}
		if s.Max != nil {
			hi = strconv.FormatInt(*s.Max, 10)
		}
		t += "[" + lo + ".." + hi + "]"
	}
	return t
}

// Check reports whether one alternative of v accepts word. It wraps
// ErrNVUEUndecided when no alternative accepts it and one could not be
// decided.
func (v NVUEValue) Check(word string) error {
	if len(v) == 0 {
		return fmt.Errorf("%w: no schema for %q", ErrNVUEUndecided, word)
	}
	var undecided, refused []string
	for _, s := range v {
		ok, err := s.accepts(word)
		switch {
		case ok:
			return nil
		case errors.Is(err, ErrNVUEUndecided):
			undecided = append(undecided, s.String())
		default:
			refused = append(refused, s.String())
		}
	}
	if len(undecided) > 0 {
		return fmt.Errorf("%w: %q against %s", ErrNVUEUndecided, word, strings.Join(undecided, "|"))
	}
	return fmt.Errorf("%q is not %s", word, strings.Join(refused, "|"))
}

func (s NVUEScalar) accepts(word string) (bool, error) {
	if len(s.Enum) > 0 {
		for _, e := range s.Enum {
			if e == word {
				return true, nil
			}
		}
		return false, nil
	}
	switch s.Type {
	case "integer":
		n, err := strconv.ParseInt(word, 10, 64)
		if err != nil {
			return false, nil
		}
		return s.inRange(n), nil
	case "string", "":
		return checkFormat(s.Format, word)
	default:
		return false, fmt.Errorf("%w: type %s", ErrNVUEUndecided, s.Type)
	}
}

func (s NVUEScalar) inRange(n int64) bool {
	return (s.Min == nil || n >= *s.Min) && (s.Max == nil || n <= *s.Max)
}

// checkFormat decides the string formats the renders meet; any other format
// is undecided (NVUE validates it in code the OpenAPI document does not
// carry).
func checkFormat(format, word string) (bool, error) {
	switch format {
	case "":
		return true, nil
	case "integer":
		_, err := strconv.ParseInt(word, 10, 64)
		return err == nil, nil
	case "interface-name":
		// Documentation-derived (see NVUEKey.From): the swp and eth port
		// names fabricctl writes.
		return swpName.MatchString(word), nil
	default:
		return false, fmt.Errorf("%w: format %q", ErrNVUEUndecided, format)
	}
}

var swpName = regexp.MustCompile(`^(swp|eth)[0-9]+(s[0-9]+)?$`)

// NVUENode is a node of NVUE's object model, the same for the facts table and
// the full OpenAPI document.
type NVUENode interface {
	// Prop returns the node of property name, if the node is an object that
	// has it.
	Prop(name string) (NVUENode, bool)
	// Keyed returns the key schema and the element of a keyed collection.
	Keyed() (key NVUEValue, elem NVUENode, ok bool)
	// Leaf returns the value schema of a scalar.
	Leaf() (NVUEValue, bool)
}

// NVUECommand is one `nv set` or `nv unset` line.
type NVUECommand struct {
	Line  int    // 1-based line number in the render
	Text  string // the line
	Unset bool
	Words []string // the words after `nv set` / `nv unset`
}

// ParseNVUE splits a render into its commands. Blank lines are skipped; any
// other line that is not `nv set|unset <path...>` is an error.
func ParseNVUE(text string) ([]NVUECommand, error) {
	var cmds []NVUECommand
	for i, l := range strings.Split(text, "\n") {
		f := strings.Fields(l)
		if len(f) == 0 {
			continue
		}
		if len(f) < 3 || f[0] != "nv" || (f[1] != "set" && f[1] != "unset") {
			return nil, fmt.Errorf("line %d: %q is not an nv set or nv unset command", i+1, l)
		}
		cmds = append(cmds, NVUECommand{Line: i + 1, Text: strings.TrimSpace(l), Unset: f[1] == "unset", Words: f[2:]})
	}
	return cmds, nil
}

// ExpandNVUEList expands the list and range syntax NVUE accepts for
// collection keys: "1-2,4-5,7" is 1 2 4 5 7, "swp1-4,swp49" is swp1 swp2
// swp3 swp4 swp49. A word without ',' or a numeric range is itself.
func ExpandNVUEList(word string) ([]string, error) {
	if word != "" && (word[0] < '0' || word[0] > '9') && strings.ContainsAny(word, ",-") {
		// Interface lists, breakouts too (swp1s0-3), as the driver reads
		// them.
		if ifs, err := cumulus.ExpandInterfaces(word); err == nil {
			return ifs, nil
		}
	}
	var out []string
	for _, part := range strings.Split(word, ",") {
		if part == "" {
			return nil, fmt.Errorf("empty element in list %q", word)
		}
		m := rangeRe.FindStringSubmatch(part)
		if m == nil {
			out = append(out, part)
			continue
		}
		lo, err1 := strconv.Atoi(m[2])
		hi, err2 := strconv.Atoi(m[3])
		if err1 != nil || err2 != nil || lo > hi || hi-lo > 4096 {
			return nil, fmt.Errorf("bad range %q in list %q", part, word)
		}
		for i := lo; i <= hi; i++ {
			out = append(out, m[1]+strconv.Itoa(i))
		}
	}
	return out, nil
}

var rangeRe = regexp.MustCompile(`^([A-Za-z]*)([0-9]+)-([0-9]+)$`)

// CheckNVUE resolves cmd from root: every word must be a property or an
// accepted collection key, and a `nv set` that reaches a scalar must end
// with exactly one value the scalar accepts. Undecidable words wrap
// ErrNVUEUndecided.
func CheckNVUE(root NVUENode, cmd NVUECommand) error {
	node := root
	var path []string
	for i := 0; i < len(cmd.Words); i++ {
		w := cmd.Words[i]
		if p, ok := node.Prop(w); ok {
			node = p
			path = append(path, w)
			continue
		}
		if key, elem, ok := node.Keyed(); ok {
			keys, err := ExpandNVUEList(w)
			if err != nil {
				return fmt.Errorf("%s: %w", at(path), err)
			}
			for _, k := range keys {
				if err := key.Check(k); err != nil {
					return fmt.Errorf("%s: key: %w", at(path), err)
				}
			}
			node = elem
			path = append(path, "<"+w+">")
			continue
		}
		if leaf, ok := node.Leaf(); ok {
			if cmd.Unset {
				return fmt.Errorf("%s: nv unset takes no value, got %q", at(path), strings.Join(cmd.Words[i:], " "))
			}
			if i != len(cmd.Words)-1 {
				return fmt.Errorf("%s: one value expected, got %q", at(path), strings.Join(cmd.Words[i:], " "))
			}
			if err := leaf.Check(w); err != nil {
				return fmt.Errorf("%s: %w", at(path), err)
			}
			return nil
		}
		return fmt.Errorf("%s: no property %q", at(path), w)
	}
	if _, ok := node.Leaf(); ok && !cmd.Unset {
		return fmt.Errorf("%s: a value is required", at(path))
	}
	return nil
}

func at(path []string) string {
	if len(path) == 0 {
		return "<root>"
	}
	return strings.Join(path, " ")
}

// NVUESpec is an NVUE openapi.json, loaded whole.
type NVUESpec struct {
	Title   string // info.title, e.g. "NVUE OpenAPI Specification for Cumulus Linux 5.12.0"
	Version string // info.version
	defs    map[string]any
	root    map[string]any
}

// LoadNVUESpec reads an NVUE openapi.json. The configuration tree starts at
// the request body of `PATCH /` (what `nv set` sends).
func LoadNVUESpec(path string) (*NVUESpec, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading NVUE OpenAPI document: %w", err)
	}
	var doc struct {
		Info struct {
			Title   string `json:"title"`
			Version string `json:"version"`
		} `json:"info"`
		Paths map[string]map[string]any `json:"paths"`
		XDefs map[string]any            `json:"x-defs"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("decoding NVUE OpenAPI document %s: %w", path, err)
	}
	s := &NVUESpec{Title: doc.Info.Title, Version: doc.Info.Version, defs: doc.XDefs}
	patch, _ := doc.Paths["/"]["patch"].(map[string]any)
	body, _ := patch["requestBody"].(map[string]any)
	ref, _ := body["$ref"].(string)
	resp, ok := s.deref(ref)
	if !ok {
		return nil, fmt.Errorf("decoding NVUE OpenAPI document %s: no PATCH / request body", path)
	}
	root := dig(resp, "content", "application/json", "schema")
	if root == nil {
		return nil, fmt.Errorf("decoding NVUE OpenAPI document %s: PATCH / request body has no JSON schema", path)
	}
	s.root = root
	return s, nil
}

func dig(m map[string]any, keys ...string) map[string]any {
	for _, k := range keys {
		next, ok := m[k].(map[string]any)
		if !ok {
			return nil
		}
		m = next
	}
	return m
}

func (s *NVUESpec) deref(ref string) (map[string]any, bool) {
	name, ok := strings.CutPrefix(ref, "#/x-defs/")
	if !ok {
		return nil, false
	}
	d, ok := s.defs[name].(map[string]any)
	return d, ok
}

// Root is the configuration tree of the document.
func (s *NVUESpec) Root() NVUENode { return specNode{s, []map[string]any{s.root}} }

// specNode is a set of schemas that together describe one node.
type specNode struct {
	s       *NVUESpec
	schemas []map[string]any
}

// flat returns every schema reachable through $ref, allOf, anyOf and oneOf.
func (n specNode) flat() []map[string]any {
	var out []map[string]any
	visited := map[string]bool{}
	var walk func(m map[string]any, depth int)
	walk = func(m map[string]any, depth int) {
		if m == nil || depth > 64 {
			return
		}
		if ref, ok := m["$ref"].(string); ok {
			if visited[ref] {
				return
			}
			visited[ref] = true
			d, _ := n.s.deref(ref)
			walk(d, depth+1)
		}
		out = append(out, m)
		for _, k := range []string{"allOf", "anyOf", "oneOf"} {
			list, _ := m[k].([]any)
			for _, e := range list {
				sub, _ := e.(map[string]any)
				walk(sub, depth+1)
			}
		}
	}
	for _, m := range n.schemas {
		walk(m, 0)
	}
	return out
}

func (n specNode) Prop(name string) (NVUENode, bool) {
	var found []map[string]any
	for _, m := range n.flat() {
		props, _ := m["properties"].(map[string]any)
		if p, ok := props[name].(map[string]any); ok {
			found = append(found, p)
		}
	}
	if len(found) == 0 {
		return nil, false
	}
	return specNode{n.s, found}, true
}

func (n specNode) Keyed() (NVUEValue, NVUENode, bool) {
	var key, elem map[string]any
	for _, m := range n.flat() {
		if a, ok := m["additionalProperties"].(map[string]any); ok && elem == nil {
			elem = a
		}
		if k, ok := m["x-propertyNames"].(map[string]any); ok && key == nil {
			key = k
		}
	}
	if elem == nil {
		return nil, nil, false
	}
	var kv NVUEValue
	if key != nil {
		kv = n.s.value(key, 0)
	}
	return kv, specNode{n.s, []map[string]any{elem}}, true
}

func (n specNode) Leaf() (NVUEValue, bool) {
	scalar := false
	for _, m := range n.flat() {
		if _, ok := m["properties"]; ok {
			return nil, false
		}
		if _, ok := m["additionalProperties"]; ok {
			return nil, false
		}
		if t, _ := m["type"].(string); t == "object" {
			return nil, false
		}
		for _, k := range []string{"type", "enum", "format", "minimum", "maximum"} {
			if _, ok := m[k]; ok {
				scalar = true
			}
		}
	}
	if !scalar {
		return nil, false
	}
	var v NVUEValue
	for _, m := range n.schemas {
		v = append(v, n.s.value(m, 0)...)
	}
	return v, true
}

// value collects the scalar alternatives of schema m: anyOf/oneOf branches
// are alternatives, allOf and $ref narrow them.
func (s *NVUESpec) value(m map[string]any, depth int) NVUEValue {
	if m == nil || depth > 32 {
		return nil
	}
	own := ownScalar(m)
	alts := NVUEValue{own}
	if ref, ok := m["$ref"].(string); ok {
		d, _ := s.deref(ref)
		alts = narrow(alts, s.value(d, depth+1))
	}
	list, _ := m["allOf"].([]any)
	for _, e := range list {
		sub, _ := e.(map[string]any)
		alts = narrow(alts, s.value(sub, depth+1))
	}
	for _, k := range []string{"anyOf", "oneOf"} {
		list, _ := m[k].([]any)
		if len(list) == 0 {
			continue
		}
		var branches NVUEValue
		for _, e := range list {
			sub, _ := e.(map[string]any)
			branches = append(branches, s.value(sub, depth+1)...)
		}
		alts = narrow(alts, branches)
	}
	return alts
}

// narrow combines every alternative of a with every alternative of b.
func narrow(a, b NVUEValue) NVUEValue {
	if len(b) == 0 {
		return a
	}
	var out NVUEValue
	for _, x := range a {
		for _, y := range b {
			if m, ok := mergeScalar(x, y); ok {
				out = append(out, m)
			}
		}
	}
	return out
}

// mergeScalar narrows x by y; false when nothing satisfies both (disjoint
// enums).
func mergeScalar(x, y NVUEScalar) (NVUEScalar, bool) {
	r := x
	if y.Type != "" {
		// A branch's own type wins: `type: string` beside
		// `anyOf: [{type: integer}]` is NVUE's way of saying "any of".
		r.Type = y.Type
	}
	if y.Format != "" {
		r.Format = y.Format
	}
	switch {
	case len(x.Enum) == 0:
		r.Enum = y.Enum
	case len(y.Enum) > 0:
		var both []string
		for _, e := range x.Enum {
			for _, f := range y.Enum {
				if e == f {
					both = append(both, e)
				}
			}
		}
		if len(both) == 0 {
			return r, false
		}
		r.Enum = both
	}
	if y.Min != nil && (r.Min == nil || *y.Min > *r.Min) {
		r.Min = y.Min
	}
	if y.Max != nil && (r.Max == nil || *y.Max < *r.Max) {
		r.Max = y.Max
	}
	return r, true
}

func ownScalar(m map[string]any) NVUEScalar {
	var s NVUEScalar
	s.Type, _ = m["type"].(string)
	s.Format, _ = m["format"].(string)
	if list, ok := m["enum"].([]any); ok {
		for _, e := range list {
			switch v := e.(type) {
			case nil:
			case string:
				s.Enum = append(s.Enum, v)
			case float64:
				s.Enum = append(s.Enum, strconv.FormatFloat(v, 'f', -1, 64))
			default:
				s.Enum = append(s.Enum, fmt.Sprint(v))
			}
		}
		sort.Strings(s.Enum)
	}
	if f, ok := m["minimum"].(float64); ok {
		n := int64(f)
		s.Min = &n
	}
	if f, ok := m["maximum"].(float64); ok {
		n := int64(f)
		s.Max = &n
	}
	return s
}
