package output_test

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/fabricctl/fabricctl/internal/output"
	"github.com/fabricctl/fabricctl/internal/testutil"
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

func TestMarshalJSONMatchesReflow(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	types := []reflect.Type{
		reflect.TypeFor[kitchen](), reflect.TypeFor[[]kitchenLeaf](), reflect.TypeFor[map[string]any](),
	}
	for _, typ := range types {
		for i := 0; i < 300; i++ {
			v := reflect.New(typ)
			testutil.Fill(rng, v.Elem())
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
