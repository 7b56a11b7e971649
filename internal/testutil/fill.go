package testutil

import (
	"math"
	"math/rand/v2"
	"reflect"
)

// Fill sets v (addressable) to a random value drawn from rng, small enough
// to read: strings that need escaping, numbers at the edges of their types,
// nil and empty slices, maps and pointers, interfaces holding JSON-like
// values. Property tests of encoders fill the types they encode with it.
func Fill(rng *rand.Rand, v reflect.Value) { fill(rng, v, 0) }

// leaf is a struct Fill puts in interfaces.
type leaf struct {
	X, Y int
	Name string `json:"name,omitempty"`
}

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
		choices := []any{nil, "s", 2.5, true, []any{1.0, "x"}, map[string]any{"k": []any{}}, map[string]any{}, leaf{X: 1}}
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
