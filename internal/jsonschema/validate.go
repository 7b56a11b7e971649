package jsonschema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// ValidationError is one place where a document does not match its schema.
type ValidationError struct {
	// Path locates the value: "$", "$.targets[0].changes".
	Path string
	Msg  string
}

func (e *ValidationError) Error() string { return e.Path + ": " + e.Msg }

// Validate checks the JSON document doc against schema (a schema as
// Generate returns it, or any JSON Schema as JSON-ready Go values). It
// returns nil, or every mismatch found (errors.Join of *ValidationError).
func Validate(schema any, doc []byte) error {
	b, err := json.Marshal(schema)
	if err != nil {
		return fmt.Errorf("encoding the schema: %w", err)
	}
	var root any
	if err := json.Unmarshal(b, &root); err != nil {
		return fmt.Errorf("decoding the schema: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return fmt.Errorf("decoding the document: %w", err)
	}
	if dec.More() {
		return errors.New("decoding the document: more than one JSON value")
	}
	c := &checker{root: root}
	c.check(root, v, "$")
	return errors.Join(c.errs...)
}

type checker struct {
	root any
	errs []error
}

func (c *checker) fail(at, format string, args ...any) {
	c.errs = append(c.errs, &ValidationError{Path: at, Msg: fmt.Sprintf(format, args...)})
}

// resolve follows a local $ref ("#", "#/$defs/NAME").
func (c *checker) resolve(ref string) (any, bool) {
	rest, ok := strings.CutPrefix(ref, "#")
	if !ok {
		return nil, false
	}
	cur := c.root
	for _, part := range strings.Split(strings.TrimPrefix(rest, "/"), "/") {
		if part == "" {
			continue
		}
		part = strings.ReplaceAll(strings.ReplaceAll(part, "~1", "/"), "~0", "~")
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = m[part]; !ok {
			return nil, false
		}
	}
	return cur, true
}

// matches says whether v matches s, recording nothing.
func (c *checker) matches(s, v any, at string) bool {
	sub := &checker{root: c.root}
	sub.check(s, v, at)
	return len(sub.errs) == 0
}

func (c *checker) check(schema, v any, at string) {
	switch s := schema.(type) {
	case bool:
		if !s {
			c.fail(at, "no value is allowed here")
		}
		return
	case map[string]any:
		c.checkObject(s, v, at)
	default:
		c.fail(at, "the schema here is not an object or a boolean")
	}
}

func (c *checker) checkObject(s map[string]any, v any, at string) {
	if ref, ok := s["$ref"].(string); ok {
		target, found := c.resolve(ref)
		if !found {
			c.fail(at, "unresolved $ref %q", ref)
			return
		}
		c.check(target, v, at)
	}
	if t, ok := s["type"]; ok {
		var want []string
		switch t := t.(type) {
		case string:
			want = []string{t}
		case []any:
			for _, e := range t {
				if e, ok := e.(string); ok {
					want = append(want, e)
				}
			}
		}
		got := typeOf(v)
		if !slices.Contains(want, got) && !(got == "integer" && slices.Contains(want, "number")) {
			c.fail(at, "%s, want %s", got, strings.Join(want, " or "))
			return
		}
	}
	if cv, ok := s["const"]; ok && !equal(cv, v) {
		c.fail(at, "%s, want %s", show(v), show(cv))
	}
	if e, ok := s["enum"].([]any); ok && !slices.ContainsFunc(e, func(x any) bool { return equal(x, v) }) {
		c.fail(at, "%s is not one of the allowed values", show(v))
	}
	if p, ok := s["pattern"].(string); ok {
		if str, ok := v.(string); ok {
			re, err := regexp.Compile(p)
			if err != nil {
				c.fail(at, "the schema's pattern %q does not compile: %v", p, err)
			} else if !re.MatchString(str) {
				c.fail(at, "%s does not match %s", show(v), p)
			}
		}
	}
	if n, ok := v.(json.Number); ok {
		if min, ok := s["minimum"].(float64); ok && num(n) < min {
			c.fail(at, "%s is below the minimum %v", n, min)
		}
		if max, ok := s["maximum"].(float64); ok && num(n) > max {
			c.fail(at, "%s is above the maximum %v", n, max)
		}
	}
	for _, key := range []string{"allOf", "anyOf", "oneOf"} {
		subs, ok := s[key].([]any)
		if !ok {
			continue
		}
		n := 0
		for i, sub := range subs {
			if key == "allOf" {
				c.check(sub, v, at)
				continue
			}
			if c.matches(sub, v, at+"/"+key+"["+strconv.Itoa(i)+"]") {
				n++
			}
		}
		switch {
		case key == "anyOf" && n == 0:
			c.fail(at, "matches none of anyOf's %d schemas", len(subs))
		case key == "oneOf" && n != 1:
			c.fail(at, "matches %d of oneOf's %d schemas, want exactly 1", n, len(subs))
		}
	}
	switch v := v.(type) {
	case map[string]any:
		props, _ := s["properties"].(map[string]any)
		if req, ok := s["required"].([]any); ok {
			for _, r := range req {
				if name, ok := r.(string); ok {
					if _, has := v[name]; !has {
						c.fail(at, "required member %q is missing", name)
					}
				}
			}
		}
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			where := at + "." + k
			if ps, ok := props[k]; ok {
				c.check(ps, v[k], where)
				continue
			}
			if ap, ok := s["additionalProperties"]; ok {
				if b, isBool := ap.(bool); isBool && !b {
					c.fail(where, "member %q is not in the schema", k)
					continue
				}
				c.check(ap, v[k], where)
			}
		}
	case []any:
		if items, ok := s["items"]; ok {
			for i, e := range v {
				c.check(items, e, at+"["+strconv.Itoa(i)+"]")
			}
		}
		if min, ok := s["minItems"].(float64); ok && float64(len(v)) < min {
			c.fail(at, "%d items, want at least %v", len(v), min)
		}
		if max, ok := s["maxItems"].(float64); ok && float64(len(v)) > max {
			c.fail(at, "%d items, want at most %v", len(v), max)
		}
	}
}

// typeOf names v's JSON type as the type keyword does.
func typeOf(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case json.Number:
		if _, ok := new(big.Int).SetString(v.String(), 10); ok {
			return "integer"
		}
		if f, err := v.Float64(); err == nil && f == float64(int64(f)) {
			return "integer"
		}
		return "number"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

func num(n json.Number) float64 {
	f, _ := n.Float64()
	return f
}

// equal compares a schema's value (float64 numbers) with a document's
// (json.Number).
func equal(a, b any) bool {
	ab, err1 := json.Marshal(norm(a))
	bb, err2 := json.Marshal(norm(b))
	return err1 == nil && err2 == nil && bytes.Equal(ab, bb)
}

func norm(v any) any {
	switch v := v.(type) {
	case json.Number:
		return num(v)
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = norm(e)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = norm(e)
		}
		return out
	}
	return v
}

func show(v any) string {
	b, err := json.Marshal(v)
	if err != nil || len(b) > 60 {
		return typeOf(v)
	}
	return string(b)
}
