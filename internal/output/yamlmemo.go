package output

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"
)

// YAMLMemo encodes many values of one struct type as YAML (yaml.v3, indent
// 2), remembering the text of each field's recent distinct values: the
// switches of a fabric share their QoS fields and, per platform, their port
// lists, and yaml.v3 is slow (about half a millisecond for a switch intent).
// Each field is encoded on its own and the texts are concatenated, which
// is byte-identical to encoding the whole value since a top-level block
// mapping is one run of lines per key. It is safe for concurrent use;
// values passed to Marshal must not change while the YAMLMemo is in use,
// since it keeps them to compare.
type YAMLMemo struct {
	typ    reflect.Type
	fields []memoField
}

type memoField struct {
	single reflect.Type // a struct of just this field, with its tag

	mu   sync.Mutex
	seen []memoText // recent distinct values
}

type memoText struct {
	value any
	text  string
}

// maxMemo bounds the values remembered per field; a field whose values
// are all distinct (a name) is then simply encoded every time.
const maxMemo = 16

// NewYAMLMemo prepares encoding values of sample's struct type.
func NewYAMLMemo(sample any) (*YAMLMemo, error) {
	t := reflect.TypeOf(sample)
	if t == nil || t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("yaml memo: %T is not a struct", sample)
	}
	m := &YAMLMemo{typ: t, fields: make([]memoField, t.NumField())}
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		if !sf.IsExported() || sf.Anonymous || strings.Contains(sf.Tag.Get("yaml"), "inline") {
			return nil, fmt.Errorf("yaml memo: field %s of %s is unexported, embedded or inline", sf.Name, t)
		}
		m.fields[i].single = reflect.StructOf([]reflect.StructField{{Name: sf.Name, Type: sf.Type, Tag: sf.Tag}})
	}
	return m, nil
}

// Marshal encodes v, which must be of the prepared type.
func (m *YAMLMemo) Marshal(v any) (string, error) {
	rv := reflect.ValueOf(v)
	if !rv.IsValid() || rv.Type() != m.typ {
		return "", fmt.Errorf("yaml memo: got %T, want %s", v, m.typ)
	}
	var out strings.Builder
	for i := range m.fields {
		text, err := m.fields[i].text(rv.Field(i))
		if err != nil {
			return "", err
		}
		out.WriteString(text)
	}
	if out.Len() == 0 { // every field omitted
		return "{}\n", nil
	}
	return out.String(), nil
}

// text returns the YAML of the field holding fv ("" when omitted).
func (f *memoField) text(fv reflect.Value) (string, error) {
	value := fv.Interface()
	f.mu.Lock()
	for _, s := range f.seen {
		if reflect.DeepEqual(s.value, value) {
			f.mu.Unlock()
			return s.text, nil
		}
	}
	f.mu.Unlock()
	one := reflect.New(f.single).Elem()
	one.Field(0).Set(fv)
	text, err := encodeYAML(one.Interface())
	if err != nil {
		return "", err
	}
	if text == "{}\n" {
		text = "" // omitempty
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, s := range f.seen {
		if reflect.DeepEqual(s.value, value) {
			return text, nil // another goroutine got there first
		}
	}
	if len(f.seen) < maxMemo {
		f.seen = append(f.seen, memoText{value: value, text: text})
	}
	return text, nil
}

// encodeYAML encodes v as one YAML document, indented by 2.
func encodeYAML(v any) (string, error) {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	if err := enc.Close(); err != nil {
		return "", err
	}
	return buf.String(), nil
}
