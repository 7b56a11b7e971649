package fabric

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"regexp"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// miniSchema checks a value against the subset of JSON Schema that Schema
// generates ($ref, type, properties, additionalProperties, required, enum,
// const, items, anyOf, oneOf, allOf, pattern, minimum, maximum).
type miniSchema struct{ root map[string]any }

func (m miniSchema) check(s map[string]any, v any, path string) error {
	if ref, ok := s["$ref"].(string); ok {
		def := m.root["$defs"].(map[string]any)[strings.TrimPrefix(ref, "#/$defs/")]
		return m.check(def.(map[string]any), v, path)
	}
	if c, ok := s["const"]; ok && fmt.Sprint(c) != fmt.Sprint(v) {
		return fmt.Errorf("%s: %v is not %v", path, v, c)
	}
	if e, ok := s["enum"].([]any); ok {
		found := false
		for _, x := range e {
			found = found || fmt.Sprint(x) == fmt.Sprint(v)
		}
		if !found {
			return fmt.Errorf("%s: %v not in enum", path, v)
		}
	}
	for _, sub := range asList(s["allOf"]) {
		if err := m.check(sub, v, path); err != nil {
			return err
		}
	}
	if subs := asList(s["anyOf"]); len(subs) > 0 {
		var errs []string
		for _, sub := range subs {
			err := m.check(sub, v, path)
			if err == nil {
				errs = nil
				break
			}
			errs = append(errs, err.Error())
		}
		if errs != nil {
			return fmt.Errorf("%s: matches none of anyOf: %s", path, strings.Join(errs, "; "))
		}
	}
	if subs := asList(s["oneOf"]); len(subs) > 0 {
		n := 0
		var errs []string
		for _, sub := range subs {
			if err := m.check(sub, v, path); err == nil {
				n++
			} else {
				errs = append(errs, err.Error())
			}
		}
		if n != 1 {
			return fmt.Errorf("%s: matches %d of oneOf: %s", path, n, strings.Join(errs, "; "))
		}
	}
	kind := s["type"]
	if _, isObj := v.(map[string]any); isObj && kind == nil && s["properties"] != nil {
		kind = "object" // properties apply to objects whatever the type keyword says
	}
	switch kind {
	case "object":
		obj, ok := v.(map[string]any)
		if !ok {
			return fmt.Errorf("%s: not an object", path)
		}
		props, _ := s["properties"].(map[string]any)
		for _, r := range asStrings(s["required"]) {
			if _, ok := obj[r]; !ok {
				return fmt.Errorf("%s: missing %s", path, r)
			}
		}
		for k, val := range obj {
			if ps, ok := props[k]; ok {
				if err := m.check(ps.(map[string]any), val, path+"."+k); err != nil {
					return err
				}
				continue
			}
			switch ap := s["additionalProperties"].(type) {
			case bool:
				if !ap {
					return fmt.Errorf("%s.%s: not allowed", path, k)
				}
			case map[string]any:
				if err := m.check(ap, val, path+"."+k); err != nil {
					return err
				}
			}
		}
	case "array":
		arr, ok := v.([]any)
		if !ok {
			return fmt.Errorf("%s: not an array", path)
		}
		if items, ok := s["items"].(map[string]any); ok {
			for i, x := range arr {
				if err := m.check(items, x, fmt.Sprintf("%s[%d]", path, i)); err != nil {
					return err
				}
			}
		}
	case "string":
		str, ok := v.(string)
		if !ok {
			return fmt.Errorf("%s: not a string", path)
		}
		if p, ok := s["pattern"].(string); ok && !regexp.MustCompile(p).MatchString(str) {
			return fmt.Errorf("%s: %q does not match %s", path, str, p)
		}
	case "integer", "number":
		f, ok := toFloat(v)
		if !ok || (s["type"] == "integer" && f != math.Trunc(f)) {
			return fmt.Errorf("%s: %v is not an %s", path, v, s["type"])
		}
		if mn, ok := toFloat(s["minimum"]); ok && f < mn {
			return fmt.Errorf("%s: %v < %v", path, f, mn)
		}
		if mx, ok := toFloat(s["maximum"]); ok && f > mx {
			return fmt.Errorf("%s: %v > %v", path, f, mx)
		}
	case "boolean":
		if _, ok := v.(bool); !ok {
			return fmt.Errorf("%s: not a boolean", path)
		}
	}
	return nil
}

func asList(v any) []map[string]any {
	l, _ := v.([]any)
	out := make([]map[string]any, 0, len(l))
	for _, x := range l {
		out = append(out, x.(map[string]any))
	}
	return out
}

func asStrings(v any) []string {
	l, _ := v.([]any)
	out := make([]string, 0, len(l))
	for _, x := range l {
		out = append(out, x.(string))
	}
	return out
}

func toFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case int:
		return float64(x), true
	}
	return 0, false
}

func loadSchema(t *testing.T) miniSchema {
	// Round-trip through JSON so the schema has the shape editors see.
	b, err := json.Marshal(Schema())
	if err != nil {
		t.Fatal(err)
	}
	var root map[string]any
	if err := json.Unmarshal(b, &root); err != nil {
		t.Fatal(err)
	}
	return miniSchema{root: root}
}

func yamlDocs(t *testing.T, data []byte) []any {
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	var docs []any
	for {
		var v any
		if err := dec.Decode(&v); err != nil {
			break
		}
		// yaml.v3 gives map[string]interface{} already; normalise ints for the checker.
		b, _ := json.Marshal(v)
		var j any
		json.Unmarshal(b, &j)
		docs = append(docs, j)
	}
	return docs
}

// TestSchemaAcceptsEveryProfile validates every example document against the
// generated schema, and checks the schema rejects typical mistakes.
func TestSchemaAcceptsEveryProfile(t *testing.T) {
	s := loadSchema(t)
	for _, file := range profileFiles(t) {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for i, doc := range yamlDocs(t, data) {
			if err := s.check(s.root, doc, "$"); err != nil {
				t.Errorf("%s document %d: %v", file, i, err)
			}
		}
	}
	for name, doc := range map[string]string{
		"unknown field": strings.Replace(goodProfile, "mtu: 9000", "mtu: 9000\n    mtus: 1", 1),
		"bad unit":      strings.Replace(goodProfile, "150KB", "150kb", 1),
		"bad dscp":      strings.Replace(goodProfile, "[26]", "[99]", 1),
		"bad enum":      strings.Replace(goodProfile, "mtu: 9000", "mtu: 9000\n    trust: l3", 1),
		"wrong kind":    strings.Replace(goodProfile, "kind: Profile", "kind: Fabric", 1),
	} {
		if err := s.check(s.root, yamlDocs(t, []byte(doc))[0], "$"); err == nil {
			t.Errorf("%s: schema accepted an invalid document", name)
		}
	}
}
