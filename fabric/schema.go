package fabric

import (
	"reflect"
	"sort"
	"strings"
)

// Schema returns the JSON Schema (draft 2020-12) of both documents, generated
// from the Go types so it cannot drift from the loader. Editors use it for
// completion and linting; `fabricctl schema` prints it.
func Schema() map[string]any {
	g := &schemaGen{defs: map[string]any{}}
	profile := g.ref(reflect.TypeOf(Profile{}))
	fab := g.ref(reflect.TypeOf(Fabric{}))
	return map[string]any{
		"$schema":     "https://json-schema.org/draft/2020-12/schema",
		"$id":         "https://fabricctl.io/schema/v1alpha1.json",
		"title":       "fabricctl documents (" + APIVersion + ")",
		"description": "A fabricctl Profile or Fabric document.",
		"oneOf": []any{
			map[string]any{"allOf": []any{profile, kindIs(KindProfile)}},
			map[string]any{"allOf": []any{fab, kindIs(KindFabric)}},
		},
		"$defs": g.defs,
	}
}

func kindIs(kind string) map[string]any {
	return map[string]any{"properties": map[string]any{"kind": map[string]any{"const": kind}}}
}

type schemaGen struct{ defs map[string]any }

// special holds the schemas of types with their own YAML forms.
var special = map[reflect.Type]map[string]any{
	reflect.TypeOf(Bytes(0)): {"description": "a size: an integer (bytes) or a number with B, KB, KiB, MB, MiB, GB, GiB",
		"anyOf": []any{map[string]any{"type": "integer", "minimum": 0},
			map[string]any{"type": "string", "pattern": `^[0-9]+(\.[0-9]+)?\s*(B|KB|KiB|MB|MiB|GB|GiB)?$`}}},
	reflect.TypeOf(Duration(0)): {"description": "a duration with a unit (us, ms, s)", "type": "string",
		"pattern": `^[0-9]+(\.[0-9]+)?\s*(ns|us|µs|ms|s|m|h)$`},
	reflect.TypeOf(Rate(0)): {"description": "a link rate: sysfs (each port's own rate) or a number with Gb/s or Mb/s", "type": "string",
		"pattern": `^(sysfs|[0-9]+(\.[0-9]+)?\s*(Gb/s|Gbps|Gbit/s|Mb/s|Mbps|Mbit/s))$`},
	reflect.TypeOf(Meters(0)): {"description": "a length in metres (5m)",
		"anyOf": []any{map[string]any{"type": "integer", "minimum": 0}, map[string]any{"type": "string", "pattern": `^[0-9]+\s*(m|km)?$`}}},
	reflect.TypeOf(SwitchMTU(0)): {"description": "a switch MTU in bytes, or \"max\" for each switch model's largest",
		"anyOf": []any{map[string]any{"type": "integer", "minimum": 1}, map[string]any{"const": "max"}}},
	reflect.TypeOf(PKey(0)): {"description": "a partition key 0x0001..0x7ffe",
		"anyOf": []any{map[string]any{"type": "integer", "minimum": 1, "maximum": 32766}, map[string]any{"type": "string", "pattern": `^0[xX][0-9a-fA-F]{1,4}$`}}},
	reflect.TypeOf(DSCPSet{}): {"description": "DSCP values, or \"rest\" for every DSCP no other class lists",
		"anyOf": []any{map[string]any{"const": "rest"},
			map[string]any{"type": "array", "items": map[string]any{"type": "integer", "minimum": 0, "maximum": 63}}}},
	reflect.TypeOf(ECN{}): {"description": "ECN thresholds, or \"off\"",
		"anyOf": []any{map[string]any{"const": "off"}, map[string]any{"const": false}, map[string]any{"$ref": "#/$defs/ECNThresholds"}}},
}

func (g *schemaGen) ref(t reflect.Type) map[string]any {
	if s, ok := special[t]; ok {
		if t == reflect.TypeOf(ECN{}) {
			g.defs["ECNThresholds"] = g.object(t)
		}
		return s
	}
	switch t.Kind() {
	case reflect.Pointer:
		return g.ref(t.Elem())
	case reflect.Struct:
		name := t.Name()
		if _, done := g.defs[name]; !done {
			g.defs[name] = nil // break cycles
			g.defs[name] = g.object(t)
		}
		return map[string]any{"$ref": "#/$defs/" + name}
	case reflect.Slice:
		return map[string]any{"type": "array", "items": g.ref(t.Elem())}
	case reflect.Map:
		return map[string]any{"type": "object", "additionalProperties": g.ref(t.Elem())}
	case reflect.String:
		return map[string]any{"type": "string"}
	case reflect.Bool:
		return map[string]any{"type": "boolean"}
	case reflect.Int, reflect.Int64:
		return map[string]any{"type": "integer"}
	case reflect.Float64:
		return map[string]any{"type": "number"}
	}
	return map[string]any{}
}

// requiredFields are the fields whose absence the loader reports as an error
// at decode or validation time (by type and YAML name).
var requiredFields = map[string][]string{
	"Profile": {"apiVersion", "kind", "metadata", "spec"}, "Fabric": {"apiVersion", "kind", "metadata", "spec"},
	"Metadata": {"name"}, "Class": {"name", "priority", "ets"}, "Partition": {"name", "pkey", "members"},
	"Host": {"name", "address", "profile"}, "Switch": {"name", "platform", "address", "profile", "ports"},
	"SubnetManager": {"name", "kind", "address", "profile"}, "RoCE": {"class"}, "Ethernet": {"mtu", "classes"},
	"ECNThresholds": {"minThreshold", "maxThreshold"},
}

func (g *schemaGen) object(t reflect.Type) map[string]any {
	props := map[string]any{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name == "" || name == "-" {
			continue
		}
		s := g.ref(f.Type)
		if enum := f.Tag.Get("enum"); enum != "" {
			s = map[string]any{"type": "string", "enum": strings.Split(enum, ",")}
		}
		props[name] = s
	}
	obj := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	name := t.Name()
	if t == reflect.TypeOf(ECN{}) {
		name = "ECNThresholds"
	}
	if req := requiredFields[name]; len(req) > 0 {
		r := append([]string(nil), req...)
		sort.Strings(r)
		obj["required"] = r
	}
	if name == "Profile" || name == "Fabric" {
		props["apiVersion"] = map[string]any{"const": APIVersion}
	}
	return obj
}
