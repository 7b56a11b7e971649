package output_test

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/internal/output"
)

// reflow is the definition MarshalJSON's fast path must match byte for byte.
func reflow(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return output.IndentCompact(b), nil
}

type custom struct{ N int }

func (c custom) MarshalJSON() ([]byte, error) { return []byte(`{"custom":[1,2]}`), nil }

type Embedded struct{ E int }

type kitchen struct {
	S        string            `json:"s"`
	SO       string            `json:"so,omitempty"`
	I8       int8              `json:"i8"`
	U64      uint64            `json:"u64,omitempty"`
	F32      float32           `json:"f32"`
	F64      float64           `json:"f64,omitempty"`
	B        bool              `json:"b,omitempty"`
	P        *int              `json:"p"`
	PO       *kitchenLeaf      `json:"po,omitempty"`
	Any      any               `json:"any"`
	M        map[string]int    `json:"m"`
	MO       map[string]string `json:"mo,omitempty"`
	L        []kitchenLeaf     `json:"l"`
	LO       []int             `json:"lo,omitempty"`
	A        [3]int            `json:"a"`
	Nested   [][]string        `json:"nested"`
	NoTag    int
	BadTag   int `json:"a\"b"`
	Skipped  int `json:"-"`
	Dash     int `json:"-,"`
	unexport int
	Dur      time.Duration `json:"dur"`
}

type kitchenLeaf struct {
	X, Y int
	Name string `json:"name,omitempty"`
}

// fill sets v (addressable) to a random value, small enough to read.
func fill(rng *rand.Rand, v reflect.Value, depth int) {
	strs := []string{"", "a", "gpu-00001", "<b>&amp;</b>", "quote\" back\\slash", "tab\tnl\n", "\u2028\u2029", "é", "\xff\xfe", "x,y:{z}[w]", "a long string that will not fit on one line with its neighbours, at all"}
	switch v.Kind() {
	case reflect.String:
		v.SetString(strs[rng.IntN(len(strs))])
	case reflect.Bool:
		v.SetBool(rng.IntN(2) == 0)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		vals := []int64{0, 1, -1, 26, 9000, math.MaxInt8, math.MinInt8}
		x := vals[rng.IntN(len(vals))]
		if v.OverflowInt(x) {
			x = 0
		}
		v.SetInt(x)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		vals := []uint64{0, 1, 255, 65535}
		x := vals[rng.IntN(len(vals))]
		if v.OverflowUint(x) {
			x = 0
		}
		v.SetUint(x)
	case reflect.Float32, reflect.Float64:
		vals := []float64{0, 1.5, -2, 1e-7, 1e21, 123456789.125, 0.1, 3e-9}
		v.SetFloat(vals[rng.IntN(len(vals))])
	case reflect.Pointer:
		if depth > 4 || rng.IntN(3) == 0 {
			return
		}
		p := reflect.New(v.Type().Elem())
		fill(rng, p.Elem(), depth+1)
		v.Set(p)
	case reflect.Interface:
		choices := []any{nil, "s", 2.5, true, []any{1.0, "x"}, map[string]any{"k": []any{}}, map[string]any{}, kitchenLeaf{X: 1}}
		if c := choices[rng.IntN(len(choices))]; c != nil {
			v.Set(reflect.ValueOf(c))
		}
	case reflect.Slice:
		if depth > 4 || rng.IntN(4) == 0 {
			return // nil
		}
		n := rng.IntN(12)
		s := reflect.MakeSlice(v.Type(), n, n)
		for i := 0; i < n; i++ {
			fill(rng, s.Index(i), depth+1)
		}
		v.Set(s)
	case reflect.Array:
		for i := 0; i < v.Len(); i++ {
			fill(rng, v.Index(i), depth+1)
		}
	case reflect.Map:
		if depth > 4 || rng.IntN(4) == 0 {
			return
		}
		m := reflect.MakeMap(v.Type())
		for i := rng.IntN(5); i > 0; i-- {
			k := reflect.New(v.Type().Key()).Elem()
			fill(rng, k, depth+1)
			e := reflect.New(v.Type().Elem()).Elem()
			fill(rng, e, depth+1)
			m.SetMapIndex(k, e)
		}
		v.Set(m)
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				fill(rng, v.Field(i), depth+1)
			}
		}
	}
}

func TestMarshalJSONMatchesReflow(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	types := []reflect.Type{
		reflect.TypeFor[fabric.HostIntent](), reflect.TypeFor[fabric.SwitchIntent](),
		reflect.TypeFor[fabric.SubnetManagerIntent](), reflect.TypeFor[fabric.Resolved](),
		reflect.TypeFor[kitchen](), reflect.TypeFor[[]kitchenLeaf](), reflect.TypeFor[map[string]any](),
	}
	for _, typ := range types {
		for i := 0; i < 300; i++ {
			v := reflect.New(typ)
			fill(rng, v.Elem(), 0)
			for _, val := range []any{v.Elem().Interface(), v.Interface()} {
				got, err := output.MarshalJSON(val)
				want, werr := reflow(val)
				if (err == nil) != (werr == nil) || string(got) != string(want) {
					t.Fatalf("%v:\ngot  %s (%v)\nwant %s (%v)", typ, got, err, want, werr)
				}
			}
		}
	}
}

func TestMarshalJSONFallbacks(t *testing.T) {
	for name, v := range map[string]any{
		"marshaler": struct{ C custom }{custom{1}},
		"embedded":  struct{ Embedded }{Embedded{2}},
		"bytes":     struct{ B []byte }{[]byte("hi")},
		"string option": struct {
			N int `json:"n,string"`
		}{3},
		"int map keys":     map[int]string{2: "b", 1: "a"},
		"nil":              nil,
		"time":             struct{ T time.Time }{time.Unix(0, 0).UTC()},
		"marshaler in any": map[string]any{"c": custom{}},
	} {
		got, err := output.MarshalJSON(v)
		want, werr := reflow(v)
		if err != nil || werr != nil || string(got) != string(want) {
			t.Errorf("%s: got %s (%v), want %s (%v)", name, got, err, want, werr)
		}
	}
	for name, v := range map[string]any{
		"NaN":     struct{ F float64 }{math.NaN()},
		"Inf":     []float64{math.Inf(1)},
		"channel": struct{ C chan int }{},
	} {
		if _, err := output.MarshalJSON(v); err == nil {
			t.Errorf("%s: no error, as json.Marshal gives", name)
		}
	}
}

func FuzzMarshalJSONMatchesReflow(f *testing.F) {
	f.Add([]byte(`{"a":[1,2,{"b":"c\"]"}],"d":{},"e":[[]],"f":1e-7}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var v any
		if json.Unmarshal(data, &v) != nil {
			return
		}
		got, err := output.MarshalJSON(v)
		want, werr := reflow(v)
		if (err == nil) != (werr == nil) || string(got) != string(want) {
			t.Fatalf("%s:\ngot  %s\nwant %s", data, got, want)
		}
	})
}

// BenchmarkMarshalJSONHost encodes a resolved host (two RoCE interfaces);
// BenchmarkMarshalJSONHostReflow is the encoding/json path it replaces.
func BenchmarkMarshalJSONHost(b *testing.B)       { benchHost(b, output.MarshalJSON) }
func BenchmarkMarshalJSONHostReflow(b *testing.B) { benchHost(b, reflow) }

func benchHost(b *testing.B, marshal func(any) ([]byte, error)) {
	f, err := fabric.Load("../../profiles/lab/fabric.yaml")
	if err != nil {
		b.Fatal(err)
	}
	h := f.Resolve().Hosts[0]
	b.ReportAllocs()
	for b.Loop() {
		if _, err := marshal(h); err != nil {
			b.Fatal(err)
		}
	}
}
