package output

import (
	"bytes"
	"fmt"
	"reflect"
	"sync"

	"gopkg.in/yaml.v3"
)

// YAMLTail encodes many values of one struct type as YAML (yaml.v3, indent
// 2) when the fields from one on repeat across values: every switch of a
// fabric shares its profile's QoS fields, which are most of its intent and
// most of yaml.v3's time. The leading fields are encoded per value; each
// distinct run of trailing fields once. The output is byte-identical to
// encoding the whole value, because a top-level block mapping is one line
// run per key. It is safe for concurrent use; values passed to Marshal
// must not change while the YAMLTail is in use, since it keeps their tails
// to compare.
type YAMLTail struct {
	typ        reflect.Type
	head, tail reflect.Type
	at         int

	mu    sync.Mutex
	cache []tailText
}

type tailText struct {
	value any
	text  string
}

// maxTails bounds the cache; values past it are encoded each time.
const maxTails = 64

// NewYAMLTail prepares encoding values of sample's struct type whose
// fields from firstTail on repeat.
func NewYAMLTail(sample any, firstTail string) (*YAMLTail, error) {
	t := reflect.TypeOf(sample)
	if t == nil || t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("yaml tail: %T is not a struct", sample)
	}
	f, ok := t.FieldByName(firstTail)
	if !ok || len(f.Index) != 1 || f.Index[0] == 0 {
		return nil, fmt.Errorf("yaml tail: %s has no field %s after its first", t, firstTail)
	}
	var fields []reflect.StructField
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		if !sf.IsExported() || sf.Anonymous {
			return nil, fmt.Errorf("yaml tail: field %s of %s is unexported or embedded", sf.Name, t)
		}
		fields = append(fields, reflect.StructField{Name: sf.Name, Type: sf.Type, Tag: sf.Tag})
	}
	at := f.Index[0]
	return &YAMLTail{typ: t, at: at, head: reflect.StructOf(fields[:at]), tail: reflect.StructOf(fields[at:])}, nil
}

// Marshal encodes v, which must be of the prepared type.
func (y *YAMLTail) Marshal(v any) (string, error) {
	rv := reflect.ValueOf(v)
	if rv.Type() != y.typ {
		return "", fmt.Errorf("yaml tail: got %T, want %s", v, y.typ)
	}
	head, tail := reflect.New(y.head).Elem(), reflect.New(y.tail).Elem()
	for i := 0; i < rv.NumField(); i++ {
		if i < y.at {
			head.Field(i).Set(rv.Field(i))
		} else {
			tail.Field(i - y.at).Set(rv.Field(i))
		}
	}
	h, err := encodeYAML(head.Interface())
	if err != nil {
		return "", err
	}
	t, err := y.tailText(tail.Interface())
	if err != nil {
		return "", err
	}
	if h == "{}\n" || t == "{}\n" { // a half with no field: not a concatenation
		return encodeYAML(v)
	}
	return h + t, nil
}

func (y *YAMLTail) tailText(tail any) (string, error) {
	y.mu.Lock()
	for _, c := range y.cache {
		if reflect.DeepEqual(c.value, tail) {
			y.mu.Unlock()
			return c.text, nil
		}
	}
	y.mu.Unlock()
	text, err := encodeYAML(tail)
	if err != nil {
		return "", err
	}
	y.mu.Lock()
	defer y.mu.Unlock()
	for _, c := range y.cache {
		if reflect.DeepEqual(c.value, tail) {
			return text, nil // another goroutine got there first
		}
	}
	if len(y.cache) < maxTails {
		y.cache = append(y.cache, tailText{value: tail, text: text})
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
