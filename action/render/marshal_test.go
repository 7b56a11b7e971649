package render_test

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/fabricctl/fabricctl/fabric"
	"github.com/fabricctl/fabricctl/internal/output"
	"github.com/fabricctl/fabricctl/internal/testutil"
)

// viaEncodingJSON is what output.MarshalJSON's fast path must equal byte for
// byte: encoding/json's output in MarshalJSON's layout.
func viaEncodingJSON(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err == nil {
		b = output.IndentCompact(b)
	}
	return b, err
}

// TestMarshalJSONIntents: the intents render writes (hosts/*.json and the
// rest) encode as encoding/json would, byte for byte, for random values of
// every intent type.
func TestMarshalJSONIntents(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for _, typ := range []reflect.Type{
		reflect.TypeFor[fabric.HostIntent](), reflect.TypeFor[fabric.SwitchIntent](),
		reflect.TypeFor[fabric.SubnetManagerIntent](), reflect.TypeFor[fabric.Resolved](),
	} {
		for i := 0; i < 300; i++ {
			v := reflect.New(typ)
			testutil.Fill(rng, v.Elem())
			for _, val := range []any{v.Elem().Interface(), v.Interface()} {
				got, err := output.MarshalJSON(val)
				want, werr := viaEncodingJSON(val)
				if (err == nil) != (werr == nil) || string(got) != string(want) {
					t.Fatalf("%v:\ngot  %s (%v)\nwant %s (%v)", typ, got, err, want, werr)
				}
			}
		}
	}
}

// BenchmarkMarshalJSONHost encodes a resolved host (two RoCE interfaces) as
// render writes it; BenchmarkMarshalJSONHostReflow is the encoding/json path
// it replaces.
func BenchmarkMarshalJSONHost(b *testing.B)       { benchHost(b, output.MarshalJSON) }
func BenchmarkMarshalJSONHostReflow(b *testing.B) { benchHost(b, viaEncodingJSON) }

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
