package jsonschema

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

type level string

func (l level) MarshalText() ([]byte, error) { return []byte(strings.ToUpper(string(l))), nil }

type selfish struct{ n int }

func (s selfish) MarshalJSON() ([]byte, error) { return json.Marshal([]int{s.n}) }

type inner struct {
	Name string `json:"name"`
	Next *inner `json:"next,omitempty"` // recursive
}

type Embedded struct {
	Shared string `json:"shared"`
	Hidden string `json:"name"` // the outer "name" wins
}

type doc struct {
	APIVersion string `json:"apiVersion"`
	Embedded
	*Lent
	Name     string            `json:"name"`
	Count    int               `json:"count,omitempty"`
	Ratio    float64           `json:"ratio"`
	Big      uint64            `json:"big,string"`
	Took     time.Duration     `json:"took"`
	At       time.Time         `json:"at"`
	Level    level             `json:"level"`
	Self     selfish           `json:"self"`
	Items    []inner           `json:"items"`
	Pair     [2]bool           `json:"pair"`
	Labels   map[string]string `json:"labels,omitempty"`
	Raw      []byte            `json:"raw,omitempty"`
	Any      any               `json:"any"`
	Ptr      *int              `json:"ptr"`
	Skip     string            `json:"-"`
	private  string
	Untagged string
}

type Lent struct {
	Extra int `json:"extra"`
}

func generated(t *testing.T) map[string]any {
	t.Helper()
	return Generate(reflect.TypeFor[*doc](), Options{Kind: "Doc", APIVersion: "v1", Title: "a test document",
		Special: map[reflect.Type]map[string]any{reflect.TypeFor[selfish](): {"type": "array", "items": map[string]any{"type": "integer"}}}})
}

func TestGenerateShape(t *testing.T) {
	s := generated(t)
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Schema     string                     `json:"$schema"`
		Title      string                     `json:"title"`
		Required   []string                   `json:"required"`
		Properties map[string]json.RawMessage `json:"properties"`
		Defs       map[string]json.RawMessage `json:"$defs"`
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	want := "Untagged any apiVersion at big kind name pair ptr ratio self shared took items level"
	for _, w := range strings.Fields(want) {
		if !strings.Contains(" "+strings.Join(got.Required, " ")+" ", " "+w+" ") {
			t.Errorf("required %v lacks %q", got.Required, w)
		}
	}
	for _, n := range []string{"count", "labels", "raw", "extra"} {
		if strings.Contains(" "+strings.Join(got.Required, " ")+" ", " "+n+" ") {
			t.Errorf("%q is required, but may be left out", n)
		}
	}
	for _, n := range []string{"Skip", "private", "-", "Hidden", "Embedded", "Lent"} {
		if _, ok := got.Properties[n]; ok {
			t.Errorf("property %q should not be in the schema", n)
		}
	}
	checks := map[string]string{
		"kind":       `{"const":"Doc","type":"string"}`,
		"apiVersion": `{"const":"v1","type":"string"}`,
		"big":        `{"type":"string"}`,
		"took":       `{"description":"nanoseconds","type":"integer"}`,
		"at":         `{"format":"date-time","type":"string"}`,
		"level":      `{"type":"string"}`,
		"self":       `{"items":{"type":"integer"},"type":"array"}`,
		"items":      `{"items":{"$ref":"#/$defs/jsonschema.inner"},"type":["array","null"]}`,
		"ptr":        `{"type":["integer","null"]}`,
		"any":        `{}`,
	}
	for k, w := range checks {
		if string(got.Properties[k]) != w {
			t.Errorf("property %s = %s, want %s", k, got.Properties[k], w)
		}
	}
	if got.Title != "a test document" || got.Schema != Draft {
		t.Errorf("title %q, $schema %q", got.Title, got.Schema)
	}
	if _, ok := got.Defs["jsonschema.inner"]; !ok {
		t.Errorf("$defs %v lack jsonschema.inner", got.Defs)
	}
}

func TestValidateAcceptsWhatEncodingJSONWrites(t *testing.T) {
	s := generated(t)
	n := 3
	for _, d := range []doc{
		{}, // zero: nil slices and maps are null, Lent is absent
		{APIVersion: "v1", Name: "x", Count: 2, Items: []inner{{Name: "a", Next: &inner{Name: "b"}}},
			Labels: map[string]string{"a": "b"}, Raw: []byte("hi"), Any: map[string]any{"z": 1}, Ptr: &n,
			Lent: &Lent{Extra: 4}, Took: time.Second, Ratio: 0.5, Big: 1 << 60},
	} {
		b, err := json.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		b = []byte(strings.Replace(`{"kind":"Doc",`+string(b[1:]), `"apiVersion":""`, `"apiVersion":"v1"`, 1))
		if err := Validate(s, b); err != nil {
			t.Errorf("valid document refused:\n%s\n%v", b, err)
		}
	}
}

func TestValidateRefuses(t *testing.T) {
	s := generated(t)
	b, err := json.Marshal(doc{Items: []inner{{Name: "a"}}})
	if err != nil {
		t.Fatal(err)
	}
	good := strings.Replace(`{"kind":"Doc",`+string(b[1:]), `"apiVersion":""`, `"apiVersion":"v1"`, 1)
	for _, c := range []struct{ name, doc, want string }{
		{"no kind", string(b), `$: required member "kind" is missing`},
		{"other kind", strings.Replace(good, `"Doc"`, `"Plan"`, 1), `$.kind: "Plan", want "Doc"`},
		{"other apiVersion", strings.Replace(good, `"v1"`, `"v2"`, 1), `$.apiVersion: "v2", want "v1"`},
		{"extra member", strings.Replace(good, `{"kind"`, `{"zzz":1,"kind"`, 1), `$.zzz: member "zzz" is not in the schema`},
		{"wrong type", strings.Replace(good, `"ratio":0`, `"ratio":"0"`, 1), `$.ratio: string, want number`},
		{"nested", strings.Replace(good, `{"name":"a"}`, `{"name":1}`, 1), `$.items[0].name: integer, want string`},
		{"array length", strings.Replace(good, `"pair":[false,false]`, `"pair":[false]`, 1), `$.pair: 1 items, want at least 2`},
		{"integer", strings.Replace(good, `"took":0`, `"took":0.5`, 1), `$.took: number, want integer`},
	} {
		err := Validate(s, []byte(c.doc))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.name, err, c.want)
		}
		var ve *ValidationError
		if err != nil && !errors.As(err, &ve) {
			t.Errorf("%s: %v is no *ValidationError", c.name, err)
		}
	}
}

func TestValidateKeywords(t *testing.T) {
	s := map[string]any{"anyOf": []any{
		map[string]any{"type": "string", "pattern": "^a+$"},
		map[string]any{"type": "integer", "minimum": 1, "maximum": 3},
		map[string]any{"enum": []any{"x", 7.5}},
	}}
	for doc, ok := range map[string]bool{`"aaa"`: true, `"ab"`: false, `2`: true, `0`: false, `4`: false, `7.5`: true, `"x"`: true, `null`: false} {
		if err := Validate(s, []byte(doc)); (err == nil) != ok {
			t.Errorf("%s: err %v, want ok %v", doc, err, ok)
		}
	}
	one := map[string]any{"oneOf": []any{map[string]any{"type": "integer"}, map[string]any{"type": "number"}}}
	if err := Validate(one, []byte(`1`)); err == nil {
		t.Error("1 matches both of oneOf's schemas, but passed")
	}
	if err := Validate(map[string]any{"$ref": "#/$defs/missing"}, []byte(`1`)); err == nil || !strings.Contains(err.Error(), "unresolved") {
		t.Errorf("missing $ref: %v", err)
	}
	if err := Validate(map[string]any{}, []byte(`1 2`)); err == nil {
		t.Error("two values passed")
	}
}
