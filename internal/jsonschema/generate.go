package jsonschema

import (
	"encoding"
	"encoding/json"
	"path"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Draft is the JSON Schema dialect Generate writes.
const Draft = "https://json-schema.org/draft/2020-12/schema"

// Options say what Generate adds to a type's schema.
type Options struct {
	// ID, Title and Description become the root's $id, title and
	// description when not empty.
	ID, Title, Description string
	// Kind, when not empty, makes the root a fabricctl document of that
	// kind: a required "kind" member whose value is Kind.
	Kind string
	// APIVersion, when not empty, makes the root's "apiVersion" member
	// required and holding that constant.
	APIVersion string
	// Special gives the schemas of types whose JSON encoding reflection
	// cannot see (their own MarshalJSON); each is copied where used.
	Special map[reflect.Type]map[string]any
}

var (
	jsonMarshaler = reflect.TypeFor[json.Marshaler]()
	textMarshaler = reflect.TypeFor[encoding.TextMarshaler]()
	timeType      = reflect.TypeFor[time.Time]()
	durationType  = reflect.TypeFor[time.Duration]()
)

// generator holds the $defs written so far.
type generator struct {
	root    reflect.Type
	special map[reflect.Type]map[string]any
	defs    map[string]any
	names   map[reflect.Type]string
}

// Generate returns the schema of t's JSON encoding (t or *t as given to
// json.Marshal), as a tree of map[string]any and []any ready for
// json.Marshal.
func Generate(t reflect.Type, o Options) map[string]any {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	g := &generator{root: t, special: o.Special, defs: map[string]any{}, names: map[reflect.Type]string{}}
	var root map[string]any
	if t.Kind() == reflect.Struct && !custom(t) {
		root = g.object(t)
	} else {
		root = g.schema(t)
	}
	for member, value := range map[string]string{"kind": o.Kind, "apiVersion": o.APIVersion} {
		if value == "" {
			continue
		}
		props, _ := root["properties"].(map[string]any)
		if props == nil {
			props = map[string]any{}
			root["properties"] = props
		}
		props[member] = map[string]any{"type": "string", "const": value}
		req, _ := root["required"].([]string)
		if !slices.Contains(req, member) {
			req = append(req, member)
			slices.Sort(req)
		}
		root["required"] = req
	}
	out := map[string]any{"$schema": Draft}
	for k, v := range root {
		out[k] = v
	}
	for k, v := range map[string]string{"$id": o.ID, "title": o.Title, "description": o.Description} {
		if v != "" {
			out[k] = v
		}
	}
	if len(g.defs) > 0 {
		out["$defs"] = g.defs
	}
	return out
}

// custom says whether t encodes itself (MarshalJSON or MarshalText, on the
// value or the pointer).
func custom(t reflect.Type) bool {
	pt := reflect.PointerTo(t)
	return t.Implements(jsonMarshaler) || pt.Implements(jsonMarshaler) ||
		t.Implements(textMarshaler) || pt.Implements(textMarshaler)
}

// schema returns the schema of a value of type t.
func (g *generator) schema(t reflect.Type) map[string]any {
	if s, ok := g.special[t]; ok {
		return copyMap(s)
	}
	switch {
	case t == timeType:
		return map[string]any{"type": "string", "format": "date-time"}
	case t == durationType:
		return map[string]any{"type": "integer", "description": "nanoseconds"}
	case t.Implements(jsonMarshaler) || reflect.PointerTo(t).Implements(jsonMarshaler):
		return map[string]any{"description": "any JSON value (" + t.String() + " encodes itself)"}
	case t.Implements(textMarshaler) || reflect.PointerTo(t).Implements(textMarshaler):
		return map[string]any{"type": "string"}
	}
	switch t.Kind() {
	case reflect.Bool:
		return map[string]any{"type": "boolean"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return map[string]any{"type": "integer"}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return map[string]any{"type": "integer", "minimum": 0}
	case reflect.Float32, reflect.Float64:
		return map[string]any{"type": "number"}
	case reflect.String:
		return map[string]any{"type": "string"}
	case reflect.Pointer:
		return nullable(g.schema(t.Elem()))
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 && !custom(t.Elem()) {
			return map[string]any{"type": []any{"string", "null"}, "contentEncoding": "base64"}
		}
		return map[string]any{"type": []any{"array", "null"}, "items": g.schema(t.Elem())}
	case reflect.Array:
		return map[string]any{"type": "array", "items": g.schema(t.Elem()),
			"minItems": t.Len(), "maxItems": t.Len()}
	case reflect.Map:
		return map[string]any{"type": []any{"object", "null"}, "additionalProperties": g.schema(t.Elem())}
	case reflect.Struct:
		return g.ref(t)
	}
	return map[string]any{} // interfaces: any value
}

// ref returns a $ref to t's entry of $defs, writing the entry first.
func (g *generator) ref(t reflect.Type) map[string]any {
	if t == g.root {
		return map[string]any{"$ref": "#"}
	}
	if t.Name() == "" { // an anonymous struct: inline
		return g.object(t)
	}
	name, ok := g.names[t]
	if !ok {
		name = defName(t)
		for n := 2; g.defs[name] != nil; n++ {
			name = defName(t) + "_" + strconv.Itoa(n)
		}
		g.names[t] = name
		g.defs[name] = map[string]any{} // placeholder: recursion ends here
		g.defs[name] = g.object(t)
	}
	return map[string]any{"$ref": "#/$defs/" + name}
}

// object is the schema of the struct t's members.
func (g *generator) object(t reflect.Type) map[string]any {
	props := map[string]any{}
	required := []string{}
	for _, f := range fields(t) {
		s := g.schema(f.typ)
		if f.asString {
			s = map[string]any{"type": "string"}
		}
		props[f.name] = s
		if f.required {
			required = append(required, f.name)
		}
	}
	slices.Sort(required)
	s := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	if t.Name() != "" {
		s["title"] = t.Name()
	}
	if len(required) > 0 {
		s["required"] = required
	}
	return s
}

// field is one member of a struct's JSON object.
type field struct {
	name     string
	typ      reflect.Type
	required bool
	asString bool
	depth    int
	tagged   bool
}

// fields lists t's JSON members as encoding/json chooses them: of two with
// one name the shallower wins, then the tagged one; a tie hides both.
func fields(t reflect.Type) []field {
	var all []field
	var walk func(t reflect.Type, depth int, optional bool, seen map[reflect.Type]bool)
	walk = func(t reflect.Type, depth int, optional bool, seen map[reflect.Type]bool) {
		if seen[t] {
			return
		}
		seen[t] = true
		defer delete(seen, t)
		for i := range t.NumField() {
			sf := t.Field(i)
			tag := sf.Tag.Get("json")
			if tag == "-" {
				continue
			}
			name, opts, _ := strings.Cut(tag, ",")
			ft := sf.Type
			if sf.Anonymous && name == "" {
				et := ft
				ptr := et.Kind() == reflect.Pointer
				if ptr {
					et = et.Elem()
				}
				if et.Kind() == reflect.Struct && !custom(et) {
					walk(et, depth+1, optional || ptr, seen)
					continue
				}
				if !sf.IsExported() {
					continue
				}
			} else if !sf.IsExported() {
				continue
			}
			f := field{name: name, typ: ft, depth: depth, tagged: name != ""}
			if name == "" {
				f.name = sf.Name
			}
			omit := false
			for o := range strings.SplitSeq(opts, ",") {
				switch o {
				case "omitempty", "omitzero":
					omit = true
				case "string":
					switch ft.Kind() {
					case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
						reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
						reflect.Float32, reflect.Float64, reflect.String:
						f.asString = true
					}
				}
			}
			f.required = !omit && !optional
			all = append(all, f)
		}
	}
	walk(t, 0, false, map[reflect.Type]bool{})
	byName := map[string][]field{}
	var order []string
	for _, f := range all {
		if _, ok := byName[f.name]; !ok {
			order = append(order, f.name)
		}
		byName[f.name] = append(byName[f.name], f)
	}
	var out []field
	for _, n := range order {
		fs := byName[n]
		best := slices.MinFunc(fs, func(a, b field) int { return a.depth - b.depth })
		var top []field
		for _, f := range fs {
			if f.depth == best.depth {
				top = append(top, f)
			}
		}
		if len(top) > 1 {
			var tagged []field
			for _, f := range top {
				if f.tagged {
					tagged = append(tagged, f)
				}
			}
			if len(tagged) != 1 {
				continue // encoding/json writes neither
			}
			top = tagged
		}
		out = append(out, top[0])
	}
	return out
}

// nullable lets s also be null.
func nullable(s map[string]any) map[string]any {
	switch ty := s["type"].(type) {
	case string:
		s["type"] = []any{ty, "null"}
		return s
	case []any:
		if !slices.Contains(ty, any("null")) {
			s["type"] = append(ty, "null")
		}
		return s
	}
	if len(s) == 0 || (len(s) == 1 && s["description"] != nil) {
		return s // any value is null already
	}
	return map[string]any{"anyOf": []any{s, map[string]any{"type": "null"}}}
}

// defName names t's entry of $defs: its package's last element and its name.
func defName(t reflect.Type) string {
	n := t.Name()
	if p := t.PkgPath(); p != "" {
		n = path.Base(p) + "." + n
	}
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-' {
			return r
		}
		return '_'
	}, n)
}

// copyMap copies m, deeply for nested maps and slices.
func copyMap(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = copyValue(v)
	}
	return out
}

func copyValue(v any) any {
	switch v := v.(type) {
	case map[string]any:
		return copyMap(v)
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = copyValue(e)
		}
		return out
	}
	return v
}
