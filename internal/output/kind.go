package output

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
)

// Kinded is a document that names its kind. Write prints such a document
// with a "kind" member next to its "apiVersion" (or first, without one):
// a program reading fabricctl's JSON or YAML tells the documents apart by
// it, and `fabricctl schema --output-kind KIND` prints each one's schema.
// Types whose kind is a struct field of their own need no method.
type Kinded interface {
	DocumentKind() string
}

// WithKind returns v as Write prints it: a Kinded v (not a nil pointer) is
// wrapped so that its JSON holds "kind" after "apiVersion"; anything else
// is returned as is. A v whose JSON already has a "kind" keeps it.
func WithKind(v any) any {
	k, ok := v.(Kinded)
	if !ok {
		return v
	}
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.Pointer && rv.IsNil() {
		return v
	}
	return kinded{kind: k.DocumentKind(), v: v}
}

// kinded is a document with its kind.
type kinded struct {
	kind string
	v    any
}

// MarshalJSON is v's JSON object with "kind" inserted.
func (k kinded) MarshalJSON() ([]byte, error) {
	b, err := json.Marshal(k.v)
	if err != nil {
		return nil, err
	}
	return InsertKind(b, k.kind)
}

// InsertKind returns the JSON object doc with a "kind": kind member after
// its "apiVersion" member, or first when it has none. An object that has a
// "kind" member already is returned unchanged; a value that is not an
// object is an error.
func InsertKind(doc []byte, kind string) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(doc))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, fmt.Errorf("inserting kind %q: the document is not a JSON object", kind)
	}
	type member struct {
		key []byte
		val json.RawMessage
	}
	var members []member
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("inserting kind %q: %w", kind, err)
		}
		key, _ := t.(string)
		if key == "kind" {
			return doc, nil
		}
		var val json.RawMessage
		if err := dec.Decode(&val); err != nil {
			return nil, fmt.Errorf("inserting kind %q: %w", kind, err)
		}
		kb, err := json.Marshal(key)
		if err != nil {
			return nil, err
		}
		members = append(members, member{kb, val})
	}
	kk, _ := json.Marshal("kind")
	kv, err := json.Marshal(kind)
	if err != nil {
		return nil, err
	}
	at := 0
	for i, m := range members {
		if string(m.key) == `"apiVersion"` {
			at = i + 1
			break
		}
	}
	members = append(members[:at], append([]member{{kk, kv}}, members[at:]...)...)
	var out bytes.Buffer
	out.Grow(len(doc) + len(kind) + 10)
	out.WriteByte('{')
	for i, m := range members {
		if i > 0 {
			out.WriteByte(',')
		}
		out.Write(m.key)
		out.WriteByte(':')
		out.Write(m.val)
	}
	out.WriteByte('}')
	return out.Bytes(), nil
}
